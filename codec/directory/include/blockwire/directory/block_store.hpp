// A blocks directory shared by many readers (a server's peers or
// requests) while one thread refreshes it, with its BIP157 filters and
// filter headers made once and kept.
#pragma once

#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/filter_file.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/io/error.hpp>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <vector>

namespace blockwire {

// A directory's index, shared by every reader's thread and refreshed by one:
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
  result<filters::GcsFilter> filter_at(Height height) const;
  result<Hash256> filter_header_at(Height height) const;
  result<Hash256> filter_hash_at(Height height) const;

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
    BlockHash block = BlockHash::all_zeros();
    Hash256 filter_hash;
    Hash256 header;
  };
  mutable std::mutex filters_mutex_;
  mutable std::vector<FilterEntry> headers_;
  result<FilterEntry> entry_at(Height height) const;
  result<filters::GcsFilter> filter_locked(Height height) const;
};

}  // namespace blockwire
