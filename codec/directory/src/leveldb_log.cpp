#include "leveldb_log.hpp"

#include <blockwire/directory/error.hpp>
#include <blockwire/io/file.hpp>

#include <boost/crc.hpp>

#include <algorithm>
#include <cerrno>
#include <array>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace blockwire::detail {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t block_size = 32768;  // log_format.md: kBlockSize
constexpr std::size_t header_size = 7;     // checksum (4), length (2), type (1)
enum record_type : unsigned char { zero = 0, full = 1, first = 2, middle = 3, last = 4 };

// CRC-32C (Castagnoli), as LevelDB's util/crc32c: SSE 4.2's instruction
// where the processor has it (the log is read at memory speed), else
// Boost.CRC's table.
#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  std::uint64_t c = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
  }
  auto c32 = static_cast<std::uint32_t>(c);
  for (; n > 0; --n, ++p) c32 = _mm_crc32_u8(c32, *p);
  return ~c32;
}
#endif

std::uint32_t crc32c(std::uint32_t crc, const unsigned char* p, std::size_t n) {
#if defined(__x86_64__)
  static const bool sse42 = __builtin_cpu_supports("sse4.2");
  if (sse42) return crc32c_sse42(crc, p, n);
#endif
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> c;
  // (Boost continues from a remainder: the running value before its final XOR)
  c.reset(~crc);
  c.process_bytes(p, n);
  return c.checksum();
}

// LevelDB stores a CRC masked (a CRC of data holding CRCs is weak).
std::uint32_t masked(std::uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

std::uint32_t load32(const unsigned char* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

result<void> corrupt(std::string_view what) { return error(directory::errc::leveldb_corruption).in(what); }

// The records of a log file, whole (fragments joined), in order.
class LogRecords {
 public:
  // `limit`: the file read up to there alone.
  explicit LogRecords(FileReader file, std::uint64_t limit = ~std::uint64_t{0}) : file_(std::move(file)), limit_(limit) {}

  // The next fragment of a record: its type and payload (valid until the
  // next call), or false at the end (a fragment cut short at the end of
  // the file ends it too).
  result<bool> next_fragment(record_type& type, std::string_view& payload, const std::string& path) {
    for (;;) {
      if (end_ - at_ < header_size) {
        // The block's trailer (fewer than seven bytes: zeros), then the next block.
        if (auto more = fill(); !more) return more.error().in(path);
        if (end_ - at_ < header_size) return false;  // the end (a header cut short: a writer that died)
      }
      const unsigned char* h = block_.data() + at_;
      const std::size_t length = std::size_t{h[4]} | std::size_t{h[5]} << 8;
      type = static_cast<record_type>(h[6]);
      if (header_size + length > end_ - at_) {
        if (eof_) return false;  // a record cut short at the end of the file
        return bad(path, "a record's length runs past its block");
      }
      if (type == zero && length == 0) {  // pre-allocated space
        at_ = end_;
        continue;
      }
      if (masked(crc32c(0, h + 6, 1 + length)) != load32(h)) return bad(path, "a record's checksum does not match");
      if (type < full || type > last) return bad(path, "a record of unknown type " + std::to_string(static_cast<int>(type)));
      payload = std::string_view(reinterpret_cast<const char*>(h + header_size), length);
      at_ += header_size + length;
      return true;
    }
  }

  // The next whole record into `out`: true, or false at the end.
  result<bool> next(std::string& out, const std::string& path) {
    out.clear();
    bool in_fragments = false;
    for (;;) {
      record_type type{};
      std::string_view payload;
      auto got = next_fragment(type, payload, path);
      if (!got || !got.value()) return got;
      if ((type == full || type == first) == in_fragments) return bad(path, "a fragment out of order");
      out.append(payload);
      in_fragments = type == first || type == middle;
      if (!in_fragments) return true;
    }
  }

  // Where the last fragment read began, for an error about its content.
  std::uint64_t offset() const noexcept { return offset_ - (end_ - at_); }

 private:
  // What is wrong with the fragment at hand (where: the error's offset).
  result<bool> bad(const std::string& path, const std::string& what) {
    return error(directory::errc::leveldb_corruption, offset_ - (end_ - at_)).in(path + ": " + what);
  }
  // The next block of the file (a partial one at its end).
  result<void> fill() {
    at_ = 0;
    end_ = 0;
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(block_.size(), limit_ - offset_));
    while (end_ < want) {
      auto got = file_.read_some(std::as_writable_bytes(std::span(block_).subspan(end_, want - end_)));
      if (!got) return got.error();
      if (got.value() == 0) {
        eof_ = true;
        break;
      }
      end_ += got.value();
    }
    if (end_ < block_.size()) eof_ = true;  // (the limit, or the file's end)
    offset_ += end_;
    return success();
  }

  FileReader file_;
  std::array<unsigned char, block_size> block_{};
  std::size_t at_ = 0, end_ = 0;
  std::uint64_t limit_;
  std::uint64_t offset_ = 0;  // of the file, past the block read
  bool eof_ = false;
};

// Where the last whole record of a log ends. Every block begins with a
// fragment's header (a writer pads a block's last bytes when fewer than a
// header's are left), so the last block in which a record ends, its
// fragments' headers walked from its start, says where; the blocks are
// tried from the last one back, and the rest of the file is not read
// here (checksums are checked as the records are read). A batch whose last
// fragment never made it (its writer died) was never committed: a reader
// that streams a batch's entries must stop before it.
result<std::uint64_t> committed_end(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return last_system_error();
  const auto size = static_cast<std::uint64_t>(st.st_size);
  for (std::uint64_t block = (size + block_size - 1) / block_size; block-- > 0;) {
    const std::uint64_t start = block * block_size;
    std::optional<std::uint64_t> end;
    for (std::uint64_t at = start; block_size - (at - start) >= header_size;) {
      std::array<unsigned char, header_size> h{};
      std::size_t got = 0;
      while (got < h.size()) {
        const ssize_t n = ::pread(fd, h.data() + got, h.size() - got, static_cast<off_t>(at + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return last_system_error();
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
      }
      if (got < h.size()) break;  // the file ends in a header: its writer died
      const std::size_t length = std::size_t{h[4]} | std::size_t{h[5]} << 8;
      if (h[6] == zero && length == 0) break;  // pre-allocated space: the rest of the block
      if (header_size + length > block_size - (at - start))
        return size;                                // damage (no writer does it): read on, for the reading pass to say so
      if (at + header_size + length > size) break;  // a fragment cut short: its writer died
      at += header_size + length;
      if (h[6] == full || h[6] == last) end = at;
    }
    if (end) return *end;
  }
  return 0;
}

// A LevelDB varint (7 bits a byte, low first).
bool varint(std::string_view& in, std::uint64_t& v) {
  v = 0;
  for (unsigned shift = 0; shift < 64 && !in.empty(); shift += 7) {
    const auto b = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= std::uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

bool prefixed(std::string_view& in, std::string_view& s) {
  std::uint64_t n = 0;
  if (!varint(in, n) || n > in.size()) return false;
  s = in.substr(0, n);
  in.remove_prefix(n);
  return true;
}

result<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::make_error_code(std::errc::no_such_file_or_directory);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

result<std::vector<std::string>> live_logs(const std::string& db_dir) {
  auto current = read_text((fs::path(db_dir) / "CURRENT").string());
  if (!current) return current.error().in(db_dir + "/CURRENT");
  std::string manifest = current.value();
  if (manifest.empty() || manifest.back() != '\n' || manifest.rfind("MANIFEST-", 0) != 0) {
    return error(directory::errc::leveldb_corruption).in(db_dir + "/CURRENT: does not name a manifest");
  }
  manifest.pop_back();
  const std::string manifest_path = (fs::path(db_dir) / manifest).string();
  auto file = FileReader::open(manifest_path.c_str());
  if (!file) return file.error().in(manifest_path);
  // The version edits: only the log numbers matter here; every other
  // field is read past.
  std::optional<std::uint64_t> log_number, prev_log;
  LogRecords records(std::move(file).value());
  std::string record;
  for (;;) {
    auto got = records.next(record, manifest_path);
    if (!got) return got.error();
    if (!got.value()) break;
    std::string_view in(record);
    while (!in.empty()) {
      std::uint64_t tag = 0, a = 0, b = 0;
      std::string_view s;
      bool ok = varint(in, tag);
      switch (tag) {
        case 1: ok = ok && prefixed(in, s); break;                   // comparator
        case 2: ok = ok && varint(in, a), log_number = a; break;     // log number
        case 3:                                                      // next file number
        case 4: ok = ok && varint(in, a); break;                     // last sequence
        case 5: ok = ok && varint(in, a) && prefixed(in, s); break;  // compact pointer
        case 6: ok = ok && varint(in, a) && varint(in, b); break;    // deleted file
        case 7:                                                      // new file
          ok = ok && varint(in, a) && varint(in, b) && varint(in, a) && prefixed(in, s) && prefixed(in, s);
          break;
        case 9: ok = ok && varint(in, a), prev_log = a; break;  // previous log number
        default: ok = false;
      }
      if (!ok) return error(directory::errc::leveldb_corruption).in(manifest_path + ": a version edit does not decode");
    }
  }
  std::vector<std::pair<std::uint64_t, std::string>> logs;
  std::error_code ec;
  for (fs::directory_iterator it(db_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= 4 || !name.ends_with(".log")) continue;
    const std::string digits = name.substr(0, name.size() - 4);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    const std::uint64_t number = std::stoull(digits);
    if (number >= log_number.value_or(0) || (prev_log && number == *prev_log)) logs.emplace_back(number, it->path().string());
  }
  if (ec) return error(ec).in(db_dir);
  std::sort(logs.begin(), logs.end());
  std::vector<std::string> out;
  for (auto& [number, path] : logs) out.push_back(std::move(path));
  return out;
}

result<void> read_log(const std::string& path, const LogEntry& each) {
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error().in(path);
  auto committed = committed_end(file.value().fd());
  if (!committed) return committed.error().in(path);
  // (read once, front to back: the kernel reads ahead further)
  (void)::posix_fadvise(file.value().fd(), 0, 0, POSIX_FADV_SEQUENTIAL);
  LogRecords records(std::move(file).value(), committed.value());
  // A batch is parsed as its fragments come, never held whole (one batch
  // can be a whole block index: a node's flush of a long download): what
  // `pending` holds is the part of an entry a fragment ended in.
  std::string pending;
  std::size_t header_left = 0;  // of the batch's 12-byte header, not read yet
  std::uint32_t count = 0, seen = 0;
  std::string count_bytes;
  bool in_batch = false;
  const auto entries = [&](bool last_fragment) -> result<void> {
    std::string_view in(pending);
    if (header_left != 0) {
      const std::size_t n = std::min(header_left, in.size());
      count_bytes.append(in.substr(0, n));
      in.remove_prefix(n);
      header_left -= n;
      if (header_left == 0) count = load32(reinterpret_cast<const unsigned char*>(count_bytes.data()) + 8);
    }
    while (!in.empty()) {
      std::string_view rest = in;
      const auto tag = static_cast<unsigned char>(rest.front());
      rest.remove_prefix(1);
      std::string_view key, value;
      bool whole = false;
      if (tag == 1) {
        whole = prefixed(rest, key) && prefixed(rest, value);
      } else if (tag == 0) {
        whole = prefixed(rest, key);
      } else {
        return corrupt(path + ": a batch's entry of unknown kind " + std::to_string(tag) + " (the record before byte " +
                       std::to_string(records.offset()) + ")");
      }
      if (!whole) break;  // (the rest comes in the next fragment)
      if (tag == 1) {
        each(key, value);
      } else {
        each(key, std::nullopt);
      }
      ++seen;
      in = rest;
    }
    if (last_fragment && (header_left != 0 || !in.empty() || seen != count)) {
      return corrupt(path + ": a batch does not decode, or holds another count of entries than its header says (the record before byte " +
                     std::to_string(records.offset()) + ")");
    }
    pending.erase(0, pending.size() - in.size());
    return success();
  };
  for (;;) {
    record_type type{};
    std::string_view payload;
    auto got = records.next_fragment(type, payload, path);
    if (!got) return got.error();
    if (!got.value()) return success();  // (a batch cut short by the end of the file was never committed)
    if ((type == full || type == first) == in_batch) return corrupt(path + ": a record's fragments out of order");
    if (type == full || type == first) {
      pending.clear();
      count_bytes.clear();
      header_left = 12;
      count = seen = 0;
    }
    in_batch = type == first || type == middle;
    pending.append(payload);
    if (auto r = entries(!in_batch); !r) return r;
  }
}

}  // namespace blockwire::detail
