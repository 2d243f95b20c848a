// Core-style block files: written by BlockFileWriter, read back by
// BlockFileReader, and damaged on purpose.
#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include "../support/test_data.hpp"
#include "../support/bytes.hpp"
#include "../io/test_support.hpp"
#include "../support/temp_dir.hpp"
#include "../support/block_records.hpp"

#include <csignal>
#include <filesystem>
#include <sys/resource.h>

using namespace blockwire;
namespace fs = std::filesystem;

namespace {

using test::TempDir;

std::vector<std::byte> read_bytes(const std::string& path) {
  auto file = FileReader::open(path.c_str());
  REQUIRE(file);
  auto all = test::read_all(file.value(), 1);
  REQUIRE(all);
  return all.value();
}

void write_bytes(const std::string& path, std::span<const std::byte> bytes) {
  auto file = FileWriter::create(path.c_str());
  REQUIRE(file);
  REQUIRE(file.value().write(bytes));
}

// One record framed by hand, the way the file format is documented, for the
// damage tests (independent of BlockFileWriter).
std::vector<std::byte> record(std::span<const std::byte> block) {
  std::vector<std::byte> r = test::bytes({0xf9, 0xbe, 0xb4, 0xd9});
  const auto n = static_cast<std::uint32_t>(block.size());
  for (int i = 0; i < 4; ++i) r.push_back(static_cast<std::byte>(n >> (8 * i)));
  r.insert(r.end(), block.begin(), block.end());
  return r;
}

}  // namespace

TEST_CASE("write then read a blocks directory, with and without a key") {
  for (const XorKey& key : {XorKey{}, random_xor_key()}) {
    TempDir dir;
    auto writer = BlockFileWriter::open(dir.path.string(), key);
    REQUIRE(writer);
    const Block b1 = decode_block(test::block413567()).value();
    auto at1 = writer.value().append(b1);
    auto at2 = writer.value().append(test::segwit_block());  // already serialized
    REQUIRE(at1);
    REQUIRE(at2);
    CHECK(at1.value().offset == 0);
    CHECK(at2.value().offset == 8 + test::block413567().size());
    REQUIRE(writer.value().close());

    auto stored_key = read_xor_key(dir.path.string());
    REQUIRE(stored_key);
    CHECK(stored_key.value() == key);
    // On disk: the framing XORed with the key at offsets 0..7.
    const auto raw = read_bytes(dir.file("blk00000.dat"));
    CHECK(raw.size() == 16 + test::block413567().size() + test::segwit_block().size());
    CHECK((raw[0] ^ key[0]) == std::byte{0xf9});
    CHECK((raw[3] ^ key[3]) == std::byte{0xd9});

    const test::Found found = test::read_records(dir.file("blk00000.dat"), key);
    CHECK(found.skipped.empty());
    REQUIRE(found.blocks.size() == 2);
    CHECK(found.blocks[0].second == test::block413567());
    CHECK(found.blocks[1].first == at2.value().offset);
    CHECK(found.blocks[1].second == test::segwit_block());
  }
}

TEST_CASE("1,000 bytes of garbage between two records are skipped and reported, both blocks are found") {
  TempDir dir;
  const auto garbage = test::random_bytes(1000, 7);
  REQUIRE(garbage[0] != std::byte{0});  // (not a zero run: that is reported differently)
  const auto bytes = test::concat({record(test::block413567()), garbage, record(test::segwit_block())});
  write_bytes(dir.file("blk00000.dat"), bytes);
  const test::Found found = test::read_records(dir.file("blk00000.dat"), XorKey{});
  REQUIRE(found.blocks.size() == 2);
  CHECK(found.blocks[1].second == test::segwit_block());
  REQUIRE(found.skipped.size() == 1);
  CHECK(found.skipped[0].offset == 8 + test::block413567().size());
  CHECK(found.skipped[0].count == 1000);
  CHECK(found.skipped[0].reason == blockfiles::errc::bad_magic);
}

TEST_CASE("a truncated last record is reported, zero padding at the end is not an error") {
  TempDir dir;
  const auto second = record(test::segwit_block());
  auto bytes = test::concat({record(test::block413567()), std::vector<std::byte>(second.begin(), second.begin() + 5000)});
  write_bytes(dir.file("truncated.dat"), bytes);
  const test::Found truncated = test::read_records(dir.file("truncated.dat"), XorKey{});
  CHECK(truncated.blocks.size() == 1);
  REQUIRE(truncated.skipped.size() == 1);
  CHECK(truncated.skipped[0].offset == 8 + test::block413567().size());
  CHECK(truncated.skipped[0].count == 5000);
  CHECK(truncated.skipped[0].reason == blockfiles::errc::record_past_end);

  const auto padded = test::concat({record(test::block413567()), std::vector<std::byte>(1 << 20)});
  write_bytes(dir.file("padded.dat"), padded);
  const test::Found found = test::read_records(dir.file("padded.dat"), XorKey{});
  CHECK(found.blocks.size() == 1);
  CHECK(found.skipped.empty());
}

TEST_CASE("record_begins_at: a record, whole or cut short, is there, zeros, a record's later bytes or garbage are not") {
  TempDir dir;
  const XorKey key = random_xor_key();
  const auto first = record(test::block413567());
  const auto second = record(test::segwit_block());
  const std::uint64_t at = first.size();
  const auto check = [&](std::vector<std::byte> bytes, std::uint64_t offset, bool expected) {
    xor_in_place(bytes, key, 0);
    write_bytes(dir.file("blk00000.dat"), bytes);
    const auto found = record_begins_at(dir.file("blk00000.dat"), offset, key, network::mainnet);
    REQUIRE(found);
    CHECK(found.value() == expected);
  };
  check(test::concat({first, second}), 0, true);
  check(test::concat({first, second}), at, true);
  check(test::concat({first, std::vector<std::byte>(second.begin(), second.begin() + 5000)}), at, true);  // cut short
  check(test::concat({first, std::vector<std::byte>(second.begin(), second.begin() + 6)}), at, true);     // in its header
  // As a reader racing a writer sees it: the record's first page still zero, its later ones written.
  auto torn = second;
  std::fill(torn.begin(), torn.begin() + 4096, std::byte{0});
  check(test::concat({first, torn}), at, false);
  check(test::concat({first, test::random_bytes(3000, 9)}), at, false);      // garbage
  check(test::concat({first, std::vector<std::byte>(1 << 16)}), at, false);  // pre-allocated zeros
  check(first, at, false);                                                   // the file's end
  check(test::concat({first, second}), 1, false);                            // inside a record
  // The wrong network's magic is no record of this one.
  const auto wrong = record_begins_at(dir.file("blk00000.dat"), 0, key, network::regtest);
  REQUIRE(wrong);
  CHECK(!wrong.value());
  CHECK(!record_begins_at(dir.file("none.dat"), 0, key, network::mainnet));
}

TEST_CASE("the wrong key finds no record and says why, without crashing") {
  TempDir dir;
  // Not a key whose first byte is the magic's: the record's first byte
  // would be zero on disk, which reads as padding (1 run in 256 failed).
  XorKey key = random_xor_key();
  while (key[0] == magic(network::mainnet)[0]) key = random_xor_key();
  {
    auto writer = BlockFileWriter::open(dir.path.string(), key);
    REQUIRE(writer);
    REQUIRE(writer.value().append(test::block413567()));
  }
  XorKey wrong = key;
  wrong[0] ^= std::byte{1};
  const test::Found found = test::read_records(dir.file("blk00000.dat"), wrong);
  CHECK(found.blocks.empty());
  REQUIRE_FALSE(found.skipped.empty());
  CHECK(found.skipped[0].offset == 0);
  CHECK(found.skipped[0].reason == blockfiles::errc::bad_magic);
}

TEST_CASE("a record whose block does not decode is rejected and reading resynchronises") {
  TempDir dir;
  auto broken = record(test::block413567());
  broken[8 + 80] = std::byte{0xff};  // transaction count: a non-canonical CompactSize
  const auto bytes = test::concat({broken, record(test::segwit_block())});
  write_bytes(dir.file("blk00000.dat"), bytes);
  const test::Found found = test::read_records(dir.file("blk00000.dat"), XorKey{}, true);
  REQUIRE(found.blocks.size() == 1);
  CHECK(found.blocks[0].first == broken.size());
  REQUIRE(found.skipped.size() == 1);
  CHECK(found.skipped[0].offset == 0);
  CHECK(found.skipped[0].count == broken.size());
}

TEST_CASE("reject_last looks inside a rejected record within a budget: records nested in scripts cost linear work, not quadratic") {
  // Looking inside each of 40 nested records would decode some 800 MB of these 40 MB.
  const auto inner = test::nested_failing_records(40);
  SpanReader source(inner);
  BlockFileReader reader(source, XorKey{});
  std::uint64_t decoded = 0;
  int looked_inside = 0, skipped_by_length = 0;
  Block block;
  for (;;) {
    auto event = reader.next();
    REQUIRE(event);
    if (!event.value()) break;
    const auto* r = std::get_if<BlockRecord>(&*event.value());
    if (r == nullptr) continue;
    auto d = decode_block(r->bytes, block);
    REQUIRE_FALSE(d);
    const std::uint64_t spent = d.error().has_offset() ? d.error().offset() : r->bytes.size();
    decoded += spent;
    if (reader.reject_last(spent)) {
      ++looked_inside;
    } else {
      ++skipped_by_length;
    }
  }
  CHECK(looked_inside >= 1);
  CHECK(skipped_by_length >= 1);
  CHECK(decoded <= 4 * inner.size() + 2 * std::uint64_t{max_block_size} + inner.size());
}

TEST_CASE("a new blk file starts when the current one would pass 128 MiB") {
  TempDir dir;
  auto writer = BlockFileWriter::open(dir.path.string(), random_xor_key());
  REQUIRE(writer);
  const std::size_t per_record = 8 + test::block413567().size();
  const std::size_t fit = max_blockfile_size / per_record;  // 134 records
  for (std::size_t i = 0; i < fit; ++i) REQUIRE(writer.value().append(test::block413567()));
  auto next = writer.value().append(test::block413567());
  REQUIRE(next);
  CHECK(next.value().file == 1);
  CHECK(next.value().offset == 0);
  REQUIRE(writer.value().close());
  CHECK(fs::file_size(dir.file("blk00000.dat")) == fit * per_record);
  CHECK(fs::file_size(dir.file("blk00001.dat")) == per_record);
  auto files = block_files(dir.path.string());
  REQUIRE(files);
  CHECK(files.value().size() == 2);
}

TEST_CASE("a write that fails is reported with where the record began, and later appends fail too") {
  TempDir dir;
  auto writer = BlockFileWriter::open(dir.path.string(), XorKey{});
  REQUIRE(writer);
  REQUIRE(writer.value().append(test::block413567()));
  // A file size limit makes the next write fail (EFBIG), like a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ::getrlimit(RLIMIT_FSIZE, &old);
  rlimit limit = old;
  limit.rlim_cur = 1'500'000;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
  auto failed = writer.value().append(test::block413567());
  auto after = writer.value().append(test::bytes({1, 2, 3}));
  ::setrlimit(RLIMIT_FSIZE, &old);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().code() == std::errc::file_too_large);
  CHECK(failed.error().offset() == 8 + test::block413567().size());
  CHECK_FALSE(after);
}

TEST_CASE("xor keys: hex, files, refusing a key over plain files") {
  auto key = xor_key_from_hex("0011223344556677");
  REQUIRE(key);
  CHECK(to_hex(key.value()) == "0011223344556677");
  CHECK_FALSE(xor_key_from_hex("00112233445566"));
  CHECK_FALSE(xor_key_from_hex("00112233445566zz"));
  TempDir dir;
  CHECK(read_xor_key(dir.path.string()).value() == XorKey{});  // no xor.dat: plain
  write_bytes(dir.file("xor.dat"), test::bytes({1, 2, 3}));
  CHECK_FALSE(read_xor_key(dir.path.string()));  // not 8 bytes
  TempDir plain;
  write_bytes(plain.file("blk00000.dat"), record(test::block413567()));
  CHECK_FALSE(BlockFileWriter::open(plain.path.string(), key.value()));
}

TEST_CASE("appending after close, or a block longer than any reader takes, is an error") {
  TempDir dir;
  auto writer = BlockFileWriter::open(dir.path.string(), XorKey{});
  REQUIRE(writer);
  auto too_long = writer.value().append(std::vector<std::byte>(max_block_size + 1));
  REQUIRE_FALSE(too_long);
  CHECK(too_long.error().code() == blockfiles::errc::block_too_large);
  REQUIRE(writer.value().append(test::block413567()));
  CHECK(writer.value().position().offset == 8 + test::block413567().size());
  REQUIRE(writer.value().close());
  CHECK_FALSE(writer.value().append(test::block413567()));
}

TEST_CASE("block_files lists blkNNNNN.dat in number order and nothing else") {
  TempDir dir;
  for (const char* name : {"blk00002.dat", "blk00000.dat", "blk7.dat", "rev00000.dat", "blk00001.dat.tmp", "blk123456.dat"}) {
    write_bytes(dir.file(name), test::bytes({0}));
  }
  auto files = block_files(dir.path.string());
  REQUIRE(files);
  REQUIRE(files.value().size() == 3);
  CHECK(fs::path(files.value()[0]).filename() == "blk00000.dat");
  CHECK(fs::path(files.value()[1]).filename() == "blk00002.dat");
  CHECK(fs::path(files.value()[2]).filename() == "blk123456.dat");
}
