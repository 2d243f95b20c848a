#include "scan_report.hpp"

#include "text.hpp"

#include <blockwire/tables/json_writer.hpp>

#include <cstdio>

namespace blockwire::cli {

namespace {

double mb_per_s(const ScanResult& r) { return r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds / 1e6 : 0; }

}  // namespace

void print_text_report(const ScanResult& r) {
  std::printf("scanned %s, %s, %s, %.1f MB in %.2f s (%.0f MB/s)\n", count_of(r.files.size(), "file").c_str(),
              count_of(r.blocks, "block").c_str(), count_of(r.transactions, "transaction").c_str(), static_cast<double>(r.bytes) / 1e6,
              r.seconds, mb_per_s(r));
  if (r.blocks == 0 && r.failed_blocks == 0) {
    std::printf("no blocks found\n");
  } else {
    std::printf("every block decoded, passed check_block and re-encoded to the same bytes: %s\n", r.failed_blocks == 0 ? "yes" : "NO");
  }
  for (const std::string& where : r.being_written) {
    std::printf("being written (a writer holds the directory's lock): read up to the last whole record, %s\n", where.c_str());
  }
  if (r.undo_files != 0) {
    std::printf("undo data: %s in %s, each paired with its block (counts, checksum over the parent): %s\n",
                count_of(r.undo_records, "record").c_str(), count_of(r.undo_files, "rev file").c_str(),
                r.undo_verified == r.undo_records ? "yes" : "NO");
  }
  if (r.problem_count == 0) return;
  std::printf("%s (%s, %s skipped):\n", count_of(r.problem_count, "problem").c_str(), count_of(r.failed_blocks, "failed block").c_str(),
              count_of(r.skipped_bytes, "byte").c_str());
  for (const ScanProblem& p : r.problems) {
    const std::string where = r.files[p.file] + ":" + std::to_string(p.offset);
    if (p.skipped_bytes != 0) {
      std::printf("  %s: %s skipped: %s\n", where.c_str(), count_of(p.skipped_bytes, "byte").c_str(), p.reason.c_str());
    } else {
      std::printf("  %s: %s\n", where.c_str(), p.reason.c_str());
    }
  }
  if (r.problem_count > r.problems.size()) {
    std::printf("  ... and %s not listed\n", count_of(r.problem_count - r.problems.size(), "more problem").c_str());
  }
}

void print_json_report(const ScanResult& r) {
  tables::JsonWriter out;
  out.begin_object();
  out.member_uint("files", r.files.size());
  out.member_uint("blocks", r.blocks);
  out.member_uint("transactions", r.transactions);
  out.member_uint("bytes", r.bytes);
  out.member_uint("block_bytes", r.block_bytes);
  out.member_number("seconds", r.seconds);
  out.member_number("mb_per_s", mb_per_s(r));
  out.member_uint("failed_blocks", r.failed_blocks);
  out.member_uint("skipped_bytes", r.skipped_bytes);
  out.member_uint("undo_files", r.undo_files);
  out.member_uint("undo_records", r.undo_records);
  out.member_uint("undo_verified", r.undo_verified);
  out.member_uint("problem_count", r.problem_count);
  out.key("problems");  // the first max_listed_problems
  out.begin_array();
  for (const ScanProblem& p : r.problems) {
    out.begin_object();
    out.member_string("file", r.files[p.file]);
    out.member_uint("offset", p.offset);
    out.member_uint("skipped_bytes", p.skipped_bytes);
    out.member_boolean("failed_block", p.failed_block);
    out.member_string("reason", p.reason);
    out.end_object();
  }
  out.end_array();
  if (!r.being_written.empty()) {
    out.key("being_written");
    out.begin_array();
    for (const std::string& where : r.being_written) out.string(where);
    out.end_array();
  }
  if (!r.io_failure.empty()) {
    out.member_string("io_error", r.io_failure);
  }
  out.member_boolean("ok", r.ok());
  out.end_object();
}

}  // namespace blockwire::cli
