// What `blockwire scan` found, and its two report formats. Memory does not
// grow with the damage: the counts are exact, but only the first
// max_listed_problems are kept to list.
#pragma once

#include <blockwire/io/hash256.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace blockwire::cli {

inline constexpr std::size_t max_listed_problems = 1000;

struct Problem {
  std::size_t file;             // index into ScanResult::files
  std::uint64_t offset;         // in that file
  std::uint64_t skipped_bytes;  // bytes skipped to the next record
  std::string reason;
  bool failed_block = false;  // a record whose block does not decode or fails its checks
};

// What pairs a block with its undo record: its shape and its parent, and
// its own hash (the next record's block is its child).
struct UndoKey {
  std::uint64_t shape;
  Hash256 parent;
  Hash256 hash;
};

struct ScanResult {
  std::vector<std::string> files;
  std::uint64_t bytes = 0;  // of the files read (a file that could not be read is not counted)
  std::uint64_t blocks = 0;
  std::uint64_t transactions = 0;
  std::uint64_t block_bytes = 0;
  std::vector<Problem> problems;  // the first max_listed_problems found, in file and offset order once sorted
  std::uint64_t problem_count = 0;
  std::uint64_t failed_blocks = 0;
  std::uint64_t skipped_bytes = 0;
  std::string io_failure;  // empty when every file was read
  // A directory a writer holds the lock of: where reading stopped, before
  // a record being written ("DIR/blk00003.dat at byte N"); empty otherwise.
  std::vector<std::string> being_written;
  // Undo data (directories with rev files): each blk file's blocks' keys,
  // gathered by the checking threads where collect_undo_keys says so.
  std::vector<bool> collect_undo_keys;
  std::vector<std::vector<UndoKey>> undo_keys;
  std::uint64_t undo_files = 0;
  std::uint64_t undo_records = 0;   // read
  std::uint64_t undo_verified = 0;  // paired with a block: shape and checksum
  double seconds = 0;

  void add(Problem p);
  bool ok() const { return problem_count == 0 && io_failure.empty(); }
};

void print_text_report(const ScanResult& r);
void print_json_report(const ScanResult& r);

}  // namespace blockwire::cli
