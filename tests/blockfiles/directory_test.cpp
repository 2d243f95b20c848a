// Real blocks directories: Bitcoin Core's raw zero padding, locking, never
// truncating, no partial records (issue 11's defects, each reproduced).
#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include "../io/test_support.hpp"
#include "../support/temp_dir.hpp"
#include "../support/test_data.hpp"
#include "../support/block_records.hpp"

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace blockwire;
namespace fs = std::filesystem;
using test::TempDir;

namespace {

std::vector<std::byte> file_bytes(const std::string& path) {
  auto file = FileReader::open(path.c_str());
  REQUIRE(file);
  return test::read_all(file.value(), 1).value();
}

// A child process that takes a classic fcntl write lock on `path`, exactly
// as Bitcoin Core locks its data directory's .lock, and holds it until the
// object goes (then it is killed and reaped, whatever happened).
class NodeHoldingLock {
 public:
  explicit NodeHoldingLock(const std::string& path) {
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
      struct flock lock {};
      lock.l_type = F_WRLCK;
      lock.l_whence = SEEK_SET;
      const char ok = fd >= 0 && ::fcntl(fd, F_SETLK, &lock) == 0 ? 'y' : 'n';
      (void)!::write(ready[1], &ok, 1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char ok = 0;
    REQUIRE(::read(ready[0], &ok, 1) == 1);
    ::close(ready[0]);
    REQUIRE(ok == 'y');
  }
  ~NodeHoldingLock() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  NodeHoldingLock(const NodeHoldingLock&) = delete;
  NodeHoldingLock& operator=(const NodeHoldingLock&) = delete;

 private:
  pid_t pid_ = -1;
};

// A file size limit for this process while it lives (the next write past
// it fails with EFBIG), restored whatever happens.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit limit = old_;
    limit.rlim_cur = bytes;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
  ~FileSizeLimit() { ::setrlimit(RLIMIT_FSIZE, &old_); }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
};

const XorKey key{std::byte{0x3c}, std::byte{0x91}, std::byte{0x0e}, std::byte{0x7a},
                 std::byte{0xd2}, std::byte{0x55}, std::byte{0x08}, std::byte{0xe1}};

}  // namespace

TEST_CASE("Bitcoin Core's pre-allocation: XOR'd records then raw zeros to a 16 MiB boundary read quietly") {
  TempDir dir;
  {
    auto writer = BlockFileWriter::open(dir.path.string(), key);
    REQUIRE(writer);
    REQUIRE(writer.value().append(test::block413567()));
    REQUIRE(writer.value().append(test::segwit_block()));
    REQUIRE(writer.value().close());
  }
  // Core's posix_fallocate: the tail is zeros on disk, not obfuscated.
  const std::string blk = dir.file("blk00000.dat");
  REQUIRE(::truncate(blk.c_str(), 16 * 1024 * 1024) == 0);
  const test::Found padded = test::read_records(blk, key);
  CHECK(padded.blocks.size() == 2);
  CHECK(padded.skipped.empty());

  // Raw zeros between two records are still reported (as zero bytes).
  auto bytes = file_bytes(blk);
  const std::size_t first = 8 + test::block413567().size();
  std::vector<std::byte> gapped(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(first));
  gapped.resize(first + 100);  // 100 raw zeros
  // The second record XOR'd for its new offset: re-XOR it.
  std::vector<std::byte> second(bytes.begin() + static_cast<std::ptrdiff_t>(first),
                                bytes.begin() + static_cast<std::ptrdiff_t>(first + 8 + test::segwit_block().size()));
  xor_in_place(second, key, first);        // plain again
  xor_in_place(second, key, first + 100);  // obfuscated where it now lies
  gapped.insert(gapped.end(), second.begin(), second.end());
  auto gap_file = FileWriter::create(dir.file("gap.dat").c_str());
  REQUIRE(gap_file.value().write(gapped));
  const test::Found gap = test::read_records(dir.file("gap.dat"), key);
  CHECK(gap.blocks.size() == 2);
  REQUIRE(gap.skipped.size() == 1);
  CHECK(gap.skipped[0].reason == blockfiles::errc::zero_bytes);
  CHECK(gap.skipped[0].offset == first);
  CHECK(gap.skipped[0].count == 100);
}

TEST_CASE("a key byte equal to the magic's makes a valid record start with a zero on disk: still a record") {
  TempDir dir;
  const XorKey magic_first{std::byte{0xf9}, std::byte{0x01}, std::byte{0x02}, std::byte{0x03},
                           std::byte{0x04}, std::byte{0x05}, std::byte{0x06}, std::byte{0x07}};
  {
    auto writer = BlockFileWriter::open(dir.path.string(), magic_first);
    REQUIRE(writer);
    REQUIRE(writer.value().append(test::block413567()));
    REQUIRE(writer.value().close());
  }
  CHECK(file_bytes(dir.file("blk00000.dat"))[0] == std::byte{0});
  const test::Found r = test::read_records(dir.file("blk00000.dat"), magic_first);
  CHECK(r.blocks.size() == 1);
  CHECK(r.skipped.empty());
}

TEST_CASE("one writer at a time: a second writer, in this process or another, is refused") {
  TempDir dir;
  auto first = BlockFileWriter::open(dir.path.string(), key);
  REQUIRE(first);
  auto second = BlockFileWriter::open(dir.path.string(), key);
  REQUIRE_FALSE(second);
  CHECK(second.error().code() == blockfiles::errc::directory_locked);
  REQUIRE(first.value().close());  // releases the lock
  CHECK(BlockFileWriter::open(dir.path.string(), key));

  // Another process holding the directory's lock the way Core would.
  TempDir other;
  NodeHoldingLock holder(other.file(".lock"));
  auto refused = BlockFileWriter::open(other.path.string(), key);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code() == blockfiles::errc::directory_locked);
}

TEST_CASE("never into a running node's blocks directory: its data directory's .lock is held") {
  TempDir datadir;
  const std::string blocks = datadir.file("blocks");
  fs::create_directories(blocks);
  {
    NodeHoldingLock node(datadir.file(".lock"));
    auto refused = BlockFileWriter::open(blocks, key);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code() == blockfiles::errc::node_running);
    CHECK(fs::is_empty(blocks));  // nothing written, not even xor.dat
  }
  // The node stopped: its lock is free, and we hold it while we write.
  auto writer = BlockFileWriter::open(blocks + "/", key);
  REQUIRE(writer);
  REQUIRE(writer.value().append(test::block413567()));
}

TEST_CASE("rollover never truncates a file that is there, and stops at blk99999.dat") {
  TempDir dir;
  const std::size_t per_record = 8 + test::block413567().size();
  const std::size_t fit = max_blockfile_size / per_record;  // 134 records
  auto writer = BlockFileWriter::open(dir.path.string(), key);
  REQUIRE(writer);
  for (std::size_t i = 0; i < fit; ++i) REQUIRE(writer.value().append(test::block413567()));
  // Someone else's blk00001.dat appears before the rollover.
  const auto theirs = test::random_bytes(1000, 7);
  REQUIRE(FileWriter::create(dir.file("blk00001.dat").c_str()).value().write(theirs));
  auto next = writer.value().append(test::block413567());
  REQUIRE_FALSE(next);
  CHECK(next.error().code() == std::errc::file_exists);
  CHECK(file_bytes(dir.file("blk00001.dat")) == theirs);
  CHECK(fs::file_size(dir.file("blk00000.dat")) == fit * per_record);
  REQUIRE(writer.value().close());

  // The last name Core gives: a full blk99999.dat has no successor.
  fs::remove(dir.file("blk00001.dat"));
  fs::rename(dir.file("blk00000.dat"), dir.file("blk99999.dat"));
  auto last = BlockFileWriter::open(dir.path.string(), key);
  REQUIRE(last);
  auto past = last.value().append(test::block413567());
  REQUIRE_FALSE(past);
  CHECK(past.error().code() == blockfiles::errc::too_many_files);
  auto files = block_files(dir.path.string());
  REQUIRE(files);
  CHECK(files.value().size() == 1);  // no blk00000.dat, no blk100000.dat
}

TEST_CASE("a failed append leaves no partial record, and the next writer appends after the last whole one") {
  TempDir dir;
  std::uint64_t first_end = 0;
  {
    auto writer = BlockFileWriter::open(dir.path.string(), key);
    REQUIRE(writer);
    REQUIRE(writer.value().append(test::block413567()));
    first_end = writer.value().position().offset;
    FileSizeLimit limit(1'500'000);  // the next record would end past it
    auto failed = writer.value().append(test::block413567());
    REQUIRE_FALSE(failed);
    CHECK(failed.error().code() == std::errc::file_too_large);
    CHECK(failed.error().offset() == first_end);
    CHECK_FALSE(writer.value().append(test::segwit_block()));  // sticky
  }
  CHECK(fs::file_size(dir.file("blk00000.dat")) == first_end);  // cut back to the whole record
  auto writer = BlockFileWriter::open(dir.path.string(), key);
  REQUIRE(writer);
  REQUIRE(writer.value().append(test::segwit_block()));
  REQUIRE(writer.value().close());
  const test::Found r = test::read_records(dir.file("blk00000.dat"), key);
  CHECK(r.blocks.size() == 2);
  CHECK(r.skipped.empty());
}

TEST_CASE("a damaged last file is refused before anything is written, with where the damage begins") {
  TempDir dir;
  {
    auto writer = BlockFileWriter::open(dir.path.string(), key);
    REQUIRE(writer);
    REQUIRE(writer.value().append(test::block413567()));
  }
  const std::string blk = dir.file("blk00000.dat");
  const auto whole = file_bytes(blk);
  SUBCASE("a partial record (a crash mid-write)") {
    auto partial = FileWriter::append(blk.c_str());
    auto half = file_bytes(blk);
    half.resize(half.size() / 2);
    REQUIRE(partial.value().write(half));  // magic and length of a whole record, half its bytes
  }
  SUBCASE("a whole record whose block does not decode") {
    auto appended = FileWriter::append(blk.c_str());
    auto bad = whole;
    bad[8 + 80] ^= std::byte{0xff};  // the transaction count (XOR'd): now garbage
    REQUIRE(appended.value().write(bad));
  }
  const auto before = file_bytes(blk);
  auto refused = BlockFileWriter::open(dir.path.string(), key);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code() == blockfiles::errc::damaged_last_file);
  CHECK(refused.error().offset() == whole.size());
  CHECK(file_bytes(blk) == before);
}

TEST_CASE("Core's padded last file is left alone: appending starts the next file") {
  TempDir dir;
  {
    auto writer = BlockFileWriter::open(dir.path.string(), key);
    REQUIRE(writer);
    REQUIRE(writer.value().append(test::block413567()));
  }
  REQUIRE(::truncate(dir.file("blk00000.dat").c_str(), 16 * 1024 * 1024) == 0);
  auto writer = BlockFileWriter::open(dir.path.string(), key);
  REQUIRE(writer);
  auto at = writer.value().append(test::segwit_block());
  REQUIRE(at);
  CHECK(at.value() == BlockPosition{1, 0});
  CHECK(fs::file_size(dir.file("blk00000.dat")) == 16 * 1024 * 1024);
}

TEST_CASE("rewind removes a run of appends: files this writer created go, its first file is cut back") {
  TempDir dir;
  {
    auto writer = BlockFileWriter::open(dir.path.string(), key);
    REQUIRE(writer);
    REQUIRE(writer.value().append(test::block413567()));
  }
  const auto before = file_bytes(dir.file("blk00000.dat"));
  auto writer = BlockFileWriter::open(dir.path.string(), key);
  REQUIRE(writer);
  const BlockPosition start = writer.value().position();
  for (int i = 0; i < 3; ++i) REQUIRE(writer.value().append(test::segwit_block()));
  REQUIRE(writer.value().rewind(start));
  CHECK(file_bytes(dir.file("blk00000.dat")) == before);
  CHECK(block_files(dir.path.string()).value().size() == 1);
}
