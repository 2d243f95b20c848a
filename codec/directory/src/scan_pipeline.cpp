#include "scan_pipeline.hpp"

#include <blockwire/undo.hpp>

#include <blockwire/codec.hpp>

#include <cstring>
#include <optional>

namespace blockwire::detail {

CheckPipeline::CheckPipeline(unsigned threads, ScanResult& result, UndoKeys& undo)
    : capacity_(2 * std::size_t{threads}), result_(result), undo_(undo) {
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

CheckPipeline::~CheckPipeline() { finish(); }

std::vector<std::byte> CheckPipeline::buffer() {
  std::lock_guard lock(mutex_);
  if (free_buffers_.empty()) return {};
  std::vector<std::byte> v = std::move(free_buffers_.back());
  free_buffers_.pop_back();
  return v;
}

void CheckPipeline::submit(Work w) {
  std::unique_lock lock(mutex_);
  not_full_.wait(lock, [&] { return queue_.size() < capacity_; });
  queue_.push_back(std::move(w));
  not_empty_.notify_one();
}

void CheckPipeline::add_problem(ScanProblem p) {
  std::lock_guard lock(mutex_);
  result_.add(std::move(p));
}

std::optional<Work> CheckPipeline::pop() {
  std::unique_lock lock(mutex_);
  not_empty_.wait(lock, [&] { return !queue_.empty() || closed_; });
  if (queue_.empty()) return std::nullopt;
  Work w = std::move(queue_.front());
  queue_.pop_front();
  not_full_.notify_one();
  return w;
}

void CheckPipeline::finish() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
  }
  for (auto& t : workers_) t.join();
  workers_.clear();
}

// A worker: decodes into a block of its own (allocations stay in this
// thread) with the ids hashed from the bytes, checks, re-encodes into a
// buffer of its own, compares.
void CheckPipeline::work() {
  Block block;
  std::vector<TxIds> ids;
  std::vector<std::byte> again;
  while (auto w = pop()) {
    std::string failure;
    if (auto decoded = decode_block(w->bytes, block, ids); !decoded) {
      failure = "block does not decode: " + decoded.error().message();  // the reader decoded it: never expected
    } else if (auto r = check_block(block, ids); !r) {
      failure = r.error().message();
    } else {
      again.clear();
      encode_block(block, again);
      // memcmp: vector<std::byte>'s operator== compares byte by byte here.
      if (again.size() != w->bytes.size() || std::memcmp(again.data(), w->bytes.data(), again.size()) != 0) {
        failure = "re-encoding gives different bytes";
      }
    }
    // The block's walk for its undo key before the lock all workers share
    // (undo_.collect is fixed before they start).
    std::optional<UndoKey> undo_key;
    if (failure.empty() && undo_.collect[w->file]) undo_key = UndoKey{undo_shape(block), block.header.prev_block, block_hash(block.header)};
    std::lock_guard lock(mutex_);
    ++result_.blocks;
    result_.transactions += block.transactions.size();
    if (undo_key) undo_.keys[w->file].push_back(*undo_key);
    result_.block_bytes += w->bytes.size();
    if (!failure.empty()) result_.add({w->file, w->offset, 0, std::move(failure), true});
    free_buffers_.push_back(std::move(w->bytes));
  }
}

}  // namespace blockwire::detail
