// blockwire scan: every block of blk files or a blocks directory, decoded,
// checked (check_block) and re-encoded to the same bytes.
//
// One reader (this thread) reads, un-XORs and frames records, and decodes
// each block into one reused Block (no allocation): whether it decodes tells
// the reader to trust the record's length or to resynchronise from the byte
// after its magic, as Bitcoin Core's reindex does. Workers (one per core)
// decode again into blocks of their own, and do the expensive part: hashing
// for check_block, and re-encoding. (Decoding in the reader into blocks that
// workers free made every allocation cross threads: slower than decoding
// twice.) A bounded queue between them
// keeps memory bounded whatever the directory's size.
#include "commands.hpp"
#include "input.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace blockwire::cli {

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

struct Work {
  std::size_t file;
  std::uint64_t offset;
  std::vector<std::byte> bytes;
};

struct Problem {
  std::size_t file;
  std::uint64_t offset;
  std::uint64_t bytes;  // skipped bytes; 0 for a block that failed
  std::string reason;
};

class WorkQueue {
 public:
  explicit WorkQueue(std::size_t capacity) : capacity_(capacity) {}
  void push(Work w) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return items_.size() < capacity_; });
    items_.push_back(std::move(w));
    not_empty_.notify_one();
  }
  std::optional<Work> pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    Work w = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return w;
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
  }

 private:
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<Work> items_;
  bool closed_ = false;
};

struct Totals {
  std::mutex mutex;
  std::uint64_t blocks = 0;
  std::uint64_t transactions = 0;
  std::uint64_t block_bytes = 0;
  std::vector<Problem> problems;
  void add_problem(Problem p) {
    std::lock_guard lock(mutex);
    problems.push_back(std::move(p));
  }
};

// Byte buffers of about a block each, passed back from the workers to the
// reader instead of freed: fresh megabyte allocations cost page faults.
class BufferPool {
 public:
  std::vector<std::byte> take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return {};
    std::vector<std::byte> v = std::move(free_.back());
    free_.pop_back();
    return v;
  }
  void give(std::vector<std::byte> v) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(v));
  }

 private:
  std::mutex mutex_;
  std::vector<std::vector<std::byte>> free_;
};

// What a worker does with one block. `again` is the worker's own buffer.
void check(Work& w, Totals& totals, Block& block, std::vector<std::byte>& again) {
  std::string failure;
  if (auto decoded = decode_block(w.bytes, block); !decoded) {
    failure = "block does not decode: " + decoded.error().message();  // the reader decoded it: never expected
  } else if (auto r = check_block(block); !r) {
    failure = r.error().message();
  } else {
    again.clear();
    encode_block(block, again);
    // memcmp: vector<std::byte>'s operator== compares byte by byte here.
    if (again.size() != w.bytes.size() || std::memcmp(again.data(), w.bytes.data(), again.size()) != 0) {
      failure = "re-encoding gives different bytes";
    }
  }
  std::lock_guard lock(totals.mutex);
  ++totals.blocks;
  totals.transactions += block.transactions.size();
  totals.block_bytes += w.bytes.size();
  if (!failure.empty()) totals.problems.push_back({w.file, w.offset, 0, std::move(failure)});
}

class Progress {
 public:
  Progress(bool enabled, std::uint64_t total) : enabled_(enabled), total_(total), start_(clock_type::now()) {}
  void update(std::uint64_t done, std::uint64_t blocks) {
    if (!enabled_) return;
    const auto now = clock_type::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double fraction = total_ == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total_);
    const int filled = static_cast<int>(fraction * 30);
    std::fprintf(stderr, "\r[%-30.*s] %3.0f%%  %s blocks  %.0f MB/s ", filled, "##############################", fraction * 100,
                 with_commas(blocks).c_str(), seconds > 0 ? static_cast<double>(done) / seconds / 1e6 : 0.0);
  }
  void finish() {
    if (enabled_) std::fputs("\r\033[K", stderr);
  }

 private:
  bool enabled_;
  std::uint64_t total_;
  clock_type::time_point start_;
  clock_type::time_point last_{};
};

// Progress: the bytes of the files read so far (a file that cannot be
// measured any more counts as empty; reading it already reported why).
std::uint64_t reader_offset_total(std::uint64_t so_far, const std::string& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  return so_far + (ec ? 0 : size);
}

}  // namespace

int scan(const ScanOptions& o) {
  // The files, each with its key.
  std::vector<std::string> files;
  std::vector<XorKey> keys;
  std::uint64_t total_bytes = 0;
  for (const std::string& path : o.paths) {
    std::error_code ec;
    const bool dir = fs::is_directory(path, ec);
    if (!dir && !fs::is_regular_file(path, ec)) {
      std::fprintf(stderr, "blockwire scan: %s: no such file or directory\n", path.c_str());
      return usage_or_io;
    }
    std::vector<std::string> found;
    if (dir) {
      auto listed = block_files(path);
      if (!listed) {
        std::fprintf(stderr, "blockwire scan: %s: %s\n", path.c_str(), listed.error().message().c_str());
        return usage_or_io;
      }
      found = std::move(listed).value();
      if (found.empty()) {
        std::fprintf(stderr, "blockwire scan: %s: no blk*.dat files\n", path.c_str());
        return usage_or_io;
      }
    } else {
      found.push_back(path);
    }
    for (const std::string& file : found) {
      auto key = dir ? (o.xor_key.empty() ? read_xor_key(path) : xor_key_from_hex(o.xor_key)) : key_for(file, o.xor_key);
      if (!key) {
        std::fprintf(stderr, "blockwire scan: the XOR key for %s: %s\n", file.c_str(),
                     !o.xor_key.empty()                         ? "--xor-key takes 16 hex digits"
                     : key.error().code() == errc::bad_argument ? "xor.dat is not 8 bytes"
                                                                : key.error().message().c_str());
        return usage_or_io;
      }
      const auto size = fs::file_size(file, ec);
      if (ec) {
        std::fprintf(stderr, "blockwire scan: %s: %s\n", file.c_str(), ec.message().c_str());
        return usage_or_io;
      }
      files.push_back(file);
      keys.push_back(key.value());
      total_bytes += size;
    }
  }

  const unsigned threads = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  WorkQueue queue(2 * threads);
  Totals totals;
  BufferPool buffers;
  std::vector<std::thread> workers;
  for (unsigned i = 0; i < threads; ++i) {
    workers.emplace_back([&] {
      Block block;
      std::vector<std::byte> again;
      while (auto w = queue.pop()) {
        check(*w, totals, block, again);
        buffers.give(std::move(w->bytes));
      }
    });
  }

  Progress progress(o.progress && ::isatty(STDERR_FILENO) != 0 && !o.json, total_bytes);
  const auto start = clock_type::now();
  std::uint64_t done_before = 0;
  std::uint64_t records = 0;
  std::string io_failure;
  for (std::size_t f = 0; f < files.size() && io_failure.empty(); ++f) {
    auto file = FileReader::open(files[f].c_str());
    if (!file) {
      io_failure = files[f] + ": " + file.error().message();
      break;
    }
    BlockFileReader reader(file.value(), keys[f], o.net);
    Block validated;  // reused: decoding here only says whether the record holds a block
    std::uint64_t found_in_file = 0;
    for (;;) {
      auto event = reader.next();
      if (!event) {
        io_failure = files[f] + ": " + event.error().message();
        break;
      }
      if (!event.value()) break;
      if (const auto* record = std::get_if<BlockRecord>(&*event.value())) {
        if (auto decoded = decode_block(record->bytes, validated); !decoded) {
          totals.add_problem({f, record->offset, 0, "block does not decode: " + decoded.error().message()});
          reader.reject_last();
          continue;
        }
        ++found_in_file;
        std::vector<std::byte> bytes = buffers.take();
        bytes.assign(record->bytes.begin(), record->bytes.end());
        queue.push({f, record->offset, std::move(bytes)});
        progress.update(done_before + record->offset, ++records);
      } else {
        const auto& skipped = std::get<SkippedBytes>(*event.value());
        std::string reason = skipped.reason;
        if (found_in_file == 0 && skipped.offset == 0) {
          reason += " at the start of the file: is the XOR key right? (xor.dat, --xor-key) Is it --network's file?";
        }
        totals.add_problem({f, skipped.offset, skipped.count, std::move(reason)});
      }
    }
    done_before = reader_offset_total(done_before, files[f]);
  }
  queue.close();
  for (auto& t : workers) t.join();
  progress.finish();
  const double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  const double mb_per_s = seconds > 0 ? static_cast<double>(total_bytes) / seconds / 1e6 : 0;

  std::sort(totals.problems.begin(), totals.problems.end(),
            [](const Problem& a, const Problem& b) { return std::tie(a.file, a.offset) < std::tie(b.file, b.offset); });
  std::uint64_t skipped_bytes = 0;
  std::size_t failed_blocks = 0;
  for (const Problem& p : totals.problems) {
    skipped_bytes += p.bytes;
    failed_blocks += p.bytes == 0 ? 1 : 0;
  }

  if (o.json) {
    nlohmann::json j;
    j["files"] = files.size();
    j["blocks"] = totals.blocks;
    j["transactions"] = totals.transactions;
    j["bytes"] = total_bytes;
    j["block_bytes"] = totals.block_bytes;
    j["seconds"] = seconds;
    j["mb_per_s"] = mb_per_s;
    j["failed_blocks"] = failed_blocks;
    j["skipped_bytes"] = skipped_bytes;
    nlohmann::json problems = nlohmann::json::array();
    for (const Problem& p : totals.problems) {
      problems.push_back({{"file", files[p.file]}, {"offset", p.offset}, {"skipped_bytes", p.bytes}, {"reason", p.reason}});
    }
    j["problems"] = problems;
    if (!io_failure.empty()) j["io_error"] = io_failure;
    j["ok"] = totals.problems.empty() && io_failure.empty();
    std::cout << j.dump(2) << '\n';
  } else {
    std::printf("scanned %s file%s, %s blocks, %s transactions, %.1f MB in %.2f s (%.0f MB/s)\n", with_commas(files.size()).c_str(),
                files.size() == 1 ? "" : "s",
                with_commas(totals.blocks).c_str(), with_commas(totals.transactions).c_str(), static_cast<double>(total_bytes) / 1e6,
                seconds, mb_per_s);
    if (totals.blocks == 0 && failed_blocks == 0) {
      std::printf("no blocks found\n");
    } else {
      std::printf("every block decoded, passed check_block and re-encoded to the same bytes: %s\n",
                  failed_blocks == 0 ? "yes" : "NO");
    }
    if (!totals.problems.empty()) {
      std::printf("%zu problem%s (%zu failed block%s, %s bytes skipped):\n", totals.problems.size(), totals.problems.size() == 1 ? "" : "s",
                  failed_blocks, failed_blocks == 1 ? "" : "s", with_commas(skipped_bytes).c_str());
      for (const Problem& p : totals.problems) {
        if (p.bytes != 0) {
          std::printf("  %s:%llu: %s bytes skipped: %s\n", files[p.file].c_str(), static_cast<unsigned long long>(p.offset),
                      with_commas(p.bytes).c_str(), p.reason.c_str());
        } else {
          std::printf("  %s:%llu: %s\n", files[p.file].c_str(), static_cast<unsigned long long>(p.offset), p.reason.c_str());
        }
      }
    }
  }
  if (!io_failure.empty()) {
    std::fprintf(stderr, "blockwire scan: %s\n", io_failure.c_str());
    return usage_or_io;
  }
  return totals.problems.empty() ? ok : bad_data;
}

}  // namespace blockwire::cli
