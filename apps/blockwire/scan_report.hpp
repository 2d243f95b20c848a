// What `blockwire scan` found, and its two report formats. Memory does not
// grow with the damage: the counts are exact, but only the first
// max_listed_problems are kept to list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace blockwire::cli {

inline constexpr std::size_t max_listed_problems = 1000;

struct Problem {
  std::size_t file;              // index into ScanResult::files
  std::uint64_t offset;          // in that file
  std::uint64_t skipped_bytes;   // bytes skipped to the next record
  std::string reason;
  bool failed_block = false;     // a record whose block does not decode or fails its checks
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
  double seconds = 0;

  void add(Problem p);
  bool ok() const { return problem_count == 0 && io_failure.empty(); }
};

void print_text_report(const ScanResult& r);
void print_json_report(const ScanResult& r);

}  // namespace blockwire::cli
