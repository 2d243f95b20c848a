#include <blockwire/net/error.hpp>

namespace blockwire::net {
namespace {

const char* describe(int value) noexcept {
  switch (static_cast<net::errc>(value)) {
    case net::errc::timed_out: return "the peer sent nothing we were waiting for within the idle timeout";
    case net::errc::too_slow: return "a message did not arrive whole within its time (the message timeout, less for a short one)";
    case net::errc::connection_closed: return "the peer closed the connection";
    case net::errc::self_connection: return "connected to ourselves (the peer's version carries our nonce)";
    case net::errc::obsolete_peer: return "the peer's protocol version is below 31800";
    case net::errc::unexpected_message: return "a message the handshake does not allow there";
    case net::errc::unconnected_headers: return "a header that links neither to the header before it nor to our chain";
    case net::errc::bad_header_pow: return "a header whose hash is above its target, or whose target is easier than the network allows";
    case net::errc::duplicate_header: return "the same header twice in one headers message";
    case net::errc::unrequested_block: return "a block we did not ask for";
    case net::errc::block_not_found: return "the peer does not have a block we asked for (notfound)";
    case net::errc::bad_endpoint: return "not HOST[:PORT]";
    case net::errc::unknown_host: return "the host name resolves to no address";
    case net::errc::peer_not_reading: return "the peer stopped reading: a message we sent it did not leave within its time";
    case net::errc::ignores_getheaders:
      return "the peer ignores our getheaders (it answered the ping we sent after it), though it announced more blocks than we have: "
             "a node in initial block download does that (Bitcoin Core: wait until it has synced, or give us the download "
             "permission, -whitelist=download@OUR_ADDRESS)";
    case net::errc::getblocktxn_past_end: return "a getblocktxn index past the block's transactions (Bitcoin Core disconnects for it)";
    case net::errc::filter_type_not_served: return "a BIP157 request for a filter type we do not serve";
    case net::errc::filter_stop_unknown: return "a BIP157 request whose stop hash is a block we do not have";
    case net::errc::filter_stop_not_on_chain: return "a BIP157 request whose stop hash is a block off our best chain (a reorg left it)";
    case net::errc::filter_start_after_stop: return "a BIP157 request whose start height is past its stop block";
    case net::errc::filter_range_too_wide: return "a BIP157 range wider than Bitcoin Core answers (1,000 filters, 2,000 filter headers)";
    case net::errc::chain_changed:
      return "the peer's best chain changed while we fetched from it (it announced another tip, then ended the connection at a "
             "request for a block of its chain as it was): run again";
    case net::errc::no_headers_past_ours:
      return "the peer announced more blocks than we have, but answered our getheaders with no header past ours: a node in "
             "initial block download does that (Bitcoin Core: wait until it has synced), or one whose chain is not ours";
    case net::errc::past_tip: return "a height past the best chain's tip (the chain changed under the request)";
    case net::errc::v2_refused:
      return "the peer closed the connection at our v2 (BIP324) key: it speaks v1 only (blockwire fetch retries with v1; --v1 "
             "goes there at once)";
    case net::errc::v2_no_terminator: return "no v2 garbage terminator within 4,095 bytes of garbage (BIP324)";
    case net::errc::v2_bad_tag: return "a v2 packet failed authentication: its tag is not its contents' (BIP324)";
    case net::errc::v2_packet_too_large: return "a v2 packet's length over 4,000,013 bytes (a type and MAX_PROTOCOL_MESSAGE_LENGTH)";
    case net::errc::v1_other_network: return "a v1 version message of another network (its magic is not ours)";
    case net::errc::v2_answered_v1:
      return "the peer answered our v2 (BIP324) key with a v1 version message: it speaks v1 only (blockwire fetch connects again "
             "with v1; --v1 goes there at once)";
    case net::errc::pruned_peer:
      return "the peer is a pruned node (NODE_NETWORK_LIMITED, it promises its last 288 blocks alone) and does not have a block we "
             "asked for: fetch the blocks below its window from a node that serves the whole chain (NODE_NETWORK)";
    case net::errc::handshake_timed_out:
      return "the handshake did not end within the handshake timeout (the peer said nothing more, sent too slowly, or stopped part way)";
    case net::errc::v2_crypto_failure:
      return "OpenSSL failed under BIP324's cryptography (out of memory, or a provider or algorithm it could not load)";
    case net::errc::v2_wrong_buffer_size:
      return "a buffer given to BIP324's ciphers is not the size the call needs (shorter than a tag or a packet's overhead, or an "
             "output not its input's size)";
    case net::errc::bad_filter:
      return "a compact block filter or filter header that does not match its hash, its checkpoint or the request";
    case net::errc::no_answer:
      return "the peer answered neither our getheaders nor the ping after it within the handshake timeout: it ignores us "
             "(try another node, or --timeout for a slow one)";
  }
  return nullptr;
}

}  // namespace

namespace {
condition classify(int value) noexcept {
  switch (static_cast<errc>(value)) {
    case errc::timed_out:
    case errc::too_slow:
    case errc::connection_closed:
    case errc::block_not_found:
    case errc::peer_not_reading:
    case errc::ignores_getheaders:
    case errc::no_answer:
    case errc::no_headers_past_ours:
    case errc::chain_changed:
    case errc::past_tip:
    case errc::v2_refused:
    case errc::v2_answered_v1:
    case errc::pruned_peer:
    case errc::handshake_timed_out: return condition::peer;
    case errc::unknown_host:
    case errc::v2_crypto_failure: return condition::io;  // (memory, or a provider the system could not load)
    case errc::bad_endpoint:
    case errc::v2_wrong_buffer_size: return condition::usage;
    // The peer broke the protocol, or sent what does not check. (Every
    // code is listed, no default: a new one is a -Wswitch warning until
    // it is classified.)
    case errc::self_connection:
    case errc::obsolete_peer:
    case errc::unexpected_message:
    case errc::unconnected_headers:
    case errc::bad_header_pow:
    case errc::duplicate_header:
    case errc::unrequested_block:
    case errc::getblocktxn_past_end:
    case errc::bad_filter:
    case errc::filter_type_not_served:
    case errc::filter_stop_unknown:
    case errc::filter_stop_not_on_chain:
    case errc::filter_start_after_stop:
    case errc::filter_range_too_wide:
    case errc::v2_no_terminator:
    case errc::v2_bad_tag:
    case errc::v2_packet_too_large:
    case errc::v1_other_network: return condition::bad_data;
  }
  return condition::bad_data;  // (a value no code has)
}
}  // namespace

const std::error_category& category() noexcept {
  static const enum_category instance("blockwire.net", describe, classify);
  return instance;
}

}  // namespace blockwire::net
