#include <blockwire/directory/block_store.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/io/sha256.hpp>

#include <mutex>

namespace blockwire {

result<bool> BlockStore::refresh() {
  const std::unique_lock lock(mutex_);
  return dir_.refresh();
}

result<bool> BlockStore::enable_filters() {
  std::vector<BlockHash> chain;
  {
    const std::unique_lock lock(mutex_);
    if (!dir_.has_undo()) return false;
    for (const Height h : dir_.chain_size().heights()) chain.push_back(dir_.at_height(h).hash);
  }
  // The kept filters: their headers seed the cache, their bytes are read
  // instead of made (each checked against its block and hash when read).
  auto kept = FilterFile::read(dir_.path(), chain);
  if (!kept) return kept.error();
  {
    const std::unique_lock lock(mutex_);
    filters_ = true;
  }
  const std::lock_guard guard(filters_mutex_);
  headers_.clear();
  for (const Height h : kept.value().size().heights())
    headers_.push_back({chain[h.to_wire()], kept.value().filter_hash(h), kept.value().header(h)});
  kept_ = std::move(kept).value();
  return true;
}

bool BlockStore::has_filters() const {
  const auto lock = this->lock();
  return filters_;
}

result<filters::GcsFilter> BlockStore::filter_at(Height height) const {
  const auto lock = this->lock();
  return filter_locked(height);
}

// The index locked (shared) by the caller.
result<filters::GcsFilter> BlockStore::filter_locked(Height height) const {
  if (!filters_) return directory::errc::no_filters;
  if (!dir_.chain_size().contains(height)) return directory::errc::past_tip;
  const IndexedBlock b = dir_.at_height(height);
  if (kept_ && kept_->size().contains(height) && kept_->block(height) == b.hash) {
    // Kept by `blockwire filters`; a writer may have cut and rewritten the
    // file since: used only if it still hashes as it did.
    auto bytes = kept_->filter(height);
    if (bytes && sha256d(bytes.value()) == kept_->filter_hash(height)) {
      auto filter = filters::GcsFilter::decode(filters::basic_params(b.hash), bytes.value());
      if (filter) return filter;
    }
  }
  return dir_.basic_filter(b);
}

result<Hash256> BlockStore::filter_hash_at(Height height) const {
  auto e = entry_at(height);
  if (!e) return e.error();
  return e.value().filter_hash;
}

result<Hash256> BlockStore::filter_header_at(Height height) const {
  auto e = entry_at(height);
  if (!e) return e.error();
  return e.value().header;
}

// Locks: the index (shared), then the cache, never the other way round.
// The cache holds headers from genesis, contiguous: an entry whose block
// is the best chain's at its height has only best-chain entries below it.
result<BlockStore::FilterEntry> BlockStore::entry_at(Height height) const {
  const auto lock = this->lock();
  if (!dir_.chain_size().contains(height)) return directory::errc::past_tip;
  // (headers_ is by height: `at` is the entry's place)
  const std::size_t at = height.to_wire();
  const auto hash_at = [&](std::size_t h) { return dir_.at_height(*Height::checked(h)).hash; };
  const std::lock_guard guard(filters_mutex_);
  if (at < headers_.size() && headers_[at].block == hash_at(at)) return headers_[at];
  // Below a fork (a reorg since they were made) the entries stay; from it
  // on they go. Then the missing ones are made, in order.
  std::size_t from = std::min(headers_.size(), at + 1);
  while (from > 0 && headers_[from - 1].block != hash_at(from - 1)) --from;
  headers_.resize(from);
  Hash256 previous = from > 0 ? headers_[from - 1].header : Hash256{};
  for (const Height h : BlockCount::through(height).heights(*Height::checked(from))) {
    if (stopping_) return std::make_error_code(std::errc::operation_canceled);
    auto filter = filter_locked(h);
    if (!filter) return filter.error();
    const Hash256 hash = filters::filter_hash(filter.value());
    previous = filters::filter_header(hash, previous);
    headers_.push_back({dir_.at_height(h).hash, hash, previous});
  }
  return headers_[at];
}

}  // namespace blockwire
