// Checking blk files and blocks directories whole: every block framed,
// decoded, checked (check_block) and re-encoded to the same bytes, on every
// core; a directory's rev files too, every record decoded and paired with
// its block. What is wrong is listed with its file and byte. Memory stays
// bounded whatever the size: a queue of blocks, the first
// max_listed_problems problems (the counts are exact), a few words a block
// for pairing undo records.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/io/xor.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace blockwire {

inline constexpr std::size_t max_listed_problems = 1000;

struct ScanProblem {
  std::size_t file;             // index into ScanResult::files
  std::uint64_t offset;         // in that file
  std::uint64_t skipped_bytes;  // bytes skipped to the next record
  std::string reason;
  bool failed_block = false;  // a record whose block does not decode or fails its checks
};

struct ScanResult {
  // Why nothing was read (a path that is not there, not a blk file or a
  // directory, a directory with no blk files, a bad xor.dat); empty when
  // the scan ran.
  std::string unusable;
  std::vector<std::string> files;
  std::uint64_t bytes = 0;  // of the files read (a file that could not be read is not counted)
  std::uint64_t blocks = 0;
  std::uint64_t transactions = 0;
  std::uint64_t block_bytes = 0;
  std::vector<ScanProblem> problems;  // the first max_listed_problems found, in file and offset order
  std::uint64_t problem_count = 0;
  std::uint64_t failed_blocks = 0;
  std::uint64_t skipped_bytes = 0;
  std::string io_failure;  // empty when every file was read
  // A directory a writer holds the lock of: where reading stopped, before
  // a record being written ("DIR/blk00003.dat at byte N"); empty otherwise.
  std::vector<std::string> being_written;
  std::uint64_t undo_files = 0;
  std::uint64_t undo_records = 0;   // read
  std::uint64_t undo_verified = 0;  // paired with a block: shape and checksum
  double seconds = 0;

  void add(ScanProblem p);
  bool ok() const { return unusable.empty() && problem_count == 0 && io_failure.empty(); }
};

struct ScanSpec {
  std::vector<std::string> paths;  // blk files and blocks directories
  std::optional<XorKey> key;       // default: each path's xor.dat
  std::optional<network> net;      // default: each path's first record's magic
  unsigned threads = 0;            // checking threads; 0: one a core
  // Bytes read so far (of total) and records found, as reading goes.
  std::function<void(std::uint64_t done, std::uint64_t total, std::uint64_t records)> progress;
};

ScanResult scan_block_files(const ScanSpec& spec);

}  // namespace blockwire
