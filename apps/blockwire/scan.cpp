// blockwire scan: scan_block_files on the paths given, with a progress bar
// on a terminal, and the report as text or JSON.
#include "commands.hpp"
#include "directory_options.hpp"
#include "progress.hpp"
#include "scan_report.hpp"

#include <blockwire/directory/scan.hpp>

#include <cstdio>
#include <unistd.h>

namespace blockwire::cli {

int scan(const ScanOptions& o) {
  auto key = key_option("scan", o.xor_key);
  if (const int* status = std::get_if<int>(&key)) return *status;
  ScanSpec spec;
  spec.paths = o.paths;
  spec.key = std::get<0>(key);
  if (!o.net_from_records) spec.net = o.net;
  spec.threads = o.threads;
  std::optional<Progress> progress;
  spec.progress = [&](std::uint64_t done, std::uint64_t total, std::uint64_t records) {
    if (!progress) progress.emplace(o.progress && ::isatty(STDERR_FILENO) != 0 && !o.json, total, "block");
    progress->update(done, records);
  };
  const ScanResult result = scan_block_files(spec);
  if (progress) progress->finish();
  if (!result.unusable.empty()) {
    std::fprintf(stderr, "blockwire scan: %s\n", result.unusable.c_str());
    return usage_or_io;
  }
  if (o.json) {
    print_json_report(result);
  } else {
    print_text_report(result);
  }
  if (!result.io_failure.empty()) {
    std::fprintf(stderr, "blockwire scan: %s\n", result.io_failure.c_str());
    return usage_or_io;
  }
  return result.ok() ? ok : bad_data;
}

}  // namespace blockwire::cli
