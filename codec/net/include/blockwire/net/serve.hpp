// Serving a blocks directory to peers, read-only, while a writer may be
// appending to it: what each message a peer sends gets back (the table is
// in docs/design.md, each row after Bitcoin Core's net_processing), new
// blocks announced as they appear, and the blocks themselves from the blk
// files as they are on disk (the witness form sent without decoding; the
// stripped form re-encoded).
#pragma once

#include <blockwire/directory.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/net/connection.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace blockwire::net {

// A directory's index, shared by every peer's thread and refreshed by one:
// readers take the lock only to look something up, never while they read
// a blk file or send.
class BlockStore {
 public:
  // `dir` opened with its undo data (BlocksDirectory::Options::undo):
  // then BIP157 filters are served once enable_filters() says so.
  explicit BlockStore(BlocksDirectory dir) : dir_(std::move(dir)) {}

  // BlocksDirectory::refresh under the lock: whether the best chain's tip
  // moved.
  result<bool> refresh();

  // BIP157: serve the directory's basic filters: those `blockwire
  // filters` kept (DIR/blockwire-filters/basic.dat, checked as they are
  // read), the others made from its rev files (false when it has none:
  // then no filters are served).
  result<bool> enable_filters();
  bool has_filters() const;
  // The basic filter of the best chain's block at `height` (under the
  // lock), and the filter headers up to it, computed once and kept (a
  // block that left the best chain drops those from it on).
  result<filters::GcsFilter> filter_at(std::size_t height) const;
  result<Hash256> filter_header_at(std::size_t height) const;
  result<Hash256> filter_hash_at(std::size_t height) const;

  // Ends the work that could take long (filter headers made for a wide
  // range): what is under way returns std::errc::operation_canceled at the
  // next block. For a server stopping; safe from any thread.
  void stop() noexcept { stopping_ = true; }

  // The directory and its index, for as long as the lock returned lives.
  std::shared_lock<std::shared_mutex> lock() const { return std::shared_lock(mutex_); }
  const BlocksDirectory& directory() const noexcept { return dir_; }
  const BlockIndex& index() const noexcept { return dir_.index(); }
  const XorKey& key() const noexcept { return dir_.key(); }

 private:
  mutable std::shared_mutex mutex_;
  std::atomic<bool> stopping_{false};
  BlocksDirectory dir_;
  // Filters: whether they are served (under mutex_), the kept file, and
  // the filter hashes and headers computed so far, each with its block's
  // hash (under filters_mutex_, taken after mutex_).
  bool filters_ = false;
  std::optional<FilterFile> kept_;  // what `blockwire filters` made, read when filters were enabled
  struct FilterEntry {
    Hash256 block;
    Hash256 filter_hash;
    Hash256 header;
  };
  mutable std::mutex filters_mutex_;
  mutable std::vector<FilterEntry> headers_;
  result<FilterEntry> entry_at(std::size_t height) const;
  result<filters::GcsFilter> filter_locked(std::size_t height) const;
};

// Wakes a peer's thread when the tip moved, through an eventfd its loop
// polls beside the socket. notify() is safe from any thread.
class TipSignal {
 public:
  TipSignal();
  void notify() noexcept;
  int fd() const noexcept { return fd_.get(); }
  void clear() noexcept;

 private:
  FileDescriptor fd_;
};

// What serve_peer may send unasked, and how much.
inline constexpr std::size_t max_blocks_to_announce = 8;  // Core's MAX_BLOCKS_TO_ANNOUNCE: more, and a headers peer gets an inv of the tip
inline constexpr std::size_t max_getblocks_inv = 500;     // Core's limit for an inv answering getblocks
inline constexpr int max_cmpctblock_depth = 5;            // Core's MAX_CMPCTBLOCK_DEPTH: deeper, a cmpctblock request gets the block
inline constexpr int max_blocktxn_depth = 10;             // Core's MAX_BLOCKTXN_DEPTH: deeper, a getblocktxn gets the block

// Answers the peer, the handshake done, until it goes away (success) or
// misbehaves (the error receive() reported, or the code of a request Core
// disconnects for: getblocktxn_past_end, the filter_ codes). First it
// sends sendcmpct(0, 2) to a peer of protocol 70014 or later, as Core does
// after the handshake: we can serve compact blocks, so the peer may pick
// us to announce new blocks by cmpctblock (high bandwidth). With `tips`,
// the peer is told of each new tip: a cmpctblock for a single new block to
// a peer that asked for high-bandwidth compact blocks, headers (up to 8)
// to one that sent sendheaders, else an inv of the tip. With `watch`, the
// peer is pinged every watch->ping_interval (Core's PING_INTERVAL, 2
// minutes) and dropped when a ping is unanswered for 20 minutes (Core's
// TIMEOUT_INTERVAL); `watch` tells a server how the peer is doing.
struct PeerWatch {
  std::chrono::milliseconds ping_interval{std::chrono::minutes(2)};
  // (steady clock ticks; 0: none) the peer's last request for data
  // (headers, blocks, filters), and since when a ping of ours is unanswered.
  std::atomic<std::int64_t> asked{0};
  std::atomic<std::int64_t> ping_unanswered_since{0};
};
result<void> serve_peer(Connection& peer, const BlockStore& store, TipSignal* tips = nullptr, PeerWatch* watch = nullptr);

}  // namespace blockwire::net
