// What `blockwire scan` found, and its two report formats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace blockwire::cli {

struct Problem {
  std::size_t file;              // index into ScanResult::files
  std::uint64_t offset;          // in that file
  std::uint64_t skipped_bytes;   // bytes skipped to the next record
  std::string reason;
  bool failed_block = false;     // a record whose block does not decode or fails its checks
};

struct ScanResult {
  std::vector<std::string> files;
  std::uint64_t bytes = 0;  // of every file
  std::uint64_t blocks = 0;
  std::uint64_t transactions = 0;
  std::uint64_t block_bytes = 0;
  std::vector<Problem> problems;  // in file and offset order
  std::string io_failure;         // empty when every file was read
  double seconds = 0;

  std::size_t failed_blocks() const;
  std::uint64_t skipped_bytes() const;
  bool ok() const { return problems.empty() && io_failure.empty(); }
};

void print_text_report(const ScanResult& r);
void print_json_report(const ScanResult& r);

}  // namespace blockwire::cli
