#include "random_nonce.hpp"

#include <blockwire/io/buffered_reader.hpp>
#include <blockwire/io/little_endian.hpp>
#include <blockwire/io/socket.hpp>
#include <blockwire/net/connection.hpp>

#include <algorithm>
#include <cerrno>
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
  std::string last_command;
  std::int32_t peer_version = 0;
  std::uint64_t last_offset = 0;
  std::uint64_t sent = 0;
};

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

Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;
Connection::~Connection() = default;

result<void> Connection::send(const p2p::Message& message) {
  DeadlineWriter out(state_->socket.get(), state_->timeouts, state_->sent);
  return p2p::encode_message(message, state_->net, writer_ref(out), state_->scratch);
}

result<void> Connection::send(std::string_view command, std::span<const std::byte> payload) {
  DeadlineWriter out(state_->socket.get(), state_->timeouts, state_->sent);
  return p2p::encode_message(command, payload, state_->net, writer_ref(out));
}

result<p2p::Message> Connection::receive() { return receive(clock::now() + state_->timeouts.idle); }

result<p2p::Message> Connection::receive(clock::time_point until) {
  State& s = *state_;
  // One idle deadline for the whole call: pings and unknown commands are
  // answered or skipped on the way, and do not buy the peer more time.
  const auto idle_until = std::min(until, clock::now() + s.timeouts.idle);
  for (;;) {
    s.last_offset = s.consumed();
    s.last_command.clear();
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
    if (const auto* ping = std::get_if<p2p::Ping>(&message.value())) {
      if (auto r = send(p2p::Pong{ping->nonce}); !r) return r.error();
      continue;
    }
    if (std::holds_alternative<p2p::Unknown>(message.value())) continue;
    return message;
  }
}

result<p2p::Version> Connection::handshake_outbound(const LocalVersion& us) { return handshake(true, us); }
result<p2p::Version> Connection::handshake_inbound(const LocalVersion& us) { return handshake(false, us); }

result<p2p::Version> Connection::handshake(bool outbound, const LocalVersion& us) {
  State& s = *state_;
  const auto deadline = clock::now() + s.timeouts.handshake;
  const Timeouts saved = s.timeouts;
  p2p::Version ours;
  ours.services = us.services;
  ours.timestamp = static_cast<std::int64_t>(std::time(nullptr));
  ours.nonce = detail::random_nonce();
  ours.user_agent = us.user_agent;
  ours.start_height = us.start_height;
  ours.relay = false;
  if (outbound) {
    if (auto r = send(ours); !r) return r.error();
  }
  std::optional<p2p::Version> theirs;
  bool verack = false;
  result<p2p::Version> outcome = net::errc::timed_out;
  while (!theirs || !verack) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) {
      outcome = error(net::errc::timed_out, s.consumed());
      break;
    }
    s.timeouts.idle = std::min(saved.idle, left);
    s.timeouts.message = std::min(saved.message, left);
    auto message = receive();
    if (!message) {
      outcome = message.error();
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
      if (!outbound) sent = send(ours);
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
const std::string& Connection::last_command() const noexcept { return state_->last_command; }
std::uint64_t Connection::last_message_offset() const noexcept { return state_->last_offset; }
std::uint64_t Connection::bytes_received() const noexcept { return state_->reader.received(); }
std::uint64_t Connection::bytes_sent() const noexcept { return state_->sent; }
network Connection::net() const noexcept { return state_->net; }

std::string Connection::describe(const error& e) const {
  std::string text = "peer " + peer_name() + ": " + e.code().message();
  if (e.has_offset()) {
    text += " (";
    if (!last_command().empty()) text += "in its '" + last_command() + "' message, ";
    text += "byte " + std::to_string(e.offset()) + " of what it sent)";
  }
  return text;
}

}  // namespace blockwire::net
