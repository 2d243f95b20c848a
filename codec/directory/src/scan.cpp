// scan_block_files: one reader (this thread, scan_records.cpp) frames and
// validates records; workers (scan_pipeline.cpp) check them; then each
// directory's rev files are read and paired with the blocks found.
#include "scan_pipeline.hpp"
#include "scan_records.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/directory/scan.hpp>
#include <blockwire/undo.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>
#include <tuple>
#include <functional>

namespace blockwire {

namespace {

namespace fs = std::filesystem;
using detail::CheckPipeline;
using detail::FileToScan;
using detail::UndoKey;
using detail::UndoKeys;

// A blocks directory with rev files: its blk files' places in the result,
// by number, for pairing.
struct UndoDir {
  std::string path;
  XorKey key;
  network net;
  std::map<unsigned, std::size_t> blk_files;  // N -> index in ScanResult::files
  std::vector<std::string> rev_files;
  bool being_written = false;  // a writer holds the lock: a record cut short at a file's end is being written
  // Where each rev file's records ended when the files were listed, before
  // the blk files were read (undo_records_end: Core pre-allocates rev files
  // with zeros, so their size says nothing): records past it are of blocks
  // appended since (a live node writes them after their blocks), not
  // checked against blocks not read.
  std::vector<std::uint64_t> rev_sizes;
};

// The files the paths name, each with its key; a message when one cannot be used.
std::string list_files(const ScanSpec& spec, std::vector<FileToScan>& files, ScanResult& result, UndoKeys& undo_keys,
                       std::uint64_t& total_bytes, std::vector<UndoDir>& undo_dirs) {
  for (const std::string& path : spec.paths) {
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
    auto format = record_format(path, spec.key, spec.net);
    if (!format) return xor_key_error_message(path, format.error());
    const XorKey& key = format.value().key;
    const network net = format.value().net;
    const bool live = dir && being_written(path);
    std::optional<UndoDir> undo;
    if (dir) {
      auto revs = undo_files(path);
      if (!revs) return path + ": " + revs.error().message();
      if (!revs.value().empty()) {
        undo = UndoDir{path, key, net, {}, std::move(revs).value(), live, {}};
        for (const std::string& rev : undo->rev_files) {
          auto records_end = undo_records_end(rev, key, net);
          if (!records_end) return rev + ": " + records_end.error().message();
          undo->rev_sizes.push_back(records_end.value());
        }
      }
    }
    for (const std::string& file : found) {
      const auto size = fs::file_size(file, ec);
      if (ec) return file + ": " + ec.message();
      if (undo) undo->blk_files.emplace(*block_file_number(fs::path(file).filename().string()), result.files.size());
      files.push_back({result.files.size(), file, key, total_bytes, size, net, live && &file == &found.back()});
      result.files.push_back(file);
      undo_keys.collect.push_back(undo.has_value());
      total_bytes += size;
    }
    if (undo) undo_dirs.push_back(std::move(*undo));
  }
  undo_keys.keys.resize(result.files.size());
  return {};
}

// Every record of the directory's rev files: it must decode, and pair with
// a block of the same-numbered blk file by shape (its transaction and
// input counts) and by its checksum over that block's parent, in one pass
// that follows the chain (UndoPairer). What does not is a problem, like a
// damaged blk record.
result<void> verify_undo(const UndoDir& d, network net, const UndoKeys& undo_keys, ScanResult& result) {
  for (std::size_t f = 0; f < d.rev_files.size(); ++f) {
    const std::string& path = d.rev_files[f];
    const std::uint64_t listed_size = d.rev_sizes[f];
    const std::size_t index = result.files.size();
    result.files.push_back(path);
    ++result.undo_files;
    const unsigned number = *undo_file_number(fs::path(path).filename().string());
    const auto blk = d.blk_files.find(number);
    std::vector<UndoPairer::Candidate> blocks;
    if (blk != d.blk_files.end()) {
      for (const UndoKey& k : undo_keys.keys[blk->second]) blocks.push_back({k.hash, k.parent, k.shape});
    }
    const bool any_blocks = !blocks.empty();
    UndoPairer pairer(std::move(blocks));
    auto reader = UndoFileReader::open(path, d.key, net);
    if (!reader) return reader.error();
    for (;;) {
      auto record = reader.value().next();
      if (!record) {
        if (record.error().is_io()) return record.error();
        std::error_code ec;
        const auto size = fs::file_size(path, ec);
        const std::uint64_t at = record.error().offset();
        if (d.being_written && record.error().code() == undo::errc::truncated_record) {
          result.being_written.push_back(path + " at byte " + std::to_string(at));
        } else {
          result.add({index, at, size > at ? size - at : 0, record.error().code().message(), false});
        }
        break;
      }
      if (!record.value()) break;
      const UndoRecord& r = *record.value();
      if (r.offset >= listed_size) break;  // appended while the blk files were read
      ++result.undo_records;
      auto undo = decode_block_undo(r.bytes);
      if (!undo) {
        result.add({index, r.offset, 0, "undo data does not decode: " + undo.error().message(), false});
        continue;
      }
      if (pairer.pair(r.bytes, r.checksum, undo_shape(undo.value()))) {
        ++result.undo_verified;
      } else {
        result.add({index, r.offset, 0,
                    std::string(!any_blocks ? "the same-numbered blk file has no block for it"
                                : pairer.budget_spent()
                                    ? "pairs with no block of the same-numbered blk file (the search budget for this file is spent)"
                                    : "pairs with no block of the same-numbered blk file (no block with its transaction and input counts "
                                      "whose parent its checksum covers)"),
                    false});
      }
    }
  }
  return success();
}

}  // namespace

void ScanResult::add(ScanProblem p) {
  ++problem_count;
  failed_blocks += p.failed_block ? 1 : 0;
  skipped_bytes += p.skipped_bytes;
  if (problems.size() < max_listed_problems) problems.push_back(std::move(p));
}

ScanResult scan_block_files(const ScanSpec& spec) {
  ScanResult result;
  UndoKeys undo_keys;
  std::vector<FileToScan> files;
  std::uint64_t total_bytes = 0;
  std::vector<UndoDir> undo_dirs;
  if (std::string problem = list_files(spec, files, result, undo_keys, total_bytes, undo_dirs); !problem.empty()) {
    result.unusable = std::move(problem);
    return result;
  }
  const auto start = std::chrono::steady_clock::now();
  const std::function<void(std::uint64_t, std::uint64_t)> progress =
      spec.progress ? std::function<void(std::uint64_t, std::uint64_t)>(
                          [&](std::uint64_t done, std::uint64_t records) { spec.progress(done, total_bytes, records); })
                    : nullptr;
  // The network as the files say it when they are read, not when they were
  // listed: a directory a node has just made holds only pre-allocated
  // zeros then, and its first record may be there by now.
  const auto network_now = [&](const std::string& path, const XorKey& key, network listed) {
    return spec.net ? *spec.net : network_of(path, key).value_or(listed);
  };
  CheckPipeline pipeline(spec.threads != 0 ? spec.threads : std::max(1u, std::thread::hardware_concurrency()), result, undo_keys);
  std::uint64_t records = 0;
  for (const FileToScan& file : files) {
    const network net = network_now(file.path, file.key, file.net);
    auto r = scan_records(file, net, pipeline, progress, records);
    if (!r) {
      result.io_failure = file.path + ": " + r.error().message();
      break;
    }
    if (r.value()) result.being_written.push_back(file.path + " at byte " + std::to_string(*r.value()));
    result.bytes += file.size;  // only what was read counts as scanned
  }
  pipeline.finish();
  for (const UndoDir& d : undo_dirs) {
    if (!result.io_failure.empty()) break;
    const network net = network_now(d.path, d.key, d.net);
    if (auto r = verify_undo(d, net, undo_keys, result); !r) result.io_failure = d.path + ": " + r.error().message();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(result.problems.begin(), result.problems.end(),
            [](const ScanProblem& a, const ScanProblem& b) { return std::tie(a.file, a.offset) < std::tie(b.file, b.offset); });
  return result;
}

}  // namespace blockwire
