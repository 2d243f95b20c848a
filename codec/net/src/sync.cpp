#include <blockwire/net/sync.hpp>

#include <algorithm>
#include <deque>
#include <set>
#include <variant>

namespace blockwire::net {

LocalChain LocalChain::from_index(const BlockIndex& index, network net) {
  LocalChain chain(net);
  for (std::size_t i : index.best_chain()) chain.add(index.blocks()[i].header);
  return chain;
}

std::vector<Hash256> LocalChain::locator() const {
  std::vector<Hash256> hashes;
  if (best_.empty()) return hashes;
  std::int64_t step = 1;
  for (std::int64_t h = height(); h > 0; h -= step) {
    hashes.push_back(best_[static_cast<std::size_t>(h)]);
    if (hashes.size() > 10) step *= 2;  // as Core: eleven one apart, then doubling
  }
  hashes.push_back(best_.front());
  return hashes;
}

std::int64_t LocalChain::height_of(const Hash256& hash) const {
  const auto it = known_.find(hash);
  if (it == known_.end()) return -1;
  const std::int64_t h = it->second.height;
  return h < static_cast<std::int64_t>(best_.size()) && best_[static_cast<std::size_t>(h)] == hash ? h : -1;
}

void LocalChain::add(const BlockHeader& header) {
  const Hash256 hash = block_hash(header);
  if (known_.contains(hash)) return;
  const auto parent = known_.find(header.prev_block);
  Known k{0, work_from_bits(header.bits), header.prev_block};
  if (parent != known_.end()) {
    k.height = parent->second.height + 1;
    k.chainwork = add_work(parent->second.chainwork, k.chainwork);
  } else if (!best_.empty()) {
    return;  // not linked: the caller checks links first
  }
  known_.emplace(hash, k);
  if (!best_.empty() && at_most(k.chainwork, known_.at(best_.back()).chainwork)) return;
  // The new tip: walk back to where it meets the best chain.
  std::vector<Hash256> branch{hash};
  while (!best_.empty() && height_of(branch.back()) < 0) branch.push_back(known_.at(branch.back()).parent);
  const std::int64_t fork = best_.empty() ? -1 : known_.at(branch.back()).height;
  if (!best_.empty()) branch.pop_back();  // on the best chain already
  best_.resize(static_cast<std::size_t>(fork + 1));
  best_.insert(best_.end(), branch.rbegin(), branch.rend());
}

namespace {

std::size_t compact_size_length(std::size_t n) { return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5; }

// The headers message's new headers, checked. `offset`: the message's
// stream offset, for the errors.
result<std::vector<BlockHeader>> new_headers(const p2p::Headers& message, const LocalChain& chain, std::uint64_t offset) {
  const Hash256 limit = *target_from_bits(pow_limit_bits(chain.net()));
  const std::uint64_t first = offset + p2p::envelope_size + compact_size_length(message.headers.size());
  std::vector<BlockHeader> fresh;
  std::set<Hash256> seen;
  Hash256 previous;
  for (std::size_t i = 0; i < message.headers.size(); ++i) {
    const BlockHeader& h = message.headers[i];
    const std::uint64_t at = first + 81 * i;
    const Hash256 hash = block_hash(h);
    if (!seen.insert(hash).second) return error(net_errc::duplicate_header, at);
    const auto target = target_from_bits(h.bits);
    if (!target || !at_most(*target, limit) || !at_most(hash, *target)) return error(net_errc::bad_header_pow, at);
    const bool links = i == 0 ? chain.contains(h.prev_block) : h.prev_block == previous;
    if (!links) return error(net_errc::unconnected_headers, at);
    previous = hash;
    if (!chain.contains(hash)) fresh.push_back(h);
  }
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

result<SyncProgress> sync_blocks(Connection& peer, BlockFileWriter& writer, LocalChain& chain, std::int64_t peer_height,
                                 const SyncOptions& options) {
  SyncProgress progress;
  progress.peer_height = peer_height;
  progress.height = chain.height();
  const auto appended = [&](const Block& block, std::uint64_t size) {
    chain.add(block.header);
    ++progress.blocks;
    progress.bytes += size;
    progress.height = chain.height();
    if (options.progress) options.progress(progress);
  };
  if (chain.empty()) {  // the genesis block: every node writes its own
    const Block genesis = genesis_block(chain.net());
    if (auto r = writer.append(genesis); !r) return r.error();
    appended(genesis, serialized_size(genesis));
  }
  const std::size_t window = std::max<std::size_t>(1, options.max_in_flight);
  const auto done = [&] { return options.max_blocks != 0 && progress.blocks >= options.max_blocks; };
  while (!done()) {
    if (auto r = peer.send(p2p::GetHeaders{p2p::protocol_version, chain.locator(), Hash256{}}); !r) return r.error();
    std::vector<BlockHeader> wanted;
    for (;;) {  // the answer; announcements and the like pass by
      auto message = peer.receive();
      if (!message) return message.error();
      if (auto r = answer(peer, message.value()); !r) return r.error();
      if (const auto* headers = std::get_if<p2p::Headers>(&message.value())) {
        auto fresh = new_headers(*headers, chain, peer.last_message_offset());
        if (!fresh) return fresh.error();
        wanted = std::move(fresh).value();
        break;
      }
    }
    if (wanted.empty()) break;  // the peer has nothing we lack
    if (options.max_blocks != 0) wanted.resize(std::min<std::size_t>(wanted.size(), options.max_blocks - progress.blocks));

    // Blocks in chain order, `window` in flight; one that comes early
    // waits (at most window - 1 of them) for those before it.
    std::size_t next_request = 0, next_append = 0;
    std::map<Hash256, std::size_t> in_flight;  // hash -> position in `wanted`
    std::map<std::size_t, Block> early;
    while (next_append < wanted.size()) {
      if (next_request < wanted.size() && in_flight.size() + early.size() < window) {
        p2p::GetData request;
        while (next_request < wanted.size() && in_flight.size() + early.size() + request.items.size() < window) {
          const Hash256 hash = block_hash(wanted[next_request]);
          request.items.push_back({p2p::inv::block | p2p::inv::witness_flag, hash});
          in_flight.emplace(hash, next_request++);
        }
        if (auto r = peer.send(request); !r) return r.error();
      }
      auto message = peer.receive();
      if (!message) return message.error();
      if (auto r = answer(peer, message.value()); !r) return r.error();
      if (const auto* missing = std::get_if<p2p::NotFound>(&message.value())) {
        for (const auto& item : missing->items) {
          if (in_flight.contains(item.hash)) return error(net_errc::block_not_found, peer.last_message_offset());
        }
        continue;
      }
      auto* got = std::get_if<p2p::BlockMessage>(&message.value());
      if (got == nullptr) continue;
      const std::uint64_t at = peer.last_message_offset();
      const auto it = in_flight.find(block_hash(got->block.header));
      if (it == in_flight.end()) return error(net_errc::unrequested_block, at);
      if (auto checked = check_block(got->block); !checked) return error(checked.error().code(), at);
      early.emplace(it->second, std::move(got->block));
      in_flight.erase(it);
      for (auto e = early.begin(); e != early.end() && e->first == next_append; e = early.erase(e), ++next_append) {
        if (auto r = writer.append(e->second); !r) return r.error();
        appended(e->second, serialized_size(e->second));
      }
    }
  }
  return progress;
}

}  // namespace blockwire::net
