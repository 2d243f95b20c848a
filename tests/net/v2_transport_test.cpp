// BIP324's v2 transport on a connection: both sides of the library meeting
// over TCP on loopback (every message type, decoys, pings, a block sent as
// it is stored), a v1 peer told apart, a v1-only peer refusing v2; and
// hostile handshakes by a peer written by hand with the packet cipher:
// each closes with its reason. And OpenSSL failing under a connection, at
// each of its calls (the net library's test seam) and for real (no
// provider): an error, the connection v1's or shut down, never a crash.
#include <blockwire/net.hpp>
#include <blockwire/net/bip324.hpp>

#include <doctest/doctest.h>

#include <openssl/err.h>
#include <openssl/provider.h>

#include <arpa/inet.h>
#include <atomic>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "../p2p/samples.hpp"
#include "../support/socket_pair.hpp"

// The net library's seam for tests (codec/net/src/fschacha20.cpp), in no
// header: the Nth checked OpenSSL call of this thread from now fails.
namespace blockwire::net::bip324::detail {
extern thread_local std::uint64_t fail_openssl_call;
}

using namespace blockwire;
using namespace std::chrono_literals;
namespace b = blockwire::net::bip324;

namespace {

net::Timeouts short_timeouts() { return {1000ms, 2000ms, 1000ms, 2000ms, 1000ms}; }

// A connected TCP pair on 127.0.0.1.
std::pair<FileDescriptor, FileDescriptor> tcp_pair() {
  FileDescriptor listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ownership::own);
  REQUIRE(listener.get() >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(listener.get(), 1) == 0);
  socklen_t size = sizeof a;
  REQUIRE(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &size) == 0);
  auto out = net::connect_to({"127.0.0.1", ntohs(a.sin_port)}, 1000ms);
  REQUIRE(out);
  FileDescriptor in(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC), ownership::own);
  REQUIRE(in.get() >= 0);
  return {std::move(out).value(), std::move(in)};
}

using test::SocketPair;

// The initiator's side written by hand: its key and garbage, the
// responder's key read, then packets made with the library's cipher.
struct HandInitiator {
  const SocketPair& pair;
  b::PacketCipher cipher{b::EllSwiftKey::generate().value()};
  std::vector<std::byte> garbage;

  HandInitiator(const SocketPair& p, std::size_t garbage_size) : pair(p), garbage(garbage_size, std::byte{0x5a}) {
    std::vector<std::byte> first(cipher.our_public_key().begin(), cipher.our_public_key().end());
    first.insert(first.end(), garbage.begin(), garbage.end());
    pair.send_raw(first);
  }
  void read_responder_key() {
    b::EllSwiftPublicKey theirs;
    pair.read_raw(theirs);
    REQUIRE(cipher.initialize(theirs, true, network::regtest));
  }
  std::vector<std::byte> packet(std::span<const std::byte> contents, std::span<const std::byte> aad = {}, bool decoy = false) {
    std::vector<std::byte> out(contents.size() + b::PacketCipher::overhead);
    REQUIRE(cipher.encrypt(contents, aad, decoy, out));
    return out;
  }
  std::vector<std::byte> message(const p2p::Message& m) {
    std::vector<std::byte> contents;
    p2p::encode_v2_contents(m, contents);
    return packet(contents);
  }
  // Terminator, a decoy (the garbage its AAD), the version packet.
  void finish_handshake() {
    pair.send_raw(cipher.send_garbage_terminator());
    pair.send_raw(packet(std::vector<std::byte>(100), garbage, true));
    pair.send_raw(packet({}));
  }
};

// The responder's side, in a thread: accept_transport's result.
struct Responder {
  net::Connection connection;
  result<net::transport> outcome = net::errc::timed_out;
  std::thread thread;
  explicit Responder(int fd, bool allow_v2 = true)
      : connection(FileDescriptor(fd, ownership::own), network::regtest, short_timeouts()),
        thread([this, allow_v2] { outcome = connection.accept_transport(allow_v2); }) {}
  ~Responder() {
    if (thread.joinable()) thread.join();
  }
  result<net::transport> wait() {
    thread.join();
    return outcome;
  }
};

// A responder and a hand-written initiator that has its key: past the v2
// handshake when `finish` (the initiator's garbage, `garbage_size` bytes,
// authenticating a decoy before its version packet).
struct Established {
  SocketPair pair;
  Responder responder{pair.ours};
  HandInitiator hand;
  explicit Established(std::size_t garbage_size = 0, bool finish = true) : hand(pair, garbage_size) {
    hand.read_responder_key();
    if (!finish) return;
    hand.finish_handshake();
    REQUIRE(responder.wait());
  }
  net::Connection& connection() { return responder.connection; }
};

}  // namespace

TEST_CASE("v2 transport: both sides over TCP agree on the session, then every message type, a stored block and pings travel") {
  auto [out_fd, in_fd] = tcp_pair();
  net::Connection out(std::move(out_fd), network::regtest, short_timeouts());
  net::Connection in(std::move(in_fd), network::regtest, short_timeouts());
  result<net::transport> accepted = net::errc::timed_out;
  result<p2p::Version> inbound = net::errc::timed_out;
  std::thread t([&] {
    accepted = in.accept_transport();
    if (accepted) inbound = in.handshake_inbound({"/inbound/", 7, net::node_p2p_v2});
  });
  REQUIRE(out.start_v2());
  const auto outbound = out.handshake_outbound({"/outbound/", 3});
  t.join();
  REQUIRE(accepted);
  CHECK(accepted.value() == net::transport::v2);
  REQUIRE(outbound);
  REQUIRE(inbound);
  CHECK(outbound.value().services == net::node_p2p_v2);
  CHECK(inbound.value().user_agent == "/outbound/");
  CHECK(out.transport_kind() == net::transport::v2);
  CHECK(in.transport_kind() == net::transport::v2);
  CHECK(out.session_id().size() == 64);
  CHECK(out.session_id() == in.session_id());

  // Each sample from one side, read on the other (pings are answered inside
  // receive(), unknown commands skipped: both below).
  std::vector<p2p::Message> samples;
  for (auto& m : test::p2p_samples()) {
    if (!std::holds_alternative<p2p::Ping>(m) && !std::holds_alternative<p2p::Unknown>(m)) samples.push_back(std::move(m));
  }
  REQUIRE(samples.size() >= 25);
  std::thread sender([&] {
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (!(i % 2 == 0 ? out : in).send(samples[i])) return;
    }
  });
  for (std::size_t i = 0; i < samples.size(); ++i) {
    CAPTURE(p2p::command(samples[i]));
    auto got = (i % 2 == 0 ? in : out).receive();
    REQUIRE(got);
    CHECK(got.value() == samples[i]);
  }
  sender.join();
  // A block as a blk file holds it, sent without decoding.
  const auto raw = test::segwit_block();
  std::thread block_sender([&] { CHECK(in.send("block", raw)); });
  auto block = out.receive();
  block_sender.join();
  REQUIRE(block);
  CHECK(std::get<p2p::BlockMessage>(block.value()).block == decode_block(raw).value());
  // A ping is answered by the other side's receive(), which then returns the
  // message after it.
  std::thread pinger([&] {
    CHECK(out.send(p2p::Ping{42}));
    CHECK(out.send(p2p::SendHeaders{}));
  });
  CHECK(std::holds_alternative<p2p::SendHeaders>(in.receive().value()));
  pinger.join();
  CHECK(std::get<p2p::Pong>(out.receive().value()).nonce == 42);
}

TEST_CASE("v2 transport: a v1 peer is told apart by its first bytes, and a v1-only responder makes start_v2 fail with v2_refused") {
  SUBCASE("a v1 initiator to accept_transport: v1, and the handshake reads the bytes already taken") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.theirs, ownership::own), network::regtest, short_timeouts());
    pair.theirs = -1;
    Responder responder(pair.ours);
    result<p2p::Version> outbound = net::errc::timed_out;
    std::thread t([&] { outbound = out.handshake_outbound(); });
    REQUIRE(responder.wait());
    CHECK(responder.outcome.value() == net::transport::v1);
    CHECK(responder.connection.handshake_inbound());
    t.join();
    CHECK(outbound);
    CHECK(responder.connection.transport_kind() == net::transport::v1);
    CHECK(responder.connection.session_id().empty());
  }
  SUBCASE("v2 to a responder that speaks v1 only: it hangs up at our key, we say v2_refused") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.theirs, ownership::own), network::regtest, short_timeouts());
    pair.theirs = -1;
    std::thread v1_only([fd = pair.ours] {
      net::Connection in(FileDescriptor(fd, ownership::own), network::regtest, short_timeouts());
      CHECK(in.accept_transport(false).value() == net::transport::v1);
      CHECK(in.handshake_inbound().error().code() == p2p::errc::bad_magic);
    });  // closed as it ends
    const auto r = out.start_v2();
    v1_only.join();
    CHECK(r.error().code() == net::errc::v2_refused);
    // Nothing of the attempt is left: the connection is v1's again.
    CHECK(out.transport_kind() == net::transport::v1);
    CHECK(out.session_id().empty());
  }
  SUBCASE("a v1 node that speaks first (bcoin): start_v2 says v1 with nothing sent, and the handshake reads its version") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    pair.ours = -1;
    result<p2p::Version> theirs = net::errc::timed_out;
    std::thread node([&] {
      // (its version first, as it accepts, then the same handshake as ours)
      net::Connection in(FileDescriptor(pair.theirs, ownership::own), network::regtest, short_timeouts());
      pair.theirs = -1;
      theirs = in.handshake_outbound();
    });
    const auto r = out.start_v2();
    REQUIRE(r);
    CHECK(r.value() == net::transport::v1);
    CHECK(out.bytes_sent() == 0);  // not a byte of a key it would have read as a bad envelope
    CHECK(out.handshake_outbound());
    node.join();
    CHECK(theirs);
    CHECK(out.transport_kind() == net::transport::v1);
  }
  SUBCASE("a v1 node whose version comes where the key belongs: v2_answered_v1, to connect again for v1") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    pair.ours = -1;
    std::vector<std::byte> version;
    p2p::encode_message(p2p::Version{}, network::regtest, version);
    std::thread node([&] {
      std::this_thread::sleep_for(400ms);  // past the wait for a node that speaks first
      pair.send_raw(version);
    });
    const auto r = out.start_v2();
    node.join();
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == net::errc::v2_answered_v1);
    CHECK(net::reconnect_for_v1(r.error()));
    CHECK(net::fallback_of(r.error()) == net::v1_fallback::answered_v1);
    CHECK(out.bytes_sent() == net::bip324::EllSwiftPublicKey{}.size());  // the key alone: the garbage waits for the peer's key
  }
  SUBCASE("a node that closes as it accepts, before a byte either way: connection_closed, not a v1-only node") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    pair.ours = -1;
    ::close(pair.theirs);
    pair.theirs = -1;
    const auto r = out.start_v2();
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == net::errc::connection_closed);
    CHECK_FALSE(net::reconnect_for_v1(r.error()));
    CHECK(out.bytes_sent() == 0);
  }
  SUBCASE("a responder silent at our key is taken for a v1-only node too (Core's rule: nothing received)") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    CHECK(out.start_v2().error().code() == net::errc::v2_refused);
  }
  SUBCASE("one that sent some bytes and then hung up is not: connection_closed") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    pair.send_raw(std::vector<std::byte>(10, std::byte{3}));
    ::shutdown(pair.theirs, SHUT_WR);
    const auto r = out.start_v2();
    CHECK(r.error().code() == net::errc::connection_closed);
    CHECK(r.error().offset() == 10);
  }
  SUBCASE("a v1 version of another network where a key was awaited") {
    SocketPair pair;
    Responder responder(pair.ours);
    std::vector<std::byte> mainnet_version;
    p2p::encode_message(p2p::Version{}, network::mainnet, mainnet_version);
    pair.send_raw(mainnet_version);
    CHECK(responder.wait().error().code() == net::errc::v1_other_network);
  }
}

TEST_CASE("v2 transport: hostile handshakes and packets close with their reason") {
  SUBCASE("decoys before the version packet and between messages are skipped") {
    Established e(17);
    e.pair.send_raw(e.hand.packet(std::vector<std::byte>(3000, std::byte{1}), {}, true));
    e.pair.send_raw(e.hand.message(p2p::Verack{}));
    CHECK(std::holds_alternative<p2p::Verack>(e.connection().receive().value()));
  }
  SUBCASE("4,096 bytes of garbage and no terminator: v2_no_terminator") {
    SocketPair pair;
    Responder responder(pair.ours);
    HandInitiator hand(pair, 4096 + 16);
    const auto r = responder.wait();
    CHECK(r.error().code() == net::errc::v2_no_terminator);
    CHECK(r.error().offset() == 64 + 4095 + 16);
  }
  SUBCASE("the terminator of the other direction is garbage like any other: v2_no_terminator") {
    Established e(0, false);
    e.pair.send_raw(e.hand.cipher.receive_garbage_terminator());
    e.pair.send_raw(std::vector<std::byte>(4095, std::byte{7}));
    CHECK(e.responder.wait().error().code() == net::errc::v2_no_terminator);
  }
  SUBCASE("a version packet authenticated with other garbage: v2_bad_tag") {
    Established e(10, false);
    e.pair.send_raw(e.hand.cipher.send_garbage_terminator());
    e.pair.send_raw(e.hand.packet({}, std::vector<std::byte>(10, std::byte{0x5b})));
    CHECK(e.responder.wait().error().code() == net::errc::v2_bad_tag);
  }
  SUBCASE("a flipped bit in a message after the handshake: v2_bad_tag, at the packet's first byte") {
    Established e;
    const std::uint64_t at = e.connection().bytes_received();
    auto packet = e.hand.message(p2p::Ping{1});
    packet[6] ^= std::byte{0x10};
    e.pair.send_raw(packet);
    const auto r = e.connection().receive();
    CHECK(r.error().code() == net::errc::v2_bad_tag);
    CHECK(r.error().offset() == at);
  }
  SUBCASE("a length past 4,000,013 bytes: v2_packet_too_large before anything is read or allocated") {
    Established e;
    // An empty packet's length bytes are the stream's own: XORed with the
    // length wanted, they say it.
    auto packet = e.hand.packet({});
    const auto wanted = to_le(static_cast<std::uint32_t>(p2p::max_v2_contents + 1));
    for (int i = 0; i < 3; ++i) packet[i] ^= wanted[i];
    e.pair.send_raw(std::span(packet).first(3));
    CHECK(e.connection().receive().error().code() == net::errc::v2_packet_too_large);
  }
  SUBCASE("decoys that keep coming do not buy time: receive() ends at the idle timeout, not at the message after them") {
    Established e;
    // Each write carries the rest of one decoy and the first byte of the
    // next, so no read ever waits on the socket with nothing buffered:
    // 10 decoys 300 ms apart (3 s), then a verack; the idle timeout is 1 s.
    std::vector<std::vector<std::byte>> packets;
    for (int i = 0; i < 10; ++i) packets.push_back(e.hand.packet({}, {}, true));
    packets.push_back(e.hand.message(p2p::Verack{}));
    std::thread sender([&] {
      e.pair.send_raw(std::span(packets[0]).first(1));
      for (std::size_t i = 0; i + 1 < packets.size(); ++i) {
        std::this_thread::sleep_for(300ms);
        std::vector<std::byte> chunk(packets[i].begin() + 1, packets[i].end());
        chunk.push_back(packets[i + 1][0]);
        e.pair.send_raw(chunk);
      }
      e.pair.send_raw(std::span(packets.back()).subspan(1));
    });
    const auto r = e.connection().receive();
    sender.join();
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == net::errc::timed_out);
  }
  SUBCASE("a key and then silence: timed_out within the timeouts") {
    SocketPair pair;
    Responder responder(pair.ours);
    HandInitiator hand(pair, 0);
    CHECK(responder.wait().error().code() == net::errc::timed_out);
  }
  SUBCASE("an unknown message type id is skipped; a bad 12-byte command is refused at its byte") {
    Established e;
    e.pair.send_raw(e.hand.packet(std::vector<std::byte>{std::byte{200}, std::byte{1}}));
    e.pair.send_raw(e.hand.message(p2p::SendHeaders{}));
    CHECK(std::holds_alternative<p2p::SendHeaders>(e.connection().receive().value()));
    std::vector<std::byte> bad(13, std::byte{0});
    bad[1] = std::byte{0x01};  // not printable
    const std::uint64_t at = e.connection().bytes_received();
    e.pair.send_raw(e.hand.packet(bad));
    const auto r = e.connection().receive();
    CHECK(r.error().code() == p2p::errc::bad_command);
    CHECK(r.error().offset() == at + 4 + 1);
  }
}

namespace {

// A peer's side that tolerates the other giving up at any step: each says
// whether it could.
bool write_all(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
  return true;
}
// (`given_up`: the other side's call has returned; what it sent is
// buffered already)
bool read_all(int fd, std::span<std::byte> out, const std::atomic<bool>* given_up = nullptr) {
  for (int waited = 0; !out.empty(); waited += 10) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 10);
    if (ready < 0 || (ready == 0 && (waited >= 2000 || (given_up != nullptr && *given_up)))) return false;
    if (ready == 0) continue;
    const ssize_t n = ::read(fd, out.data(), out.size());
    if (n <= 0) return false;
    out = out.subspan(static_cast<std::size_t>(n));
  }
  return true;
}
// Whether the other side shut the connection down: what it sent, then the
// end, within 2 s.
bool shut_down(int fd) {
  std::array<std::byte, 4096> sink;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 2000) != 1) return false;
    const ssize_t n = ::read(fd, sink.data(), sink.size());
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

// The seam armed in this thread for the nth call; whether it was reached.
void arm(std::uint64_t n) { b::detail::fail_openssl_call = n; }
bool disarm() {
  const bool reached = b::detail::fail_openssl_call == 0;
  b::detail::fail_openssl_call = 0;
  return reached;
}

// A connection whose handshake failed: v1's again, no session.
void check_left_v1(const net::Connection& c) {
  CHECK(c.transport_kind() == net::transport::v1);
  CHECK(c.session_id().empty());
}

// What a v1 message sent on `fd`'s other end begins with.
bool reads_v1_envelope(int fd) {
  std::array<std::byte, 4> head;
  if (!read_all(fd, head)) return false;
  const Magic m = magic(network::regtest);
  return std::equal(m.begin(), m.end(), head.begin());
}

}  // namespace

TEST_CASE("v2 transport: OpenSSL failing at each of its calls in accept_transport: v2_crypto_failure, the connection v1's and shut down") {
  int swallowed = 0;
  std::uint64_t n = 1;
  for (;; ++n) {
    CAPTURE(n);
    SocketPair pair;
    net::Connection in(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    result<net::transport> outcome = net::errc::timed_out;
    bool reached = false;
    std::thread responder([&] {
      arm(n);
      outcome = in.accept_transport();
      reached = disarm();
    });
    // The initiator by hand: its key, the responder's, then its terminator
    // and version packet (no garbage), as far as the responder goes.
    b::PacketCipher hand{b::EllSwiftKey::generate().value()};
    b::EllSwiftPublicKey theirs;
    b::PacketCipher::Terminator after_key{};
    if (write_all(pair.theirs, hand.our_public_key()) && read_all(pair.theirs, theirs)) {
      REQUIRE(hand.initialize(theirs, true, network::regtest));
      std::vector<std::byte> rest(hand.send_garbage_terminator().begin(), hand.send_garbage_terminator().end());
      std::vector<std::byte> version(b::PacketCipher::overhead);
      REQUIRE(hand.encrypt({}, {}, false, version));
      rest.insert(rest.end(), version.begin(), version.end());
      (void)write_all(pair.theirs, rest);
    }
    responder.join();
    if (outcome) (void)read_all(pair.theirs, after_key);
    if (!reached) {  // fewer calls than n: the handshake made whole
      REQUIRE(outcome);
      CHECK(outcome.value() == net::transport::v2);
      CHECK(in.session_id() == to_hex(hand.session_id()));
      break;
    }
    if (outcome) {
      // Only a random draw for the garbage may fail unsaid: none sent
      // (the terminator right after the key), still a valid handshake.
      ++swallowed;
      CHECK(outcome.value() == net::transport::v2);
      CHECK(after_key == hand.receive_garbage_terminator());
      continue;
    }
    CHECK(outcome.error().code() == net::errc::v2_crypto_failure);
    CHECK(ERR_peek_error() == 0);
    check_left_v1(in);
    CHECK(shut_down(pair.theirs));  // the peer's key read: good for neither transport
  }
  CHECK(swallowed < 20);  // (the draws' place among the calls moves with the key's: a handful of runs)
  CHECK(n > 100);         // through the key's arithmetic, the ECDH, HKDF and the packets
}

TEST_CASE(
    "v2 transport: OpenSSL failing at each of its calls in start_v2: v2_crypto_failure, v1's and usable before our key left, else shut "
    "down") {
  int swallowed = 0;
  std::uint64_t n = 1;
  for (;; ++n) {
    CAPTURE(n);
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    // The responder by hand, its key first: start_v2 sees at once that it
    // is no v1 node speaking first, and reads it as the peer's key.
    b::PacketCipher hand{b::EllSwiftKey::generate().value()};
    REQUIRE(write_all(pair.theirs, hand.our_public_key()));
    result<net::transport> outcome = net::errc::timed_out;
    bool reached = false;
    std::atomic<bool> returned = false;
    std::thread initiator([&] {
      arm(n);
      outcome = out.start_v2();
      reached = disarm();
      returned = true;
    });
    b::EllSwiftPublicKey theirs;
    if (read_all(pair.theirs, theirs, &returned)) {
      REQUIRE(hand.initialize(theirs, false, network::regtest));
      std::vector<std::byte> rest(hand.send_garbage_terminator().begin(), hand.send_garbage_terminator().end());
      std::vector<std::byte> version(b::PacketCipher::overhead);
      REQUIRE(hand.encrypt({}, {}, false, version));
      rest.insert(rest.end(), version.begin(), version.end());
      (void)write_all(pair.theirs, rest);
    }
    initiator.join();
    b::PacketCipher::Terminator after_key{};
    if (outcome) (void)read_all(pair.theirs, after_key);
    if (!reached) {
      REQUIRE(outcome);
      CHECK(outcome.value() == net::transport::v2);
      CHECK(out.session_id() == to_hex(hand.session_id()));
      break;
    }
    if (outcome) {
      // Only a random draw for the garbage may fail unsaid: none sent.
      ++swallowed;
      CHECK(outcome.value() == net::transport::v2);
      CHECK(after_key == hand.receive_garbage_terminator());
      continue;
    }
    CHECK(outcome.error().code() == net::errc::v2_crypto_failure);
    CHECK(ERR_peek_error() == 0);
    check_left_v1(out);
    if (out.bytes_sent() == 0) {
      // Failed before a byte left: v1 on this connection works.
      REQUIRE(out.send(p2p::Verack{}));
      CHECK(reads_v1_envelope(pair.theirs));
    } else {
      CHECK(shut_down(pair.theirs));
      CHECK_FALSE(out.send(p2p::Verack{}));
    }
  }
  CHECK(swallowed < 20);
  CHECK(n > 100);
}

TEST_CASE(
    "v2 transport: OpenSSL failing at each call of a send or a receive after the handshake: v2_crypto_failure, the connection shut down") {
  SUBCASE("send") {
    std::uint64_t n = 1;
    for (;; ++n) {
      CAPTURE(n);
      Established e;
      arm(n);
      const auto r = e.connection().send(p2p::SendHeaders{});
      if (!disarm()) {
        CHECK(r);
        break;
      }
      CHECK(r.error().code() == net::errc::v2_crypto_failure);
      CHECK(shut_down(e.pair.theirs));
      CHECK_FALSE(e.connection().send(p2p::SendHeaders{}));
    }
    CHECK(n > 2);
  }
  SUBCASE("receive") {
    std::uint64_t n = 1;
    for (;; ++n) {
      CAPTURE(n);
      Established e;
      e.pair.send_raw(e.hand.message(p2p::SendHeaders{}));
      arm(n);
      const auto r = e.connection().receive();
      if (!disarm()) {
        REQUIRE(r);
        CHECK(std::holds_alternative<p2p::SendHeaders>(r.value()));
        break;
      }
      CHECK(r.error().code() == net::errc::v2_crypto_failure);
      CHECK(shut_down(e.pair.theirs));
      CHECK_FALSE(e.connection().receive());
    }
    CHECK(n > 2);
  }
}

TEST_CASE("v2 transport: with no OpenSSL provider to fetch from (a real failure), start_v2 stays v1 and accept_transport shuts down") {
  // This thread's default library context: OpenSSL's null provider alone.
  const auto bare = [](auto work) {
    std::thread t([&] {
      OSSL_LIB_CTX* context = OSSL_LIB_CTX_new();
      OSSL_PROVIDER* null = OSSL_PROVIDER_load(context, "null");
      OSSL_LIB_CTX* previous = OSSL_LIB_CTX_set0_default(context);
      work();
      CHECK(ERR_peek_error() == 0);
      OSSL_LIB_CTX_set0_default(previous);
      OSSL_PROVIDER_unload(null);
      OSSL_LIB_CTX_free(context);
    });
    t.join();
  };
  SUBCASE("start_v2: the random source fails before our key is made: nothing sent, v1 works on the connection") {
    SocketPair pair;
    net::Connection out(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    b::PacketCipher hand{b::EllSwiftKey::generate().value()};
    REQUIRE(write_all(pair.theirs, hand.our_public_key()));
    result<net::transport> r = net::errc::timed_out;
    bare([&] { r = out.start_v2(); });
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == net::errc::v2_crypto_failure);
    CHECK(r.error().context().starts_with("OpenSSL's RAND_priv_bytes"));
    check_left_v1(out);
    CHECK(out.bytes_sent() == 0);
    REQUIRE(out.send(p2p::Verack{}));
    CHECK(reads_v1_envelope(pair.theirs));
  }
  SUBCASE("accept_transport: the peer's key read, ours not made: v2_crypto_failure and the connection shut down") {
    SocketPair pair;
    net::Connection in(FileDescriptor(pair.ours, ownership::own), network::regtest, short_timeouts());
    b::PacketCipher hand{b::EllSwiftKey::generate().value()};
    REQUIRE(write_all(pair.theirs, hand.our_public_key()));
    result<net::transport> r = net::errc::timed_out;
    bare([&] { r = in.accept_transport(); });
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == net::errc::v2_crypto_failure);
    CHECK(r.error().code() == condition::io);
    check_left_v1(in);
    CHECK(shut_down(pair.theirs));
  }
}
