// What a peer or the network can do wrong, as the connection and the sync
// see it. Each code means one thing; the error's offset, when it has one, is
// the byte of the connection's incoming stream where it happened (the
// message's first byte, or the header or field at fault). Malformed
// messages are blockwire.p2p codes, bad blocks blockwire.check codes, and
// the operating system's failures std::system_category codes.
#pragma once

#include <blockwire/io/error.hpp>

#include <system_error>
#include <type_traits>

namespace blockwire::net {

enum class errc : int {
  timed_out = 1,         // the peer sent nothing we were waiting for within the idle timeout (pings and the like do not count)
  too_slow,              // a message did not arrive whole within its time (Timeouts::for_message)
  connection_closed,     // the peer closed the connection (inside a message when the offset is past its start)
  self_connection,       // the peer's version carries our own nonce: we connected to ourselves
  obsolete_peer,         // a protocol version below 31,800 (Core's MIN_PEER_PROTO_VERSION)
  unexpected_message,    // a message the handshake does not allow there (anything before version, a second version)
  unconnected_headers,   // a header whose parent is neither the header before it nor a block on our chain
  bad_header_pow,        // a header whose hash is above its own target, or whose target is easier than the network allows
  duplicate_header,      // the same header twice in one headers message
  unrequested_block,     // a block we did not ask for
  block_not_found,       // notfound for a block we asked for
  bad_endpoint,          // HOST[:PORT] that does not parse
  unknown_host,          // the name resolves to no address
  peer_not_reading,      // a message we sent did not leave within its time: the peer stopped reading
  ignores_getheaders,    // the peer answered the ping after our getheaders, not the getheaders, while it announced more blocks than we have
  no_answer,             // the peer answered neither our getheaders nor the ping after it within the handshake timeout
  getblocktxn_past_end,  // a getblocktxn index past the block's transactions (Core disconnects for it)
  bad_filter,            // a BIP157 answer that does not match: a filter not its hash, a header not its checkpoint, another range
  filter_type_not_served,    // a BIP157 request for a filter type we do not serve (or any, where we serve no filters)
  filter_stop_unknown,       // a BIP157 stop hash of a block we do not have
  filter_stop_not_on_chain,  // a BIP157 stop hash of a block off our best chain (a reorg left it): only the best chain's filters are served
  filter_start_after_stop,   // a BIP157 start height past the height of its stop block
  filter_range_too_wide,     // a BIP157 range wider than Core answers (1,000 filters, 2,000 filter headers)
  chain_changed,             // the peer's best chain changed while we fetched from it: it announced another tip, then failed a request
  no_headers_past_ours,      // the peer announced more blocks than we have, but its headers answer holds none past ours
  past_tip,                  // a height past the best chain's tip: the chain changed (a reorg to a shorter one) under the request
  // BIP324's v2 transport.
  v2_refused,            // the peer closed the connection at our v2 key, before sending its own (a node that speaks v1 only)
  v2_no_terminator,      // no garbage terminator within 4,095 bytes of garbage
  v2_bad_tag,            // a packet whose tag is not its contents' (tampered with, or another key)
  v2_packet_too_large,   // a packet's contents announced over 4,000,013 bytes (a type and a 4,000,000-byte payload)
  v1_other_network,      // a v1 version message with another network's magic where a v2 key was awaited
  v2_answered_v1,        // the peer answered our v2 key with its v1 version message (a node that speaks v1 only)
  pruned_peer,           // notfound for a block we asked for, from a pruned node (NODE_NETWORK_LIMITED: it keeps its last 288 blocks)
  handshake_timed_out,   // the handshake (v1's messages, or BIP324's keys and packets) did not end within the handshake timeout
  v2_crypto_failure,     // OpenSSL failed under BIP324's cryptography (memory, a provider it could not load); the context names the call
  v2_wrong_buffer_size,  // a buffer given to BIP324's ciphers is not the size the call needs (nothing was done)
};

const std::error_category& category() noexcept;
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

}  // namespace blockwire::net

template <>
struct std::is_error_code_enum<blockwire::net::errc> : std::true_type {};
