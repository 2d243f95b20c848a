#include "answers.hpp"
#include "page_files.hpp"

#include <blockwire/rest/rest_service.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace blockwire::rest {

Service::Service(BlockStore& store, Sources sources) : store_(store), sources_(std::move(sources)), coins_(std::make_unique<Coins>()) {}
Service::~Service() = default;

Response Service::get(std::string_view target, std::string_view body) const {
  auto lock = store_.lock();
  const detail::Answers route{store_, store_.directory(), store_.index(), sources_, *coins_, lock};
  const std::string_view path = target.substr(0, target.find('?'));
  // Core's routes, matched by prefix in its order; the rest of the target
  // (its query too) is the route's.
  const auto after = [&](std::string_view prefix) -> std::optional<std::string> {
    if (!path.starts_with(prefix)) return std::nullopt;
    return std::string(target.substr(prefix.size()));
  };
  if (auto part = after("/rest/tx/")) return route.transaction(*part);
  if (auto part = after("/rest/block/notxdetails/")) return route.block(*part, 1, std::nullopt);
  if (auto part = after("/rest/block/")) return route.block(*part, 3, std::nullopt);
  if (auto part = after("/rest/blockpart/")) return route.block_part(*part, target);
  if (auto part = after("/rest/blockfilter/")) return route.block_filter(*part);
  if (auto part = after("/rest/blockfilterheaders/")) return route.filter_headers(*part, target);
  if (auto part = after("/rest/chaininfo")) return route.chain_info(*part);
  if (auto part = after("/rest/mempool/")) return route.mempool(*part, target);
  if (auto part = after("/rest/headers/")) return route.headers(*part, target);
  if (auto part = after("/rest/getutxos")) return route.utxos(*part, body);
  if (auto part = after("/rest/deploymentinfo/")) return route.deployment_info(*part);
  if (auto part = after("/rest/deploymentinfo")) return route.deployment_info(*part);
  if (auto part = after("/rest/blockhashbyheight/")) return route.block_hash_by_height(*part);
  if (auto part = after("/rest/spenttxouts/")) return route.spent_outputs(*part);
  // Esplora's routes, their query ignored as Esplora ignores it.
  const auto api = [&](std::string_view prefix) -> std::optional<std::string_view> {
    if (!path.starts_with(prefix)) return std::nullopt;
    return path.substr(prefix.size());
  };
  if (path == "/api/blocks/tip/height" || path == "/api/blocks/tip/hash") return route.esplora_tip(path.substr(path.rfind('/') + 1));
  if (auto part = api("/api/block-height/")) return route.esplora_block_height(*part);
  if (auto part = api("/api/block/")) return route.esplora_block(*part);
  if (auto part = api("/api/tx/")) return route.esplora_tx(*part);
  const std::string_view query = path.size() < target.size() ? target.substr(path.size() + 1) : std::string_view{};
  if (auto part = api("/api/address/")) return route.esplora_address(*part, query, false);
  if (auto part = api("/api/scripthash/")) return route.esplora_address(*part, query, true);
  // The explorer page, outside /rest/.
  for (std::size_t i = 0; i < detail::page_file_count; ++i) {
    const detail::PageFile& f = detail::page_files[i];
    if (path == f.path || (f.path == "/" && path == "/index.html")) return {200, std::string(f.content_type), std::string(f.content)};
  }
  return {404, std::string(no_route_content_type), {}};
}

}  // namespace blockwire::rest
