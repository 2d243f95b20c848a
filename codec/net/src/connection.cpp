#include "random_nonce.hpp"

#include <blockwire/io/buffered_reader.hpp>
#include <blockwire/io/little_endian.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/socket.hpp>
#include <blockwire/net/bip324.hpp>
#include <blockwire/net/connection.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <random>
#include <sys/socket.h>
#include <variant>

namespace blockwire::net {
namespace {

using clock = std::chrono::steady_clock;

// The socket reader behind a deadline: each read waits (poll) at most until
// the deadline, then fails with the code armed for it. Counts what arrives:
// the stream offsets of errors come from it.
class DeadlineReader {
 public:
  explicit DeadlineReader(int fd) noexcept : socket_(fd) {}

  void arm(clock::time_point until, net::errc on_timeout) noexcept {
    deadline_ = until;
    on_timeout_ = on_timeout;
  }

  result<std::size_t> read_some(std::span<std::byte> buffer) {
    for (;;) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - clock::now());
      if (left.count() <= 0) return on_timeout_;
      pollfd p{socket_.fd(), POLLIN, 0};
      const int n = ::poll(&p, 1, static_cast<int>(std::min<std::chrono::milliseconds::rep>(left.count(), 1'000'000)));
      if (n < 0 && errno != EINTR) return std::error_code(errno, std::system_category());
      if (n <= 0) continue;  // interrupted, or the time is up: checked above
      auto got = socket_.read_some(buffer);
      if (got) received_ += got.value();
      return got;
    }
  }

  std::uint64_t received() const noexcept { return received_; }

 private:
  SocketReader socket_;
  clock::time_point deadline_{};
  net::errc on_timeout_ = net::errc::timed_out;
  std::uint64_t received_ = 0;
};

// The socket writer behind one message's deadline: non-blocking sends,
// waiting (poll) for room only until the message's time is up, however
// many partial sends it takes. The deadline is set from the message's
// envelope, its first 24 bytes (its payload length). Counts what it sent.
class DeadlineWriter {
 public:
  DeadlineWriter(int fd, const Timeouts& timeouts, std::uint64_t& sent) noexcept : fd_(fd), timeouts_(timeouts), sent_(sent) {}
  // Bytes whose deadline is known already (a v2 packet, a handshake step).
  DeadlineWriter(int fd, const Timeouts& timeouts, std::uint64_t& sent, clock::time_point deadline) noexcept
      : fd_(fd), timeouts_(timeouts), sent_(sent), started_(true), deadline_(deadline) {}

  result<void> write(std::span<const std::byte> bytes) {
    if (!started_) {
      started_ = true;
      std::uint64_t payload = max_message_payload;
      if (bytes.size() >= p2p::envelope_size) {
        payload = load_le<std::uint32_t>(bytes.data() + 16);  // the envelope's length field
      }
      deadline_ = clock::now() + timeouts_.for_message(payload);
    }
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0) {
        sent_ += static_cast<std::uint64_t>(n);
        bytes = bytes.subspan(static_cast<std::size_t>(n));
        continue;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return std::error_code(errno, std::system_category());
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - clock::now());
      if (left.count() <= 0) return net::errc::peer_not_reading;
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, static_cast<int>(std::min<std::chrono::milliseconds::rep>(left.count(), 1'000'000))) < 0 && errno != EINTR) {
        return std::error_code(errno, std::system_category());
      }
    }
    return success();
  }

 private:
  static constexpr std::uint64_t max_message_payload = p2p::max_message_size;
  int fd_;
  const Timeouts& timeouts_;
  std::uint64_t& sent_;
  bool started_ = false;
  clock::time_point deadline_{};
};

// A v1 peer's first 16 bytes: the envelope of its version message (the
// network's magic, then "version" padded with zeros).
std::array<std::byte, 16> v1_version_prefix(network net) {
  std::array<std::byte, 16> prefix{};
  const Magic m = magic(net);
  std::copy(m.begin(), m.end(), prefix.begin());
  constexpr std::string_view command = "version";
  std::memcpy(prefix.data() + 4, command.data(), command.size());
  return prefix;
}

}  // namespace

struct Connection::State {
  State(FileDescriptor fd, network n, Timeouts t)
      : socket(std::move(fd)), net(n), timeouts(t), peer(remote_name(socket.get())), reader(socket.get()) {}

  std::uint64_t consumed() const noexcept { return reader.received() - in.buffered().size(); }

  FileDescriptor socket;
  network net;
  Timeouts timeouts;
  std::string peer;
  DeadlineReader reader;
  StreamReader in{reader_ref(reader)};
  std::vector<std::byte> scratch;  // one encoded payload at a time, reused
  // v2: the ciphers once the handshake succeeded with them (until then
  // they are the handshake's own: a failed one leaves nothing here); one
  // packet to send and one received, each buffer reused.
  std::optional<bip324::PacketCipher> v2;
  std::vector<std::byte> packet;
  std::vector<std::byte> received;
  std::string last_command;
  std::int32_t peer_version = 0;
  std::chrono::microseconds round_trip{0};
  std::uint64_t last_offset = 0;
  std::uint64_t sent = 0;
};

// BIP324's steps. Offsets in errors are of the incoming stream, as v1's.
struct Connection::V2 {
  using Terminator = bip324::PacketCipher::Terminator;

  // Exactly out.size() bytes, by the reader's armed deadline.
  static result<void> read_exact(State& s, std::span<std::byte> out) {
    while (!out.empty()) {
      auto got = s.in.read_some(out);
      if (!got) return error(got.error().code(), s.consumed());
      if (got.value() == 0) return error(net::errc::connection_closed, s.consumed());
      out = out.subspan(got.value());
    }
    return success();
  }

  static result<void> write(State& s, std::span<const std::byte> bytes, clock::time_point deadline) {
    DeadlineWriter out(s.socket.get(), s.timeouts, s.sent, deadline);
    return out.write(bytes);
  }

  // s.packet emptied but for the 4 bytes the length and header take: the
  // contents are encoded after them.
  static std::vector<std::byte>& new_packet(State& s) {
    s.packet.assign(bip324::PacketCipher::length_size + bip324::PacketCipher::header_size, std::byte{0});
    return s.packet;
  }

  // s.packet (new_packet, then the contents) sealed in place and sent
  // after `before` (a garbage terminator).
  static result<void> send_packet(State& s, bip324::PacketCipher& cipher, std::span<const std::byte> aad,
                                  std::span<const std::byte> before = {}) {
    const std::size_t contents = s.packet.size() - bip324::PacketCipher::length_size - bip324::PacketCipher::header_size;
    if (contents > p2p::max_v2_contents) return p2p::errc::message_too_large;  // a length says 3 bytes' worth at most
    s.packet.resize(s.packet.size() + bip324::FSChaCha20Poly1305::tag_size);
    if (auto r = cipher.seal(s.packet, aad, false); !r) return r;
    const auto deadline = clock::now() + s.timeouts.for_message(contents);
    if (!before.empty()) {
      if (auto r = write(s, before, deadline); !r) return r;
    }
    return write(s, s.packet, deadline);
  }

  // The next packet that is not a decoy, its contents left in s.received
  // (after the header byte). The first byte waits until `idle_until`; the
  // rest of the packet has the time its length gives.
  // `cap`: no step past it (the handshake's deadline). The deadlines are
  // checked here too: bytes already buffered never wait on the socket, so
  // the reader's deadline alone would not stop a peer that keeps the next
  // packet's first bytes in each segment.
  static result<std::span<const std::byte>> receive_packet(State& s, bip324::PacketCipher& cipher, clock::time_point idle_until,
                                                           std::span<const std::byte> aad,
                                                           clock::time_point cap = clock::time_point::max()) {
    idle_until = std::min(idle_until, cap);
    for (;;) {
      s.last_offset = s.consumed();
      if (clock::now() >= idle_until) return error(net::errc::timed_out, s.last_offset);
      std::array<std::byte, bip324::PacketCipher::length_size> length_bytes;
      s.reader.arm(idle_until, net::errc::timed_out);
      if (auto r = read_exact(s, std::span(length_bytes).first(1)); !r) return r.error();
      const auto started = clock::now();
      s.reader.arm(std::min(cap, started + std::min(s.timeouts.message, s.timeouts.envelope)), net::errc::too_slow);
      if (auto r = read_exact(s, std::span(length_bytes).subspan(1)); !r) return r.error();
      const auto decrypted = cipher.decrypt_length(length_bytes);
      if (!decrypted) return decrypted.error();
      const std::uint32_t length = decrypted.value();
      if (length > p2p::max_v2_contents) return error(net::errc::v2_packet_too_large, s.last_offset);
      const auto until = std::min(cap, started + s.timeouts.for_message(length));
      s.reader.arm(until, net::errc::too_slow);
      // Grown as the bytes arrive, never to what the length merely claims.
      const std::size_t total = bip324::PacketCipher::header_size + length + bip324::FSChaCha20Poly1305::tag_size;
      s.received.clear();
      while (s.received.size() < total) {
        const std::size_t have = s.received.size();
        s.received.resize(std::min(total, have + std::max<std::size_t>(have, 64 * 1024)));
        if (auto r = read_exact(s, std::span(s.received).subspan(have)); !r) return r.error();
        if (clock::now() > until) return error(net::errc::too_slow, s.consumed());
      }
      bool decoy = false;
      if (auto r = cipher.open(s.received, aad, decoy); !r) {
        if (r.error().code() == net::errc::v2_bad_tag) return error(net::errc::v2_bad_tag, s.last_offset);
        return r.error();
      }
      aad = {};  // the garbage authenticates the first packet only
      if (decoy) continue;
      return std::span<const std::byte>(s.received).subspan(bip324::PacketCipher::header_size, length);
    }
  }

  // The peer's garbage up to its terminator, which must come within
  // max_garbage bytes; returns the garbage.
  static result<std::vector<std::byte>> receive_garbage(State& s, const Terminator& terminator) {
    std::vector<std::byte> garbage;
    for (;;) {
      std::byte b;
      if (auto r = read_exact(s, std::span(&b, 1)); !r) return r.error();
      garbage.push_back(b);
      if (garbage.size() >= terminator.size() && std::equal(terminator.begin(), terminator.end(), garbage.end() - terminator.size())) {
        garbage.resize(garbage.size() - terminator.size());
        return garbage;
      }
      if (garbage.size() == bip324::max_garbage + terminator.size()) return error(net::errc::v2_no_terminator, s.consumed());
    }
  }

  // A new ephemeral key's cipher, for one handshake.
  static result<bip324::PacketCipher> new_cipher() {
    auto key = bip324::EllSwiftKey::generate();
    if (!key) return key.error();
    return bip324::PacketCipher(std::move(key).value());
  }

  // Our key, and after it our garbage when `with_garbage` (the responder
  // sends both at once; the initiator its garbage later, with its
  // terminator). Returns the garbage, sent or to send.
  static result<std::vector<std::byte>> send_key(State& s, const bip324::PacketCipher& cipher, clock::time_point deadline,
                                                 bool with_garbage) {
    std::vector<std::byte> garbage = bip324::random_garbage();
    s.packet.assign(cipher.our_public_key().begin(), cipher.our_public_key().end());
    if (with_garbage) s.packet.insert(s.packet.end(), garbage.begin(), garbage.end());
    if (auto r = write(s, s.packet, deadline); !r) return r.error();
    return garbage;
  }

  // `r`; when OpenSSL failed in it, the connection shut down first.
  template <class T>
  static result<T> after_v2(Connection& c, result<T> r) {
    if (!r && r.error().code() == net::errc::v2_crypto_failure) c.shutdown();
    return r;
  }

  // The reader armed for the next step: the idle timeout, or the
  // handshake's deadline when that comes first (each its own code).
  static void arm_step(State& s, clock::time_point deadline) {
    const auto idle = clock::now() + s.timeouts.idle;
    s.reader.arm(std::min(deadline, idle), deadline <= idle ? net::errc::handshake_timed_out : net::errc::timed_out);
  }

  // Whether the peer, before we sent anything, began its v1 version: a v2
  // responder waits for our key and never speaks first, some v1 nodes do.
  // Waits twice the round trip the kernel measured (200 ms at least, 1 s
  // at most) for a first byte, then for the rest of the envelope's first
  // 16 bytes within the handshake. The bytes stay buffered.
  static result<bool> spoke_v1_first(State& s, clock::time_point deadline) {
    std::chrono::microseconds round_trip{0};
    tcp_info info{};
    socklen_t length = sizeof info;
    if (::getsockopt(s.socket.get(), IPPROTO_TCP, TCP_INFO, &info, &length) == 0) round_trip = std::chrono::microseconds(info.tcpi_rtt);
    const auto wait = std::clamp<std::chrono::milliseconds>(std::chrono::ceil<std::chrono::milliseconds>(2 * round_trip),
                                                            std::chrono::milliseconds(200), std::chrono::seconds(1));
    const auto prefix = v1_version_prefix(s.net);
    s.reader.arm(std::min(deadline, clock::now() + wait), net::errc::timed_out);
    for (;;) {
      const auto head = s.in.buffered();
      const std::size_t n = std::min(head.size(), prefix.size());
      if (!std::equal(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(n), prefix.begin())) return false;
      if (n == prefix.size()) return true;
      if (n != 0) arm_step(s, deadline);  // begun: the rest within the handshake
      auto got = s.in.fill();
      if (!got) {
        if (got.error().code() == net::errc::timed_out && n == 0) return false;  // silent: a v2 responder's way
        return error(got.error().code(), s.consumed());
      }
      // Closed as it accepted, before a byte either way: it refuses us.
      if (got.value() == 0) return error(net::errc::connection_closed, s.consumed());
    }
  }

  // The initiator's side: a v1 peer that speaks first told apart, then
  // our key, the peer's key, the rest. True: v2 (s.v2 set); false: v1,
  // nothing sent.
  static result<bool> start(State& s) {
    const auto deadline = clock::now() + s.timeouts.handshake;
    auto v1 = spoke_v1_first(s, deadline);
    if (!v1) return v1.error();
    if (v1.value()) return false;
    auto cipher = new_cipher();
    if (!cipher) return cipher.error();
    auto garbage = send_key(s, cipher.value(), deadline, false);
    if (!garbage) return garbage.error();
    bip324::EllSwiftPublicKey theirs;
    arm_step(s, deadline);
    if (auto r = read_exact(s, theirs); !r) {
      // A v1 node reads our key as an envelope with a bad magic and hangs
      // up (or resets) before it sends a byte; Core then tries v1 (its
      // ShouldReconnectV1: nothing received). Silence does the same.
      const std::error_code c = r.error().code();
      const bool hung_up = c == net::errc::connection_closed || c == std::errc::connection_reset || c == net::errc::timed_out ||
                           c == net::errc::handshake_timed_out;
      if (hung_up && s.reader.received() == 0) return error(net::errc::v2_refused, 0);
      return r.error();
    }
    // A v1 node that spoke later than we waited: its version where the
    // key belongs.
    const auto prefix = v1_version_prefix(s.net);
    if (std::equal(prefix.begin(), prefix.end(), theirs.begin())) return error(net::errc::v2_answered_v1, 0);
    if (auto r = finish(s, cipher.value(), theirs, true, garbage.value(), garbage.value(), deadline); !r) return r.error();
    s.v2 = std::move(cipher).value();
    return true;
  }

  // Once both keys are known: `garbage_to_send` (the initiator's, held
  // back until now), our terminator and version packet (the garbage we
  // sent its AAD), then the peer's garbage, terminator and version packet
  // (contents ignored, as BIP324 says: for later versions).
  static result<void> finish(State& s, bip324::PacketCipher& cipher, const bip324::EllSwiftPublicKey& theirs, bool initiator,
                             std::span<const std::byte> our_garbage, std::span<const std::byte> garbage_to_send,
                             clock::time_point deadline) {
    if (auto r = cipher.initialize(theirs, initiator, s.net); !r) return r;
    new_packet(s);  // the version packet: no contents
    const Terminator terminator = cipher.send_garbage_terminator();
    std::vector<std::byte> before(garbage_to_send.begin(), garbage_to_send.end());
    before.insert(before.end(), terminator.begin(), terminator.end());
    if (auto r = send_packet(s, cipher, our_garbage, before); !r) return r;
    arm_step(s, deadline);
    auto garbage = receive_garbage(s, cipher.receive_garbage_terminator());
    if (!garbage) return garbage.error();
    auto version = receive_packet(s, cipher, clock::now() + s.timeouts.idle, garbage.value(), deadline);
    if (!version) {
      // (receive_packet stops at the handshake's deadline as at its own:
      // which one ran out, said)
      const std::error_code c = version.error().code();
      if ((c == net::errc::timed_out || c == net::errc::too_slow) && clock::now() >= deadline) {
        return error(net::errc::handshake_timed_out, version.error().offset());
      }
      return version.error();
    }
    return success();
  }
};

// A failed handshake leaves s.v2 as it was (the ciphers are the
// handshake's own until it succeeds): the connection is v1's. When
// OpenSSL failed once v2's bytes had begun to move (our key sent, or the
// peer's read), the stream is good for neither transport: it is shut down.
result<transport> Connection::start_v2() {
  State& s = *state_;
  const std::uint64_t sent = s.sent;
  auto done = V2::start(s);
  if (!done) {
    if (done.error().code() == net::errc::v2_crypto_failure && s.sent != sent) shutdown();
    return done.error();
  }
  return done.value() ? transport::v2 : transport::v1;
}

result<transport> Connection::accept_transport(bool allow_v2) {
  auto kind = accept(allow_v2);
  if (!kind && kind.error().code() == net::errc::v2_crypto_failure) shutdown();  // (the peer's key was read)
  return kind;
}

result<transport> Connection::accept(bool allow_v2) {
  State& s = *state_;
  if (!allow_v2) return transport::v1;
  const auto deadline = clock::now() + s.timeouts.handshake;
  // A v1 peer's first bytes: the envelope of its version message.
  const auto v1_prefix = v1_version_prefix(s.net);
  V2::arm_step(s, deadline);
  for (;;) {
    const auto head = s.in.buffered();
    const std::size_t n = std::min(head.size(), v1_prefix.size());
    if (!std::equal(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(n), v1_prefix.begin())) break;  // v2
    if (n == v1_prefix.size()) return transport::v1;  // left buffered for the v1 handshake
    auto got = s.in.fill();
    if (!got) return error(got.error().code(), s.consumed());
    if (got.value() == 0) return error(net::errc::connection_closed, s.consumed());
  }
  bip324::EllSwiftPublicKey theirs;
  if (auto r = V2::read_exact(s, theirs); !r) return r.error();
  // The magic of another network, then a v1 version's command.
  if (std::equal(v1_prefix.begin() + 4, v1_prefix.end(), theirs.begin() + 4)) return error(net::errc::v1_other_network, 0);
  auto cipher = V2::new_cipher();
  if (!cipher) return cipher.error();
  auto garbage = V2::send_key(s, cipher.value(), deadline, true);
  if (!garbage) return garbage.error();
  if (auto r = V2::finish(s, cipher.value(), theirs, false, garbage.value(), {}, deadline); !r) return r.error();
  s.v2 = std::move(cipher).value();
  return transport::v2;
}

Connection::Connection(FileDescriptor socket, network net, Timeouts timeouts)
    : state_(std::make_unique<State>(std::move(socket), net, timeouts)) {
  // An envelope and its payload leave as two writes: with Nagle's algorithm
  // the second would wait for the peer's delayed ACK (40 ms a message).
  const int one = 1;
  (void)setsockopt(state_->socket.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

result<Connection> Connection::connect(const Endpoint& peer, network net, Timeouts timeouts) {
  auto fd = connect_to(peer, timeouts.connect);
  if (!fd) return fd.error();
  return Connection(std::move(fd).value(), net, timeouts);
}

bool reconnect_for_v1(const error& e) noexcept { return e.code() == net::errc::v2_refused || e.code() == net::errc::v2_answered_v1; }

v1_fallback fallback_of(const error& e) noexcept {
  if (e.code() == net::errc::v2_refused) return v1_fallback::hung_up;
  if (e.code() == net::errc::v2_answered_v1) return v1_fallback::answered_v1;
  return v1_fallback::none;
}

Dialed dial(const Endpoint& peer, network net, Timeouts timeouts, transport preferred, const std::function<void(int)>& on_socket,
            const std::function<bool()>& stopped) {
  Dialed out;
  const auto connect = [&] {
    if (out.connection) {
      out.connection.reset();
      if (on_socket) on_socket(-1);
    }
    auto made = Connection::connect(peer, net, timeouts);
    if (!made) {
      out.failure = made.error();
      return false;
    }
    out.connection.emplace(std::move(made).value());
    if (on_socket) on_socket(out.connection->fd());
    return true;
  };
  if (!connect() || preferred == transport::v1) return out;
  auto v2 = out.connection->start_v2();
  if (v2) {
    if (v2.value() == transport::v1) out.fallback = v1_fallback::spoke_first;
    return out;
  }
  if (!reconnect_for_v1(v2.error()) || (stopped && stopped())) {
    out.failure = v2.error();
    return out;
  }
  // A v1-only node: v1 from here on, never v2 again on this dial (a node
  // may ban an address for what it took for bad messages).
  out.fallback = fallback_of(v2.error());
  connect();
  return out;
}

result<Connection> connect_preferring(const Endpoint& peer, network net, Timeouts timeouts, transport preferred) {
  Dialed dialed = dial(peer, net, timeouts, preferred);
  if (dialed.failure) return *dialed.failure;
  return std::move(*dialed.connection);
}

Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;
Connection::~Connection() = default;

// Over v2, a failure of OpenSSL's leaves the ciphers out of step with the
// peer's: the connection is shut down (every later call fails).
result<void> Connection::send(const p2p::Message& message) {
  if (state_->v2) {
    p2p::encode_v2_contents(message, V2::new_packet(*state_));
    return V2::after_v2(*this, V2::send_packet(*state_, *state_->v2, {}));
  }
  DeadlineWriter out(state_->socket.get(), state_->timeouts, state_->sent);
  return p2p::encode_message(message, state_->net, writer_ref(out), state_->scratch);
}

result<void> Connection::send(std::string_view command, std::span<const std::byte> payload) {
  if (state_->v2) {
    p2p::encode_v2_contents(command, payload, V2::new_packet(*state_));
    return V2::after_v2(*this, V2::send_packet(*state_, *state_->v2, {}));
  }
  DeadlineWriter out(state_->socket.get(), state_->timeouts, state_->sent);
  return p2p::encode_message(command, payload, state_->net, writer_ref(out));
}

result<p2p::Message> Connection::receive() { return receive(clock::now() + state_->timeouts.idle); }

result<p2p::Message> Connection::receive(clock::time_point until) {
  // One idle deadline for the whole call: pings and unknown commands are
  // answered or skipped on the way, and do not buy the peer more time.
  const auto idle_until = std::min(until, clock::now() + state_->timeouts.idle);
  for (;;) {
    auto message = read_message(idle_until);
    if (!message) return message;
    if (const auto* ping = std::get_if<p2p::Ping>(&message.value())) {
      if (auto r = send(p2p::Pong{ping->nonce}); !r) return r.error();
      continue;
    }
    if (std::holds_alternative<p2p::Unknown>(message.value())) continue;
    return message;
  }
}

result<p2p::Message> Connection::read_message(clock::time_point idle_until) {
  State& s = *state_;
  s.last_command.clear();
  if (s.v2) {
    auto contents = V2::receive_packet(s, *s.v2, idle_until, {});
    if (!contents) return V2::after_v2(*this, contents).error();
    auto message = p2p::decode_v2_contents(contents.value(), &s.last_command);
    // Offsets past the packet's length and header byte.
    constexpr std::uint64_t before = bip324::PacketCipher::length_size + bip324::PacketCipher::header_size;
    if (!message)
      return error(message.error().code(), s.last_offset + before + (message.error().has_offset() ? message.error().offset() : 0));
    return message;
  }
  s.last_offset = s.consumed();
  // (checked here: a message already buffered never waits on the socket)
  if (clock::now() >= idle_until) return error(net::errc::timed_out, s.last_offset);
  if (s.in.buffered().empty()) {
    s.reader.arm(idle_until, net::errc::timed_out);
    auto got = s.in.fill();
    if (!got) return error(got.error().code(), s.last_offset);
    if (got.value() == 0) return error(net::errc::connection_closed, s.last_offset);
  }
  // Timed from its first byte: the envelope first, then the whole at the
  // time its length gives.
  const auto started = clock::now();
  s.reader.arm(started + std::min(s.timeouts.message, s.timeouts.envelope), net::errc::too_slow);
  while (s.in.buffered().size() < p2p::envelope_size) {
    auto got = s.in.fill();
    if (!got) return error(got.error().code(), s.consumed());
    if (got.value() == 0) break;  // closed inside the envelope: decode_message says so
  }
  if (const auto head = s.in.buffered(); head.size() >= p2p::envelope_size) {
    const auto length = load_le<std::uint32_t>(head.data() + 16);  // the envelope's length field
    s.reader.arm(started + s.timeouts.for_message(length), net::errc::too_slow);
  }
  auto message = p2p::decode_message(s.in, s.net, &s.last_command);
  if (!message) {
    std::error_code code = message.error().code();
    // The stream ended inside the message: the peer closed.
    if (code == io::errc::end_of_stream || code == io::errc::truncated) code = net::errc::connection_closed;
    const std::uint64_t at = message.error().has_offset() ? s.last_offset + message.error().offset() : s.consumed();
    return error(code, at);
  }
  return message;
}

result<p2p::Version> Connection::handshake_outbound(const LocalVersion& us) { return handshake(true, us); }
result<p2p::Version> Connection::handshake_inbound(const LocalVersion& us) { return handshake(false, us); }

result<p2p::Version> Connection::handshake(bool outbound, const LocalVersion& us) {
  State& s = *state_;
  const auto deadline = clock::now() + s.timeouts.handshake;
  const Timeouts saved = s.timeouts;
  const std::uint64_t received_before = s.reader.received();
  p2p::Version ours;
  ours.services = us.services;
  ours.timestamp = static_cast<std::int64_t>(std::time(nullptr));
  ours.nonce = detail::random_nonce();
  ours.user_agent = us.user_agent;
  ours.start_height = us.start_height;
  ours.relay = us.relay;
  clock::time_point version_sent{};
  if (outbound) {
    if (auto r = send(ours); !r) return r.error();
    version_sent = clock::now();
  }
  std::optional<p2p::Version> theirs;
  bool verack = false;
  result<p2p::Version> outcome = net::errc::timed_out;
  while (!theirs || !verack) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) {
      outcome = error(net::errc::handshake_timed_out, s.consumed());
      break;
    }
    s.timeouts.idle = std::min(saved.idle, left);
    s.timeouts.message = std::min(saved.message, left);
    auto message = receive();
    if (!message) {
      // The idle timeout cut to the handshake's, and that cut ran out: the
      // handshake's deadline is said where the peer began and then stalled
      // between messages. One that sent nothing at all is silent (the idle
      // timeout's words); one whose message did not arrive whole, too slow.
      const std::error_code c = message.error().code();
      const bool ran_out =
          c == net::errc::timed_out && left < saved.idle && clock::now() >= deadline && s.reader.received() > received_before;
      outcome = ran_out ? error(net::errc::handshake_timed_out, message.error().offset()) : message.error();
      break;
    }
    if (auto* version = std::get_if<p2p::Version>(&message.value())) {
      if (theirs) {
        outcome = error(net::errc::unexpected_message, s.last_offset);
        break;
      }
      if (version->nonce == ours.nonce) {
        outcome = error(net::errc::self_connection, s.last_offset);
        break;
      }
      if (version->version < 31'800) {
        outcome = error(net::errc::obsolete_peer, s.last_offset);
        break;
      }
      theirs = std::move(*version);
      s.peer_version = theirs->version;
      result<void> sent = success();
      if (outbound) {
        s.round_trip = std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - version_sent);
      } else {
        sent = send(ours);
        version_sent = clock::now();
      }
      // BIP339 and BIP155, announced to peers that may know them, as Core does.
      if (sent && theirs->version >= 70'016) sent = send(p2p::WtxidRelay{});
      if (sent && theirs->version >= 70'016) sent = send(p2p::SendAddrV2{});
      if (sent) sent = send(p2p::Verack{});
      if (!sent) {
        outcome = sent.error();
        break;
      }
    } else if (!theirs) {
      outcome = error(net::errc::unexpected_message, s.last_offset);
      break;
    } else if (std::holds_alternative<p2p::Verack>(message.value())) {
      verack = true;
      if (!outbound) s.round_trip = std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - version_sent);
    }
    // Anything else before the verack (wtxidrelay, sendaddrv2, sendcmpct,
    // sendheaders, feefilter, getaddr...) needs no answer from us.
  }
  s.timeouts = saved;
  if (theirs && verack) return std::move(*theirs);
  return outcome;
}

void Connection::shutdown() noexcept { (void)::shutdown(state_->socket.get(), SHUT_RDWR); }
int Connection::fd() const noexcept { return state_->socket.get(); }
bool Connection::has_buffered_input() const noexcept { return !state_->in.buffered().empty(); }
const Timeouts& Connection::timeouts() const noexcept { return state_->timeouts; }
const std::string& Connection::peer_name() const noexcept { return state_->peer; }
std::int32_t Connection::peer_version() const noexcept { return state_->peer_version; }
std::chrono::microseconds Connection::handshake_round_trip() const noexcept { return state_->round_trip; }
const std::string& Connection::last_command() const noexcept { return state_->last_command; }
std::uint64_t Connection::last_message_offset() const noexcept { return state_->last_offset; }
std::uint64_t Connection::bytes_received() const noexcept { return state_->reader.received(); }
std::uint64_t Connection::bytes_sent() const noexcept { return state_->sent; }
network Connection::net() const noexcept { return state_->net; }
transport Connection::transport_kind() const noexcept { return state_->v2 ? transport::v2 : transport::v1; }
std::string Connection::session_id() const { return state_->v2 ? to_hex(state_->v2->session_id()) : std::string(); }

error Connection::attributed(const error& e) const {
  std::string who = "peer " + peer_name();
  if (e.has_offset() && !last_command().empty()) who += ", in its '" + last_command() + "' message";
  return e.in(who);
}

std::string Connection::describe(const error& e) const { return attributed(e).message(); }

}  // namespace blockwire::net
