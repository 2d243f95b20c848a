// CompressedFileWriter's files read back by other code than the writer's:
// zstd's one-shot decompression and zlib's gzip reader (gzread), for text
// written the ways TextOut writes it (small writes into lent memory, a
// write larger than any buffer); decompressed_tail against the same; a
// file cut short refused.
#include <blockwire/tables/compressed_file.hpp>
#include <blockwire/tables/text_out.hpp>

#include <doctest/doctest.h>
#include <zlib.h>
#include <zstd.h>

#include "../support/temp_dir.hpp"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

using namespace blockwire;
namespace fs = std::filesystem;

namespace {

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What TextOut writes, the way it writes it: lines of numbers and hex (the
// many small writes), and one string of 3 MB (larger than the compressor's
// memory, so lend() must grow it) of random text that does not compress.
std::string write_table(const fs::path& path, tables::compression c) {
  auto file = tables::CompressedFileWriter::create(path.c_str(), c);
  REQUIRE(file);
  tables::TextOut out(std::move(file).value());
  std::string expected;
  std::mt19937_64 random(7);
  for (int i = 0; i < 50'000; ++i) {
    const std::uint64_t n = random() % 100'000'000;
    out.literal("{\"value\":");
    out.uint(n);
    out.literal(",\"hex\":");
    std::byte bytes[8];
    for (auto& b : bytes) b = static_cast<std::byte>(random());
    out.json_string("ab\"c");
    out.hex(bytes);
    out.put('\n');
    expected.append("{\"value\":").append(std::to_string(n)).append(",\"hex\":\"ab\\\"c\"");
    static constexpr char digits[] = "0123456789abcdef";
    for (const std::byte b : bytes) {
      expected += digits[std::to_integer<unsigned>(b) >> 4];
      expected += digits[std::to_integer<unsigned>(b) & 15];
    }
    expected += '\n';
  }
  std::string big(3'000'000, ' ');
  for (char& ch : big) ch = static_cast<char>('a' + random() % 26);
  out.raw(big);
  out.put('\n');
  expected.append(big).push_back('\n');
  REQUIRE(out.finish());
  return expected;
}

std::string zstd_decompressed(const std::string& frame) {
  const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  // A streamed frame does not say its size: decompress into ample room.
  std::string out(size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR ? 64u << 20 : size, '\0');
  const std::size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  REQUIRE_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

std::string gzip_decompressed(const fs::path& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  REQUIRE(in != nullptr);
  std::string out;
  char chunk[1 << 16];
  for (int n; (n = gzread(in, chunk, sizeof chunk)) > 0;) out.append(chunk, static_cast<std::size_t>(n));
  int status = 0;
  gzerror(in, &status);
  CHECK(status == Z_OK);
  gzclose(in);
  return out;
}

}  // namespace

TEST_CASE("tables: a zstd table decompresses (zstd's own one-shot decoder) to the text written, and smaller than it") {
  test::TempDir dir;
  const fs::path path = dir.path / "t.json.zst";
  const std::string expected = write_table(path, tables::compression::zstd);
  const std::string frame = read_bytes(path);
  CHECK(frame.size() < expected.size() * 2 / 3);
  CHECK(zstd_decompressed(frame) == expected);
  auto tail = tables::decompressed_tail(path.c_str(), tables::compression::zstd, 4096);
  REQUIRE(tail);
  CHECK(tail.value() == expected.substr(expected.size() - 4096));
}

TEST_CASE("tables: a gzip table decompresses (zlib's gzread) to the text written") {
  test::TempDir dir;
  const fs::path path = dir.path / "t.csv.gz";
  const std::string expected = write_table(path, tables::compression::gzip);
  CHECK(fs::file_size(path) < expected.size() * 2 / 3);
  CHECK(gzip_decompressed(path) == expected);
  auto tail = tables::decompressed_tail(path.c_str(), tables::compression::gzip, 100);
  REQUIRE(tail);
  CHECK(tail.value() == expected.substr(expected.size() - 100));
}

TEST_CASE("tables: compression::none writes the text as it is") {
  test::TempDir dir;
  const fs::path path = dir.path / "t.json";
  const std::string expected = write_table(path, tables::compression::none);
  CHECK(read_bytes(path) == expected);
  auto whole = tables::decompressed_tail(path.c_str(), tables::compression::none, expected.size() + 10);
  REQUIRE(whole);
  CHECK(whole.value() == expected);
}

TEST_CASE("tables: a compressed table cut short is refused, not read as a shorter one") {
  test::TempDir dir;
  for (const tables::compression c : {tables::compression::zstd, tables::compression::gzip}) {
    const fs::path path = dir.path / std::string("t").append(tables::compression_suffix(c));
    write_table(path, c);
    fs::resize_file(path, fs::file_size(path) - 3);
    auto tail = tables::decompressed_tail(path.c_str(), c, 4096);
    REQUIRE_FALSE(tail);
    CHECK(tail.error().code() == std::errc::illegal_byte_sequence);
  }
}

TEST_CASE("tables: compression names and suffixes") {
  CHECK(tables::compression_named("zstd") == tables::compression::zstd);
  CHECK(tables::compression_named("gzip") == tables::compression::gzip);
  CHECK(tables::compression_named("none") == tables::compression::none);
  CHECK_FALSE(tables::compression_named("xz"));
  CHECK(tables::compression_suffix(tables::compression::zstd) == ".zst");
  CHECK(tables::compression_suffix(tables::compression::gzip) == ".gz");
  auto missing = tables::CompressedFileWriter::create("/nonexistent-dir/t.zst", tables::compression::zstd);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == std::errc::no_such_file_or_directory);
}

TEST_CASE("tables: a zstd table of exactly two of zstd's 128 KiB blocks reads back whole (the frame ends as the output fills)") {
  test::TempDir dir;
  const fs::path path = dir.path / "t.json.zst";
  std::string text(2 * 131072, 'x');
  for (std::size_t i = 0; i < text.size(); i += 97) text[i] = '\n';
  {
    auto file = tables::CompressedFileWriter::create(path.c_str(), tables::compression::zstd);
    REQUIRE(file);
    tables::TextOut out(std::move(file).value());
    out.raw(text);
    REQUIRE(out.finish());
  }
  CHECK(zstd_decompressed(read_bytes(path)) == text);
  auto tail = tables::decompressed_tail(path.c_str(), tables::compression::zstd, 100);
  REQUIRE(tail);
  CHECK(tail.value() == text.substr(text.size() - 100));
}

TEST_CASE("tables: an empty or garbage compressed table is refused") {
  test::TempDir dir;
  for (const tables::compression c : {tables::compression::zstd, tables::compression::gzip}) {
    for (const std::string& bytes : {std::string(), std::string(5000, 'g')}) {
      const fs::path path = dir.path / std::string("t").append(tables::compression_suffix(c));
      std::ofstream(path, std::ios::binary) << bytes;
      auto tail = tables::decompressed_tail(path.c_str(), c, 4096);
      REQUIRE_FALSE(tail);
      CHECK(tail.error().code() == std::errc::illegal_byte_sequence);
    }
  }
}

TEST_CASE("tables: a compressed table the disk refuses fails at finish(), not silently") {
  // /dev/full takes the open and refuses every write (ENOSPC).
  if (!fs::exists("/dev/full")) return;
  for (const tables::compression c : {tables::compression::zstd, tables::compression::gzip}) {
    auto file = tables::CompressedFileWriter::create("/dev/full", c);
    REQUIRE(file);
    tables::TextOut out(std::move(file).value());
    std::string text(1 << 20, 'a');
    for (std::size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<char>('a' + i % 26);
    for (int i = 0; i < 4; ++i) out.raw(text);
    auto done = out.finish();
    REQUIRE_FALSE(done);
    CHECK(done.error().code() == std::errc::no_space_on_device);
  }
}
