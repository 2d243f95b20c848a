#include "random_nonce.hpp"

#include <blockwire/codec/wire.hpp>
#include <blockwire/net/sync.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <variant>

namespace blockwire::net {

namespace {

// A header with its hash, hashed once.
struct HashedHeader {
  BlockHeader header;
  BlockHash hash = BlockHash::all_zeros();
};

// The headers message's new headers, checked, and the last header's hash
// (where a full message's next request starts). `offset`: the message's
// stream offset, for the errors.
result<std::vector<HashedHeader>> new_headers(const p2p::Headers& message, const BlockIndex& chain, std::uint64_t offset, BlockHash& last) {
  wire::SizeCounter count;
  wire::encode_compact_size(count, message.headers.size());
  const std::uint64_t first = offset + p2p::envelope_size + count.size();
  std::vector<HashedHeader> fresh;
  std::set<BlockHash> seen;
  BlockHash previous = BlockHash::all_zeros();
  for (std::size_t i = 0; i < message.headers.size(); ++i) {
    const BlockHeader& h = message.headers[i];
    const std::uint64_t at = first + 81 * i;
    const BlockHash hash = block_hash(h);
    if (!seen.insert(hash).second) return error(net::errc::duplicate_header, at);
    if (!proof_of_work_ok(hash, h.bits, chain.net())) return error(net::errc::bad_header_pow, at);
    const bool links = i == 0 ? chain.contains(h.prev_block) : h.prev_block == previous;
    if (!links) return error(net::errc::unconnected_headers, at);
    previous = hash;
    if (!chain.find(hash)) fresh.push_back({h, hash});  // held already (linked or not): not fetched again
  }
  last = previous;
  return fresh;
}

// A node syncing from us too (Core asks every new peer for headers): we
// serve nothing while fetching, and say so with an empty headers message
// rather than leave it waiting.
result<void> answer(Connection& peer, const p2p::Message& message) {
  if (std::holds_alternative<p2p::GetHeaders>(message)) return peer.send(p2p::Headers{});
  return success();
}

}  // namespace

result<void> sync_blocks(Connection& peer, BlockFileWriter& writer, BlockIndex& chain, std::int64_t peer_height, SyncProgress& progress,
                         const SyncOptions& options) {
  using clock = std::chrono::steady_clock;
  progress = SyncProgress{};
  progress.peer_height = peer_height;
  progress.height = chain.tip_height();
  // The peer said it has more than we do (its version message's claim).
  const auto peer_has_more = [&] { return peer_height > signed_height(chain.tip_height()); };
  const auto append = [&](const Block& block, const BlockHash& hash, std::span<const TxIds> ids) -> result<void> {
    const auto at = writer.append(block);
    if (!at) {
      progress.local_failure = true;
      return at.error();
    }
    chain.add(block.header, hash, at.value());
    if (options.appended) {
      if (auto r = options.appended(block, hash, ids); !r) {
        // A block its user cannot take (one that spends what its chain
        // never made) does not stay in the files, to be refused at every
        // start after: taken out, it is fetched again, and refused again.
        (void)writer.rewind(at.value());
        progress.local_failure = true;
        return r;
      }
    }
    ++progress.blocks;
    progress.bytes += writer.position().offset - at.value().offset - 8;  // the record's block, without its frame
    progress.height = chain.tip_height();
    if (options.progress) options.progress(progress);
    return success();
  };
  // Waiting for an answer: what is not one (a ping, inv, addr...) is let
  // by, but not for longer than the idle timeout without progress.
  auto stall_until = clock::now() + peer.timeouts().idle;
  const auto stalled = [&] { return clock::now() > stall_until; };
  const auto progressed = [&] { stall_until = clock::now() + peer.timeouts().idle; };

  if (chain.empty()) {  // the genesis block: every node writes its own
    const Block genesis = genesis_block(chain.net());
    std::vector<TxIds> ids(genesis.transactions.size());
    tx_ids(genesis.transactions, ids);
    if (auto r = append(genesis, genesis_hash(chain.net()), ids); !r) return r;
  }
  const std::size_t window = std::max<std::size_t>(1, options.max_in_flight);
  const auto done = [&] { return options.max_blocks != 0 && progress.blocks >= options.max_blocks; };
  std::optional<BlockHash> continue_from;  // after a full headers message: its last header, as Core asks
  std::uint64_t nonce = detail::random_nonce();
  while (!done()) {
    std::vector<BlockHash> locator = chain.locator();
    if (continue_from) locator.insert(locator.begin(), *continue_from);
    if (auto r = peer.send(p2p::GetHeaders{p2p::protocol_version, std::move(locator), BlockHash::all_zeros()}); !r) return r;
    // A ping right after it: messages are answered in order, so its pong
    // coming first means no headers are coming.
    const std::uint64_t ping = ++nonce;
    if (auto r = peer.send(p2p::Ping{ping}); !r) return r;
    const auto answer_until = clock::now() + peer.timeouts().handshake;
    std::vector<HashedHeader> wanted;
    bool full = false;
    bool no_more = false;
    for (;;) {  // the answer; announcements, old pongs and the like pass by
      auto message = peer.receive(answer_until);
      if (!message) {
        if (message.error().code() == net::errc::timed_out) return error(net::errc::no_answer, message.error().offset());
        return message.error();
      }
      if (auto r = answer(peer, message.value()); !r) return r;
      if (const auto* pong = std::get_if<p2p::Pong>(&message.value()); pong != nullptr && pong->nonce == ping) {
        // Nothing more from this peer; unless it announced more than we
        // have: then it ignores getheaders (a node in its initial block
        // download does).
        if (peer_has_more() && wanted.empty()) return error(net::errc::ignores_getheaders, peer.last_message_offset());
        no_more = true;
        break;
      }
      if (const auto* headers = std::get_if<p2p::Headers>(&message.value())) {
        BlockHash last_hash = BlockHash::all_zeros();
        auto fresh = new_headers(*headers, chain, peer.last_message_offset(), last_hash);
        if (!fresh) return fresh.error();
        wanted = std::move(fresh).value();
        full = headers->headers.size() == p2p::max_headers;
        const std::optional<BlockHash> last = full ? std::optional<BlockHash>(last_hash) : std::nullopt;
        // The same full message again, nothing new in it: the peer is going
        // round in circles; what we have is what it gives.
        if (full && wanted.empty() && last == continue_from) full = false;
        continue_from = last;
        break;
      }
      if (clock::now() > answer_until) return error(net::errc::no_answer, peer.last_message_offset());
    }
    progressed();
    // An empty answer from a peer that announced more than we have: it
    // will not serve us (Core answers a node below its minimum chain work
    // with an empty headers message, in its initial block download).
    if (!no_more && wanted.empty() && !full && peer_has_more() && progress.blocks <= 1) {
      return error(net::errc::no_headers_past_ours, peer.last_message_offset());
    }
    if (no_more || (wanted.empty() && !full)) {  // the peer has nothing we lack
      progress.stopped = SyncProgress::stop::tip_reached;
      break;
    }
    if (options.max_blocks != 0) wanted.resize(std::min<std::size_t>(wanted.size(), options.max_blocks - progress.blocks));

    // Blocks in chain order, `window` in flight; one that comes early
    // waits (at most window - 1 of them) for those before it.
    std::size_t next_request = 0, next_append = 0;
    std::map<BlockHash, std::size_t> in_flight;                         // hash -> position in `wanted`
    std::map<std::size_t, std::pair<Block, std::vector<TxIds>>> early;  // with its transactions' ids, hashed once
    while (next_append < wanted.size()) {
      if (next_request < wanted.size() && in_flight.size() + early.size() < window) {
        p2p::GetData request;
        while (next_request < wanted.size() && in_flight.size() + early.size() + request.items.size() < window) {
          const BlockHash& hash = wanted[next_request].hash;
          request.items.push_back({p2p::inv::block | p2p::inv::witness_flag, hash.to_raw_hash()});
          in_flight.emplace(hash, next_request++);
        }
        if (auto r = peer.send(request); !r) return r;
      }
      auto message = peer.receive();
      if (!message) return message.error();
      if (auto r = answer(peer, message.value()); !r) return r;
      if (const auto* missing = std::get_if<p2p::NotFound>(&message.value())) {
        for (const auto& item : missing->items) {
          if (in_flight.contains(BlockHash::from_raw_hash(item.hash))) return error(net::errc::block_not_found, peer.last_message_offset());
        }
      }
      auto* got = std::get_if<p2p::BlockMessage>(&message.value());
      if (got == nullptr) {
        if (stalled()) return error(net::errc::timed_out, peer.last_message_offset());
        continue;
      }
      const std::uint64_t at = peer.last_message_offset();
      const auto it = in_flight.find(block_hash(got->block.header));
      if (it == in_flight.end()) return error(net::errc::unrequested_block, at);
      std::vector<TxIds> ids(got->block.transactions.size());
      tx_ids(got->block.transactions, ids);
      if (auto checked = check_block(got->block, ids); !checked) return error(checked.error().code(), at);
      progressed();
      early.emplace(it->second, std::pair(std::move(got->block), std::move(ids)));
      in_flight.erase(it);
      for (auto e = early.begin(); e != early.end() && e->first == next_append; e = early.erase(e), ++next_append) {
        if (auto r = append(e->second.first, wanted[e->first].hash, e->second.second); !r) return r;
      }
    }
  }
  if (progress.stopped == SyncProgress::stop::running) progress.stopped = SyncProgress::stop::max_blocks;
  return success();
}

}  // namespace blockwire::net
