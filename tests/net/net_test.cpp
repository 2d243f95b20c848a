// The connection layer on its own: endpoints, the locator as Core builds
// it, the best chain by work, and a connection's deadlines and handshake
// over a socket pair (the other end written by hand, with p2p's encoder).
#include <blockwire/net.hpp>

#include <doctest/doctest.h>

#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "../support/chain.hpp"
#include "../support/socket_pair.hpp"

using namespace blockwire;
using namespace std::chrono_literals;

TEST_CASE("net: HOST[:PORT] for names, IPv4 and bracketed IPv6, bad ports refused") {
  auto e = net::parse_endpoint("node.example", 8333).value();
  CHECK(e.host == "node.example");
  CHECK(e.port == 8333);
  e = net::parse_endpoint("10.0.0.1:18444", 8333).value();
  CHECK((e.host == "10.0.0.1" && e.port == 18444));
  e = net::parse_endpoint("[::1]:18444", 8333).value();
  CHECK((e.host == "::1" && e.port == 18444));
  CHECK(e.to_string() == "[::1]:18444");
  e = net::parse_endpoint("::1", 8333).value();  // bare IPv6: no port in it
  CHECK((e.host == "::1" && e.port == 8333));
  e = net::parse_endpoint(":8333", 1).value();
  CHECK((e.host.empty() && e.port == 8333));
  for (const char* bad : {"host:", "host:65536", "host:-1", "host:80x", "[::1", "[::1]x", "[::1]:"}) {
    CAPTURE(bad);
    CHECK(net::parse_endpoint(bad, 8333).error().code() == net::errc::bad_endpoint);
  }
  CHECK(net::connect_to({"name.invalid", 8333}, 1000ms).error().code() == net::errc::unknown_host);
}

namespace {

// A regtest chain of `n` blocks after genesis.
std::vector<Block> regtest_chain(std::uint32_t n) {
  std::vector<Block> chain{genesis_block(network::regtest)};
  for (std::uint32_t h = 1; h <= n; ++h) chain.push_back(test::mine(block_hash(chain.back().header), 1'700'000'000 + h, h));
  return chain;
}

}  // namespace

TEST_CASE("net: the locator as Core's CChain::GetLocator: eleven one apart, then doubling, then genesis") {
  const auto blocks = regtest_chain(100);
  BlockIndex chain(".", network::regtest);
  for (const Block& b : blocks) chain.add(b.header, block_hash(b.header), {});
  REQUIRE(chain.tip_height() == Height::checked(100));
  // Core: push the tip; step 1 until the locator has more than ten hashes,
  // then double the step; heights never below 0, and 0 ends it.
  std::vector<int> expected_heights{100, 99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 88, 84, 76, 60, 28, 0};
  std::vector<BlockHash> expected;
  for (int h : expected_heights) expected.push_back(block_hash(blocks[static_cast<std::size_t>(h)].header));
  CHECK(chain.locator() == expected);
  CHECK(chain.height_of(block_hash(blocks[42].header)) == Height::checked(42));
}

TEST_CASE("net: the index a sync keeps follows the branch with more work, not the one added last") {
  const auto blocks = regtest_chain(5);
  BlockIndex chain(".", network::regtest);
  for (const Block& b : blocks) chain.add(b.header, block_hash(b.header), {});
  // A branch off height 3: two blocks reach height 5, as much work as the
  // tip: the tip stays; a third passes it.
  BlockHash prev = block_hash(blocks[3].header);
  std::vector<Block> branch;
  for (std::uint32_t h = 4; h <= 6; ++h) {
    branch.push_back(test::mine(prev, 1'800'000'000 + h, 1000 + h));
    prev = block_hash(branch.back().header);
  }
  chain.add(branch[0].header, block_hash(branch[0].header), {});
  chain.add(branch[1].header, block_hash(branch[1].header), {});
  CHECK(chain.tip() == block_hash(blocks[5].header));
  chain.add(branch[2].header, block_hash(branch[2].header), {});
  CHECK(chain.tip_height() == Height::checked(6));
  CHECK(chain.tip() == block_hash(branch[2].header));
  CHECK(chain.height_of(block_hash(blocks[4].header)) == std::nullopt);  // off the best chain now
  CHECK(chain.height_of(block_hash(branch[0].header)) == Height::checked(4));
  CHECK(chain.height_of(block_hash(blocks[3].header)) == Height::checked(3));
}

namespace {

using test::SocketPair;

net::Timeouts short_timeouts() { return {1000ms, 1000ms, 200ms, 300ms}; }

}  // namespace

TEST_CASE("net: receive times out on silence, cuts off a message that trickles, reports a close inside a message") {
  SUBCASE("silence: timed_out at byte 0") {
    SocketPair pair;
    net::Connection c(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    const auto r = c.receive();
    CHECK(r.error().code() == net::errc::timed_out);
    CHECK(r.error().offset() == 0);
  }
  SUBCASE("a ping answered, then 10 bytes of a message and nothing more: too_slow") {
    SocketPair pair;
    net::Connection c(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    pair.send(p2p::Ping{7});
    std::vector<std::byte> verack;
    p2p::encode_message(p2p::Verack{}, network::regtest, verack);
    pair.send_raw(std::span(verack).first(10));
    const auto r = c.receive();
    CHECK(r.error().code() == net::errc::too_slow);
    CHECK(c.last_message_offset() == verack.size() + 8);  // after the ping (24 + 8 bytes)
    // The pong went back.
    std::byte back[32];
    CHECK(::read(pair.theirs, back, sizeof back) == 32);
    CHECK(p2p::decode_message(back, network::regtest).value() == p2p::Message{p2p::Pong{7}});
  }
  SUBCASE("closed inside a message: connection_closed at the byte where it ended") {
    SocketPair pair;
    net::Connection c(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    std::vector<std::byte> version;
    p2p::encode_message(p2p::Version{}, network::regtest, version);
    pair.send_raw(std::span(version).first(50));
    ::close(pair.theirs);
    pair.theirs = -1;
    const auto r = c.receive();
    CHECK(r.error().code() == net::errc::connection_closed);
    CHECK(r.error().offset() == 50);
    CHECK(c.last_command() == "version");
  }
}

TEST_CASE("net: handshakes of both sides meet, a peer echoing our version is a self-connection, verack first is refused") {
  SUBCASE("outbound and inbound") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    net::Connection in(FileDescriptor(pair.theirs, ownership::own), network::regtest, short_timeouts());
    pair.theirs = -1;
    result<p2p::Version> inbound = net::errc::timed_out;
    std::thread t([&] { inbound = in.handshake_inbound({"/inbound/", 7}); });
    const auto outbound = out.handshake_outbound({"/outbound/", 3});
    t.join();
    REQUIRE(outbound);
    REQUIRE(inbound);
    CHECK(outbound.value().user_agent == "/inbound/");
    CHECK(outbound.value().start_height == 7);
    CHECK(inbound.value().user_agent == "/outbound/");
    CHECK(inbound.value().relay == false);
    CHECK(inbound.value().version == p2p::protocol_version);
  }
  SUBCASE("our own version comes back") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    std::thread echo([&] {
      std::byte buffer[4096];
      const ssize_t n = ::read(pair.theirs, buffer, sizeof buffer);
      if (n > 0) (void)!::write(pair.theirs, buffer, static_cast<std::size_t>(n));
    });
    const auto r = out.handshake_outbound();
    echo.join();
    CHECK(r.error().code() == net::errc::self_connection);
  }
  SUBCASE("a verack before the version") {
    SocketPair pair;
    net::Connection in(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    pair.send(p2p::Verack{});
    const auto r = in.handshake_inbound();
    CHECK(r.error().code() == net::errc::unexpected_message);
    CHECK(r.error().offset() == 0);
  }
  SUBCASE("an obsolete version") {
    SocketPair pair;
    net::Connection in(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    p2p::Version old;
    old.version = 31'799;
    pair.send(old);
    CHECK(in.handshake_inbound().error().code() == net::errc::obsolete_peer);
  }
}
