// The checking half of scan_block_files: worker threads take blocks from a
// bounded queue, decode them into blocks of their own, run check_block and
// re-encode. Memory stays bounded by the queue, whatever the directory's
// size; block buffers go back to a pool instead of being freed (a fresh
// megabyte allocation costs page faults).
#pragma once

#include <blockwire/directory/scan.hpp>
#include <blockwire/io/hash256.hpp>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace blockwire::detail {

// What pairs a block with its undo record: its shape and its parent, and
// its own hash (the next record's block is its child).
struct UndoKey {
  std::uint64_t shape;
  BlockHash parent = BlockHash::all_zeros();
  BlockHash hash = BlockHash::all_zeros();
};

// Each file's blocks' keys, gathered by the checking threads for the files
// `collect` says (the blk files of directories with rev files; fixed
// before the threads start).
struct UndoKeys {
  std::vector<bool> collect;
  std::vector<std::vector<UndoKey>> keys;
};

struct Work {
  std::size_t file;
  std::uint64_t offset;
  std::vector<std::byte> bytes;  // the block
};

class CheckPipeline {
 public:
  // Tallies and problems go into `result`, undo keys into `undo` (under
  // the pipeline's lock).
  CheckPipeline(unsigned threads, ScanResult& result, UndoKeys& undo);
  ~CheckPipeline();  // finishes
  CheckPipeline(const CheckPipeline&) = delete;
  CheckPipeline& operator=(const CheckPipeline&) = delete;

  // A buffer for the next Work, recycled when one is free.
  std::vector<std::byte> buffer();
  // Waits while the queue is full.
  void submit(Work w);
  void add_problem(ScanProblem p);
  // Waits for every block to be checked: then `result` is complete.
  void finish();

 private:
  void work();
  std::optional<Work> pop();

  std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<Work> queue_;
  std::size_t capacity_;
  bool closed_ = false;
  std::vector<std::vector<std::byte>> free_buffers_;
  ScanResult& result_;
  UndoKeys& undo_;
  std::vector<std::thread> workers_;
};

}  // namespace blockwire::detail
