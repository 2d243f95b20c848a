#include "answers.hpp"
#include "page_files.hpp"

#include <blockwire/rest/rest_service.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace blockwire::rest {

Service::Service(BlockStore& store, Sources sources) : store_(store), sources_(std::move(sources)), coins_(std::make_unique<Coins>()) {}
Service::~Service() = default;

namespace {

// What a route's answer is made from: the target's rest after the route's
// prefix (Core's routes: with the query, which is theirs; Esplora's: the
// path's alone, their query apart, as Esplora reads it), the whole target
// and the body.
struct Request {
  const detail::Answers& route;
  std::string_view part;
  std::string_view target;
  std::string_view query;
  std::string_view body;
};

// One route: its path prefix (or the whole path), whether its answer is
// slow to make (a block, a transaction, headers or filters: megabytes of
// JSON at worst; HttpServer gives the quick ones a worker of their own),
// and its answer.
struct Route {
  std::string_view prefix;
  enum match : unsigned char { core, esplora, whole_path } kind;
  bool slow;
  Response (*answer)(const Request&);
};

// Core's routes first, in its order (a prefix before the longer ones it
// would take), then Esplora's.
constexpr Route routes[] = {
    {"/rest/tx/", Route::core, true, [](const Request& r) { return r.route.transaction(std::string(r.part)); }},
    {"/rest/block/notxdetails/", Route::core, true, [](const Request& r) { return r.route.block(std::string(r.part), 1, std::nullopt); }},
    {"/rest/block/", Route::core, true, [](const Request& r) { return r.route.block(std::string(r.part), 3, std::nullopt); }},
    {"/rest/blockpart/", Route::core, true, [](const Request& r) { return r.route.block_part(std::string(r.part), r.target); }},
    {"/rest/blockfilter/", Route::core, true, [](const Request& r) { return r.route.block_filter(std::string(r.part)); }},
    {"/rest/blockfilterheaders/", Route::core, true,
     [](const Request& r) { return r.route.filter_headers(std::string(r.part), r.target); }},
    {"/rest/chaininfo", Route::core, false, [](const Request& r) { return r.route.chain_info(std::string(r.part)); }},
    {"/rest/mempool/", Route::core, false, [](const Request& r) { return r.route.mempool(std::string(r.part), r.target); }},
    {"/rest/headers/", Route::core, true, [](const Request& r) { return r.route.headers(std::string(r.part), r.target); }},
    {"/rest/getutxos", Route::core, false, [](const Request& r) { return r.route.utxos(std::string(r.part), r.body); }},
    {"/rest/deploymentinfo/", Route::core, false, [](const Request& r) { return r.route.deployment_info(std::string(r.part)); }},
    {"/rest/deploymentinfo", Route::core, false, [](const Request& r) { return r.route.deployment_info(std::string(r.part)); }},
    {"/rest/blockhashbyheight/", Route::core, false, [](const Request& r) { return r.route.block_hash_by_height(std::string(r.part)); }},
    {"/rest/spenttxouts/", Route::core, true, [](const Request& r) { return r.route.spent_outputs(std::string(r.part)); }},
    {"/api/blocks/tip/height", Route::whole_path, false, [](const Request& r) { return r.route.esplora_tip("height"); }},
    {"/api/blocks/tip/hash", Route::whole_path, false, [](const Request& r) { return r.route.esplora_tip("hash"); }},
    {"/api/block-height/", Route::esplora, false, [](const Request& r) { return r.route.esplora_block_height(r.part); }},
    {"/api/block/", Route::esplora, true, [](const Request& r) { return r.route.esplora_block(r.part); }},
    {"/api/tx/", Route::esplora, true, [](const Request& r) { return r.route.esplora_tx(r.part); }},
    {"/api/address/", Route::esplora, true, [](const Request& r) { return r.route.esplora_address(r.part, r.query, false); }},
    {"/api/scripthash/", Route::esplora, true, [](const Request& r) { return r.route.esplora_address(r.part, r.query, true); }},
};

std::string_view path_of(std::string_view target) noexcept { return target.substr(0, target.find('?')); }

// The route that answers `path`; none: the page's files, or 404.
const Route* route_of(std::string_view path) noexcept {
  for (const Route& r : routes) {
    if (r.kind == Route::whole_path ? path == r.prefix : path.starts_with(r.prefix)) return &r;
  }
  return nullptr;
}

}  // namespace

bool Service::quick(std::string_view target) noexcept {
  const Route* r = route_of(path_of(target));
  return r == nullptr || !r->slow;
}

Response Service::get(std::string_view target, std::string_view body) const {
  auto lock = store_.lock();
  const detail::Answers answers{store_, store_.directory(), store_.index(), sources_, *coins_, lock};
  const std::string_view path = path_of(target);
  if (const Route* r = route_of(path)) {
    const std::string_view query = path.size() < target.size() ? target.substr(path.size() + 1) : std::string_view{};
    const std::string_view part = (r->kind == Route::core ? target : path).substr(std::min(r->prefix.size(), path.size()));
    return r->answer(Request{answers, part, target, query, body});
  }
  // The explorer page, outside /rest/.
  for (std::size_t i = 0; i < detail::page_file_count; ++i) {
    const detail::PageFile& f = detail::page_files[i];
    if (path == f.path || (f.path == "/" && path == "/index.html")) return {200, std::string(f.content_type), std::string(f.content)};
  }
  return {404, std::string(no_route_content_type), {}};
}

}  // namespace blockwire::rest
