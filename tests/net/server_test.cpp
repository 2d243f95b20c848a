// net::Server in-process on the directory Bitcoin Core's node wrote: its
// headers end at Core's tip, its BIP157 filters are the ones Core's
// getblockfilter gave, a peer past max_peers is refused, and stop() ends
// run() with every thread joined.
#include <blockwire/directory.hpp>
#include <blockwire/net.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/net/server.hpp>
#include <blockwire/io/file_descriptor.hpp>

#include "../support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <mutex>
#include <sys/eventfd.h>
#include <thread>
#include <vector>

using namespace blockwire;

namespace {

const std::string core_dir = BLOCKWIRE_TEST_DATA "/core-regtest/blocks";
// What the fixture's README says of Core's best chain.
constexpr std::size_t core_chain_length = 238;
constexpr const char* core_tip = "066c550b69c6c4352a1e90e7413daabdf9b29da0b85ca7dd6d796f24d299b618";

template <class T>
T receive_a(net::Connection& c) {
  for (;;) {
    auto m = c.receive();
    REQUIRE(m);
    if (auto* wanted = std::get_if<T>(&m.value())) return std::move(*wanted);
  }
}

}  // namespace

TEST_CASE("net::Server serves Core's own directory in-process: Core's tip, Core's filters, max_peers, stop()") {
  auto dir = BlocksDirectory::open(core_dir);
  REQUIRE(dir);
  REQUIRE(dir.value().net() == network::regtest);  // from the records' magic
  REQUIRE(dir.value().chain_size().value() == core_chain_length);
  BlockStore store(std::move(dir).value());
  REQUIRE(store.enable_filters().value());

  std::mutex events_mutex;
  std::vector<net::ServerEvent> events;
  net::Server::Options options;
  options.max_peers = 1;
  options.log = [&](const net::ServerEvent& e) {
    const std::lock_guard lock(events_mutex);
    events.push_back(e);
  };
  auto server = net::Server::listen(store, {"127.0.0.1", 0}, options);
  REQUIRE(server);
  net::Server& s = *server.value();
  REQUIRE(s.bound().port != 0);
  result<void> ran = success();
  std::thread runner([&] { ran = s.run(); });

  {
    auto peer = net::Connection::connect(s.bound(), network::regtest);
    REQUIRE(peer);
    auto version = peer.value().handshake_outbound();
    REQUIRE(version);
    CHECK(version.value().start_height == static_cast<std::int32_t>(core_chain_length - 1));
    CHECK((version.value().services & p2p::node_compact_filters) != 0);

    // Headers from genesis: the last one is Core's tip.
    p2p::GetHeaders ask;
    ask.locator = {block_hash(genesis_block(network::regtest).header)};
    REQUIRE(peer.value().send(ask));
    const auto headers = receive_a<p2p::Headers>(peer.value()).headers;
    REQUIRE(headers.size() == core_chain_length - 1);
    CHECK(block_hash(headers.back()).to_hex() == core_tip);

    // Every block's basic filter, as Core's getblockfilter gave it.
    std::ifstream in(BLOCKWIRE_TEST_DATA "/core-regtest/rpc/getblockfilter.json");
    const auto core = nlohmann::json::parse(in);
    REQUIRE(core.size() == core_chain_length);
    p2p::GetCFilters range;
    range.start_height = 0;
    range.stop_hash = block_hash(headers.back());
    REQUIRE(peer.value().send(range));
    for (std::size_t h = 0; h < core_chain_length; ++h) {
      const auto f = receive_a<p2p::CFilter>(peer.value());
      CAPTURE(h);
      CHECK(to_hex(f.filter) == core[h]["filter"].get<std::string>());
    }

    // The one slot is taken by a peer past its handshake, too few peers for
    // any to be unprotected: the next finishes its handshake and is
    // refused, closed before a message of a served peer (sendcmpct).
    auto second = net::Connection::connect(s.bound(), network::regtest);
    REQUIRE(second);
    REQUIRE(second.value().handshake_outbound());
    const auto next = second.value().receive();
    REQUIRE_FALSE(next);
    CHECK(next.error().code() == net::errc::connection_closed);
  }

  s.stop();
  runner.join();
  CHECK(ran);
  const std::lock_guard lock(events_mutex);
  const auto saw = [&](net::ServerEvent::kind k) {
    return std::any_of(events.begin(), events.end(), [&](const net::ServerEvent& e) { return e.what == k; });
  };
  CHECK(saw(net::ServerEvent::kind::connected));
  CHECK(saw(net::ServerEvent::kind::refused));
}

TEST_CASE("net::fetch of Core's directory from an in-process server: Core's chain, its commit kept, a stop descriptor ends the next") {
  auto dir = BlocksDirectory::open(core_dir);
  REQUIRE(dir);
  BlockStore store(std::move(dir).value());
  auto server = net::Server::listen(store, {"127.0.0.1", 0}, {});
  REQUIRE(server);
  net::Server& s = *server.value();
  std::thread runner([&] { (void)s.run(); });

  test::TempDir temp;
  net::FetchRequest request;
  request.peer = s.bound();
  request.net = network::regtest;
  request.dir = temp.file("blocks");
  request.key = random_xor_key();
  bool opened = false;
  request.events.opened = [&](const BlockFileWriter&, const BlockIndex& index, std::span<const std::string>) {
    CHECK(index.empty() != opened);  // new the first time, Core's chain the second
    opened = true;
  };
  const net::FetchReport first = net::fetch(request);
  CHECK(opened);
  CHECK_FALSE(first.failure);
  CHECK(first.start_height == std::nullopt);
  CHECK(first.height == Height::checked(core_chain_length - 1));
  CHECK(first.tip.to_hex() == core_tip);
  REQUIRE(first.version);
  CHECK(first.version->start_height == static_cast<std::int32_t>(core_chain_length - 1));
  CHECK(first.sync.stopped == net::SyncProgress::stop::tip_reached);
  // Committed: the directory reopens at Core's tip, its undo records there.
  {
    auto fetched = BlocksDirectory::open(request.dir);
    REQUIRE(fetched);
    CHECK(fetched.value().chain_size().value() == core_chain_length);
    CHECK(fetched.value().index().tip().to_hex() == core_tip);
  }

  // A stop asked before the call: the directory and its set opened (at
  // the tip already), the peer never reached.
  const FileDescriptor stop(::eventfd(1, EFD_CLOEXEC), ownership::own);
  REQUIRE(stop.get() >= 0);
  request.stop_fd = stop.get();
  const net::FetchReport second = net::fetch(request);
  REQUIRE(second.failure);
  CHECK(second.failure->step() == net::fetch_step::stopped);
  CHECK(second.failure->code() == io::errc::stopped);
  CHECK_FALSE(second.version);
  CHECK(second.height == Height::checked(core_chain_length - 1));

  s.stop();
  runner.join();
}
