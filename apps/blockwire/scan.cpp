// blockwire scan: every block of blk files or blocks directories, decoded,
// checked (check_block) and re-encoded to the same bytes. One reader (this
// thread, scan_records.cpp) frames and validates records; workers
// (scan_pipeline.cpp) check them; scan_report.cpp prints what was found.
#include "commands.hpp"
#include "progress.hpp"
#include "scan_pipeline.hpp"
#include "scan_records.hpp"
#include "scan_report.hpp"
#include "xor_key.hpp"

#include <blockwire/blockfiles.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace blockwire::cli {

namespace {

namespace fs = std::filesystem;

// The files the paths name, each with its key; a message when one cannot be used.
std::string list_files(const ScanOptions& o, std::vector<FileToScan>& files, ScanResult& result, std::uint64_t& total_bytes) {
  for (const std::string& path : o.paths) {
    std::error_code ec;
    const bool dir = fs::is_directory(path, ec);
    if (!dir && !fs::is_regular_file(path, ec)) {
      if (!fs::exists(path, ec)) return path + ": no such file or directory";
      return path + ": not a blk file or a blocks directory (a FIFO, device or socket)";
    }
    std::vector<std::string> found{path};
    if (dir) {
      auto listed = block_files(path);
      if (!listed) return path + ": " + listed.error().message();
      if (listed.value().empty()) return path + ": no blk*.dat files";
      found = std::move(listed).value();
    }
    auto key = resolve_xor_key(path, o.xor_key);
    if (!key) return xor_key_problem(path, o.xor_key, key.error());
    const network net = o.net_from_records ? network_of(path, key.value()).value_or(o.net) : o.net;
    for (const std::string& file : found) {
      const auto size = fs::file_size(file, ec);
      if (ec) return file + ": " + ec.message();
      files.push_back({result.files.size(), file, key.value(), total_bytes, size, net});
      result.files.push_back(file);
      total_bytes += size;
    }
  }
  return {};
}

}  // namespace

int scan(const ScanOptions& o) {
  ScanResult result;
  std::vector<FileToScan> files;
  std::uint64_t total_bytes = 0;
  if (const std::string problem = list_files(o, files, result, total_bytes); !problem.empty()) {
    std::fprintf(stderr, "blockwire scan: %s\n", problem.c_str());
    return usage_or_io;
  }

  const auto start = std::chrono::steady_clock::now();
  Progress progress(o.progress && ::isatty(STDERR_FILENO) != 0 && !o.json, total_bytes, "block");
  CheckPipeline pipeline(o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency()), result);
  std::uint64_t records = 0;
  for (const FileToScan& file : files) {
    if (auto r = scan_records(file, file.net, pipeline, progress, records); !r) {
      result.io_failure = file.path + ": " + r.error().message();
      break;
    }
    result.bytes += file.size;  // only what was read counts as scanned
  }
  pipeline.finish();
  progress.finish();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(result.problems.begin(), result.problems.end(),
            [](const Problem& a, const Problem& b) { return std::tie(a.file, a.offset) < std::tie(b.file, b.offset); });

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
