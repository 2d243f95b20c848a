// blockwire scan: scan_block_files on the paths given, with a progress bar
// on a terminal, and the report as text or JSON.
#include "commands.hpp"
#include "directory_options.hpp"
#include "progress.hpp"
#include "scan_report.hpp"

#include <blockwire/directory/scan.hpp>

#include <blockwire/blockfiles.hpp>

#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace blockwire::cli {

int scan(const ScanOptions& o) {
  auto key = key_option("scan", o.xor_key);
  if (const int* status = std::get_if<int>(&key)) return *status;
  ScanSpec spec;
  // A blocks directory with no blk file yet (just made): no blocks yet,
  // said, not an error.
  for (const std::string& path : o.paths) {
    std::error_code ec;
    auto files =
        std::filesystem::is_directory(path, ec) ? block_files(path) : result<std::vector<std::string>>(std::vector<std::string>{path});
    if (files && files.value().empty()) {
      std::fprintf(stderr, "blockwire scan: %s: no blocks yet (no blk*.dat file)\n", path.c_str());
      continue;
    }
    spec.paths.push_back(path);
  }
  if (spec.paths.empty()) return ok;
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
  if (result.ok() && result.blocks == 0 && result.problem_count == 0) {
    std::fprintf(stderr, "blockwire scan: no blocks yet (the blk files hold no record)\n");
  }
  return result.ok() ? ok : bad_data;
}

}  // namespace blockwire::cli
