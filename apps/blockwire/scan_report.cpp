#include "scan_report.hpp"
#include "text.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace blockwire::cli {

std::size_t ScanResult::failed_blocks() const {
  std::size_t n = 0;
  for (const Problem& p : problems) n += p.failed_block ? 1 : 0;
  return n;
}

std::uint64_t ScanResult::skipped_bytes() const {
  std::uint64_t n = 0;
  for (const Problem& p : problems) n += p.skipped_bytes;
  return n;
}

namespace {

double mb_per_s(const ScanResult& r) { return r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds / 1e6 : 0; }

}  // namespace

void print_text_report(const ScanResult& r) {
  std::printf("scanned %s, %s, %s, %.1f MB in %.2f s (%.0f MB/s)\n", count_of(r.files.size(), "file").c_str(),
              count_of(r.blocks, "block").c_str(), count_of(r.transactions, "transaction").c_str(), static_cast<double>(r.bytes) / 1e6,
              r.seconds, mb_per_s(r));
  const std::size_t failed = r.failed_blocks();
  if (r.blocks == 0 && failed == 0) {
    std::printf("no blocks found\n");
  } else {
    std::printf("every block decoded, passed check_block and re-encoded to the same bytes: %s\n", failed == 0 ? "yes" : "NO");
  }
  if (r.problems.empty()) return;
  std::printf("%s (%s, %s skipped):\n", count_of(r.problems.size(), "problem").c_str(), count_of(failed, "failed block").c_str(),
              count_of(r.skipped_bytes(), "byte").c_str());
  for (const Problem& p : r.problems) {
    const std::string where = r.files[p.file] + ":" + std::to_string(p.offset);
    if (p.skipped_bytes != 0) {
      std::printf("  %s: %s skipped: %s\n", where.c_str(), count_of(p.skipped_bytes, "byte").c_str(), p.reason.c_str());
    } else {
      std::printf("  %s: %s\n", where.c_str(), p.reason.c_str());
    }
  }
}

void print_json_report(const ScanResult& r) {
  nlohmann::ordered_json j;
  j["files"] = r.files.size();
  j["blocks"] = r.blocks;
  j["transactions"] = r.transactions;
  j["bytes"] = r.bytes;
  j["block_bytes"] = r.block_bytes;
  j["seconds"] = r.seconds;
  j["mb_per_s"] = mb_per_s(r);
  j["failed_blocks"] = r.failed_blocks();
  j["skipped_bytes"] = r.skipped_bytes();
  nlohmann::ordered_json problems = nlohmann::ordered_json::array();
  for (const Problem& p : r.problems) {
    problems.push_back({{"file", r.files[p.file]}, {"offset", p.offset}, {"skipped_bytes", p.skipped_bytes}, {"reason", p.reason}});
  }
  j["problems"] = problems;
  if (!r.io_failure.empty()) j["io_error"] = r.io_failure;
  j["ok"] = r.ok();
  std::cout << j.dump(2) << '\n';
}

}  // namespace blockwire::cli
