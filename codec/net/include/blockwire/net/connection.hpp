// Connection: one peer over TCP, speaking Bitcoin's P2P protocol through the
// library's own socket writer and reader. Incoming bytes go socket →
// StreamReader (one buffer) → decode_message; outgoing messages are encoded
// into one reusable buffer, hashed once for the checksum, and sent. Over
// BIP324's v2 transport (start_v2, accept_transport) a message is a packet
// instead: encoded into one reusable buffer and sealed in place; read into
// another, grown as its bytes arrive, opened in place, then decoded.
//
// Deadlines: waiting for a message's first byte may take the idle timeout;
// once it began, a message is timed from its first byte to its last, both
// ways: its 24-byte envelope within `envelope`, and the whole of it within
// `envelope` plus its length at `min_rate`, never more than `message` (a
// peer sending a ping at one byte a second is cut off in seconds; a peer
// that stops reading is dropped when the message we send it is late, not
// when each partial send() times out). Pings are answered and unknown
// commands skipped inside receive(). Memory: the largest message plus the
// buffers, whatever the peer sends.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/net/endpoint.hpp>
#include <blockwire/net/error.hpp>
#include <blockwire/p2p.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace blockwire::net {

struct Timeouts {
  std::chrono::milliseconds connect{10'000};
  std::chrono::milliseconds handshake{30'000};  // from our version to the peer's verack
  std::chrono::milliseconds idle{60'000};       // no byte at all
  std::chrono::milliseconds message{60'000};    // from a message's first byte to its last, at most
  std::chrono::milliseconds envelope{5'000};    // from a message's first byte to the last of its envelope
  std::uint32_t min_rate = 100'000;             // bytes a second a message's payload must at least move at; 0: no floor

  // The time a message of `payload` bytes has, from its first byte.
  std::chrono::milliseconds for_message(std::uint64_t payload) const noexcept {
    if (min_rate == 0) return message;
    return std::min(message, envelope + std::chrono::milliseconds(payload * 1000 / min_rate));
  }
};

// What we say of ourselves in our version message.
struct LocalVersion {
  std::string user_agent = "/blockwire:0.1.0/";
  std::int32_t start_height = 0;  // the height of our best block, as the wire carries it (Height::to_core)
  // None for a client. A peer serving blocks says NODE_NETWORK |
  // NODE_WITNESS: Core drops an outbound peer that does not.
  std::uint64_t services = 0;
  // Whether the peer should announce its transactions to us (BIP37's
  // relay flag): a client that keeps a node's mempool asks for them.
  bool relay = false;
};

inline constexpr std::uint64_t node_network = 1;  // serves the whole chain
inline constexpr std::uint64_t node_witness = 8;  // serves witness data (BIP144)
// Serves the last 288 blocks at least (BIP159): a pruned node says it
// instead of NODE_NETWORK.
inline constexpr std::uint64_t node_network_limited = 1024;
// Speaks BIP324's v2 transport.
inline constexpr std::uint64_t node_p2p_v2 = 1 << 11;

// How a connection's messages travel: v1's plaintext envelopes (magic,
// command, length, checksum), or BIP324's encrypted packets.
enum class transport : unsigned char { v1, v2 };

class Connection {
 public:
  // Takes a connected socket.
  Connection(FileDescriptor socket, network net, Timeouts timeouts = {});
  static result<Connection> connect(const Endpoint& peer, network net, Timeouts timeouts = {});
  Connection(Connection&&) noexcept;
  Connection& operator=(Connection&&) noexcept;
  ~Connection();

  // BIP324's handshake as the initiator, before handshake_outbound: our
  // key, the peer's key, our garbage with its terminator and version
  // packet, the peer's garbage, terminator and version packet (its decoys
  // skipped), all within timeouts.handshake and each step within
  // timeouts.idle. Every message after it is a v2 packet. First, a short
  // wait for a v1 node that speaks first (bcoin sends its version as soon
  // as it accepts): twice the round trip, 200 ms to 1 s; its version there
  // makes the result v1, nothing sent, the bytes kept for the v1
  // handshake. Our garbage leaves with our terminator, once the peer's key
  // has shown a v2 node: a v1 node that reads our key as a bad envelope
  // reads 64 bytes of it, not 4 KB (bcoin bans for a number of bad ones).
  // Errors: v2_refused (the peer closed, reset or stayed silent before
  // sending a byte: a v1-only node; connect again for v1), v2_answered_v1
  // (its v1 version where its key belongs: the same), connection_closed
  // at byte 0 with nothing sent (the peer hung up as it accepted: it
  // refuses us), v2_no_terminator, v2_bad_tag, v2_packet_too_large,
  // handshake_timed_out, timed_out, connection_closed, v2_crypto_failure
  // (OpenSSL failed; once our key was sent the connection is shut down,
  // before that it stays v1's). A failed handshake leaves the connection
  // v1's: the ciphers are kept only once it succeeded.
  result<transport> start_v2();
  // Inbound, before handshake_inbound: the transport the peer speaks, told
  // by its first bytes as Core tells it (a v1 version message begins with
  // the network's magic and "version"), then, for v2, BIP324's handshake
  // as the responder. With `allow_v2` false, v1 without looking. Errors:
  // those of start_v2 (v2_crypto_failure shuts the connection down: the
  // peer's key was read), and v1_other_network.
  result<transport> accept_transport(bool allow_v2 = true);

  // The handshake as Bitcoin Core expects it. Outbound: our version (protocol
  // 70016, `us.services`, relay false, a random nonce), the peer's version,
  // wtxidrelay and sendaddrv2 when the peer's version is 70016 or more, our
  // verack, the peer's verack. Inbound: the peer's version first, then the
  // same. Before the verack, the peer's optional messages (wtxidrelay,
  // sendaddrv2, sendcmpct, sendheaders, feefilter, getaddr, ping) are
  // accepted. Errors: self_connection, obsolete_peer, unexpected_message,
  // and what receive() reports. Returns the peer's version.
  result<p2p::Version> handshake_outbound(const LocalVersion& us = {});
  result<p2p::Version> handshake_inbound(const LocalVersion& us = {});

  // Over v2, v2_crypto_failure (OpenSSL failed) shuts the connection
  // down: its ciphers are out of step with the peer's. The same in
  // receive().
  result<void> send(const p2p::Message& message);
  // A payload already encoded (a block as a blk file holds it).
  result<void> send(std::string_view command, std::span<const std::byte> payload);

  // The next message, pings answered and unknown commands skipped on the
  // way (within the same idle timeout: they do not extend it). Errors
  // carry the stream offset: timed_out, too_slow,
  // connection_closed, the p2p decode errors (bad magic, checksum, a length
  // over the limit, 2,001 headers...), or the socket's error.
  result<p2p::Message> receive();
  // The same, waiting for the first byte only until `idle_until` when that
  // comes before the idle timeout would.
  result<p2p::Message> receive(std::chrono::steady_clock::time_point idle_until);

  // Makes a receive() blocked in another thread return connection_closed
  // (shutdown(2)); safe from any thread.
  void shutdown() noexcept;

  // The socket, for poll(2) or shutdown(2) in a signal handler.
  int fd() const noexcept;
  // Bytes already read from the socket and not yet a message: poll(2) on
  // fd() would not see them.
  bool has_buffered_input() const noexcept;
  const Timeouts& timeouts() const noexcept;
  const std::string& peer_name() const noexcept;
  // The protocol version the peer's version message gave (0 before the
  // handshake).
  std::int32_t peer_version() const noexcept;
  // The handshake's round trip: from our version sent to the peer's answer
  // to it (its version outbound, its verack inbound); zero before.
  std::chrono::microseconds handshake_round_trip() const noexcept;
  // The command of the last message received (also of one that failed
  // once its envelope was read), and the stream offset where it began.
  const std::string& last_command() const noexcept;
  std::uint64_t last_message_offset() const noexcept;
  std::uint64_t bytes_received() const noexcept;
  std::uint64_t bytes_sent() const noexcept;
  network net() const noexcept;
  transport transport_kind() const noexcept;
  // BIP324's session id as hex (the same on both ends of a v2 connection:
  // compare it with the peer's operator's), or "" on v1.
  std::string session_id() const;
  // `e` with this peer said as its context, and the message it was in when
  // `e` has an offset: message() reads "peer 10.0.0.1:8333, in its 'block'
  // message: bad checksum at byte 1234".
  error attributed(const error& e) const;
  // What went wrong with this peer, for a person: attributed(e).message().
  std::string describe(const error& e) const;

 private:
  struct State;
  struct V2;  // the v2 transport's steps, on State
  result<p2p::Version> handshake(bool outbound, const LocalVersion& us);
  // One message as it came, either transport (receive answers pings and
  // skips unknown commands around it).
  result<p2p::Message> read_message(std::chrono::steady_clock::time_point idle_until);
  result<transport> accept(bool allow_v2);
  std::unique_ptr<State> state_;
};

// Why a connection that preferred v2 speaks v1.
enum class v1_fallback : unsigned char {
  none,         // it speaks what was asked for
  spoke_first,  // the peer sent its v1 version before our key: v1 on that connection
  answered_v1,  // the peer answered our key with a v1 version: connected again for v1
  hung_up,      // the peer closed, reset or stayed silent at our key (Core's v1-only nodes): connected again for v1
};

// Whether a failed start_v2 means a v1-only peer, to be connected to again
// for v1 (v2_refused, v2_answered_v1), as Core's ShouldReconnectV1.
bool reconnect_for_v1(const error& e) noexcept;
v1_fallback fallback_of(const error& e) noexcept;

// What dial() reached. A failed BIP324 handshake leaves the connection it
// failed on (shut down) beside its failure: the caller names the peer and
// counts what moved.
struct Dialed {
  std::optional<Connection> connection;  // none: no connection was made
  v1_fallback fallback = v1_fallback::none;
  std::optional<error> failure;  // connecting (no connection), or the handshake
};

// Connects to `peer`; for transport::v2, BIP324's handshake too, and when
// the peer turns out to speak v1 only, v1 (on the same connection when it
// spoke first, else on a new one, as Core does; not when `stopped` says
// the caller is stopping). `on_socket`, when given, is called with each
// socket as it is connected, and with -1 when one is closed (a stop
// watcher's shutdown(2) then ends a wait at once, and never reaches a
// descriptor number used again).
Dialed dial(const Endpoint& peer, network net, Timeouts timeouts, transport preferred, const std::function<void(int)>& on_socket = {},
            const std::function<bool()>& stopped = {});
// The same, the connection alone (transport_kind() says which it is).
result<Connection> connect_preferring(const Endpoint& peer, network net, Timeouts timeouts, transport preferred);

}  // namespace blockwire::net
