// Headers-first sync, as Bitcoin Core's initial block download does it:
// getheaders with a locator of the chain we have, then a ping: the peer
// answers in order, so its pong before any headers means it has no more
// (whether or not it sends an empty headers message, as Core does). Each
// header checked
// (links to the one before it or to our chain, proof of work against its
// own bits and the network's limit, no duplicates, at most 2,000 a
// message), then the blocks fetched with getdata (witness form), at most 16
// in flight, each checked (a hash we asked for; check_block) and appended
// whole, in chain order, through the block-file writer.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/net/connection.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace blockwire::net {

// The chain we already have: every block's height and work, and the best
// chain by height.
class LocalChain {
 public:
  // Nothing yet: the genesis block is the first to write.
  explicit LocalChain(network net) : net_(net) {}
  // Every block of a blocks directory's index that links to its genesis
  // block (side branches too: they are not fetched again), the best chain
  // the one with the most work.
  static LocalChain from_index(const BlockIndex& index, network net);

  bool empty() const noexcept { return best_.empty(); }
  std::int64_t height() const noexcept { return static_cast<std::int64_t>(best_.size()) - 1; }
  const Hash256& tip() const { return best_.back(); }
  // Bitcoin Core's locator: the last eleven blocks, then steps doubling back,
  // then the genesis block.
  std::vector<Hash256> locator() const;
  bool contains(const Hash256& hash) const { return known_.contains(hash); }
  // The height of a block of the best chain, or -1.
  std::int64_t height_of(const Hash256& hash) const;
  // Adds a block whose parent is known (or the genesis block to an empty
  // chain); the best chain moves to it when it has more work than the tip.
  void add(const BlockHeader& header);
  void add(const BlockHeader& header, const Hash256& hash);  // its hash already known
  network net() const noexcept { return net_; }

 private:
  struct Known {
    std::int64_t height;
    Hash256 chainwork;
    Hash256 parent;
  };
  network net_;
  std::map<Hash256, Known> known_;
  std::vector<Hash256> best_;  // by height
};

struct SyncProgress {
  enum class stop : unsigned char { running, tip_reached, max_blocks };
  std::uint64_t blocks = 0;  // appended so far
  std::uint64_t bytes = 0;   // of those blocks
  std::int64_t height = -1;  // our tip's
  std::int64_t peer_height = 0;
  stop stopped = stop::running;  // why a sync that succeeded ended
  // After a failure: it was ours (writing the directory), not the peer's;
  // the error's offset is then the blk file's.
  bool local_failure = false;
};

struct SyncOptions {
  std::uint64_t max_blocks = 0;  // stop after this many appended; 0: up to the peer's tip
  std::size_t max_in_flight = 16;  // Core's MAX_BLOCKS_IN_TRANSIT_PER_PEER
  std::function<void(const SyncProgress&)> progress;  // after each block
};

// Syncs `chain` (and the directory behind `writer`) to the peer's best
// chain, the connection's handshake done. `progress` follows the blocks
// appended; on an error it says how far the sync got, and the blocks
// appended before it stay (each whole and checked): nothing partial is
// written. A peer that sends only what is not an answer (pings, inv, addr)
// for the idle timeout is timed_out: it cannot stall the sync; one that
// answers neither a getheaders nor the ping after it within the handshake
// timeout is no_answer, and one that answers only the ping while it
// announced a higher chain than ours is ignores_getheaders (a node in
// initial block download). Errors:
// unconnected_headers, bad_header_pow, duplicate_header (offset: the
// header's byte, each header's transaction count taken to be the one byte
// of a zero), unrequested_block, block_not_found, check_block's codes
// (offset: the block message's), what receive() reports, and the writer's
// (local_failure).
result<void> sync_blocks(Connection& peer, BlockFileWriter& writer, LocalChain& chain, std::int64_t peer_height,
                         SyncProgress& progress, const SyncOptions& options = {});

}  // namespace blockwire::net
