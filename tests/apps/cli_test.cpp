// The blockwire command, run as a user runs it: exit statuses, JSON in
// Bitcoin Core's shape checked against tests/data/README.md, and damaged
// block files.
#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/codec/address.hpp>
#include <blockwire/codec/descriptor.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "../support/test_data.hpp"
#include "../support/bytes.hpp"
#include "../io/test_support.hpp"
#include "../support/temp_dir.hpp"
#include "../support/chain.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace blockwire;

namespace {

struct Run {
  int status;
  std::string out;
};

// Runs `blockwire ARGS` through the shell; stdout captured, stderr to
// stderr_file (or discarded).
Run run(const std::string& args, const std::string& stderr_file = "/dev/null") {
  const std::string command = std::string(BLOCKWIRE_EXE) + " " + args + " 2>" + stderr_file;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char chunk[65536];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;) out.append(chunk, n);
  const int status = ::pclose(pipe);
  REQUIRE(WIFEXITED(status));
  return {WEXITSTATUS(status), out};
}

std::string data(const std::string& name) { return std::string(BLOCKWIRE_TEST_DATA) + "/" + name; }
const std::string block413567 = data("block413567.raw");
const std::string segwit = data("block_000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae.raw");

// A temporary directory; dir / "name" is the path of a file in it.
struct TempDir : test::TempDir {
  std::string operator/(const std::string& name) const { return file(name); }
};

void write_file(const std::string& path, std::span<const std::byte> bytes) {
  auto file = FileWriter::create(path.c_str());
  REQUIRE(file);
  REQUIRE(file.value().write(bytes));
}

std::vector<std::byte> read_file(const std::string& path) {
  auto file = FileReader::open(path.c_str());
  REQUIRE(file);
  return test::read_all(file.value(), 1).value();
}

}  // namespace

TEST_CASE("inspect --json of both real blocks gives the README's hashes, sizes, weights and txids") {
  struct Fact {
    std::string path, hash;
    std::size_t size, stripped, weight, n_tx;
    std::string first_txid, last_txid, last_wtxid;
  };
  const Fact facts[] = {
      {block413567, "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069", 999'887, 999'887, 3'999'548, 1557,
       "5b4aaef3f4e4625d70385ddf0bd2a0b7d7141e4c2fd36d2ff2cad37fff3deb0f",
       "63434bb06525615f43954598d281d03feaae70658c4187ccb3ba7fa7b093a0b8",
       "63434bb06525615f43954598d281d03feaae70658c4187ccb3ba7fa7b093a0b8"},
      {segwit, "000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae", 1'381'836, 870'406, 3'993'054, 2500,
       "764b60c3d9a2c3c5bb6fe7141d9ca6e6778122df75f19366a2c5cb948d1d7d84",
       "2947daf667b1914a2f060e8cf10267ca1d056f0dab3ccb273da474f063b7f412",
       "87adb95df3cadce2bf86d4c58d68bd02412bd9e99d64ab46b9f6603debfa69ab"},
  };
  for (const Fact& f : facts) {
    const Run r = run("inspect --json " + f.path);
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["hash"] == f.hash);
    CHECK(j["size"] == f.size);
    CHECK(j["strippedsize"] == f.stripped);
    CHECK(j["weight"] == f.weight);
    CHECK(j["nTx"] == f.n_tx);
    REQUIRE(j["tx"].size() == f.n_tx);
    CHECK(j["tx"][0]["txid"] == f.first_txid);
    CHECK(j["tx"].back()["txid"] == f.last_txid);
    CHECK(j["tx"].back()["hash"] == f.last_wtxid);
    CHECK(j["tx"][0]["vin"][0].contains("coinbase"));
    CHECK(j["tx"][1]["vin"][0].contains("txid"));
  }
}

TEST_CASE("inspect reads hex too, from a file or standard input, and a transaction") {
  TempDir dir;
  const auto raw = test::block413567();
  std::string hex;
  for (std::byte b : raw) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", std::to_integer<unsigned>(b));
    hex += two;
  }
  hex += "\n";
  write_file(dir / "block.hex", std::as_bytes(std::span(hex.data(), hex.size())));
  const Run from_file = run("inspect --json " + (dir / "block.hex"));
  REQUIRE(from_file.status == 0);
  CHECK(nlohmann::json::parse(from_file.out)["hash"] == "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069");
  const Run from_stdin = run("inspect - < " + block413567);
  CHECK(from_stdin.status == 0);
  CHECK(from_stdin.out.find("0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069") != std::string::npos);

  // The segwit block's last transaction, cut out by its known size.
  const Run tx_json = run("inspect --json " + segwit);
  const std::string tx_hex = nlohmann::json::parse(tx_json.out)["tx"].back()["hex"];
  write_file(dir / "tx.hex", std::as_bytes(std::span(tx_hex.data(), tx_hex.size())));
  const Run tx = run("inspect --json " + (dir / "tx.hex"));
  REQUIRE(tx.status == 0);
  const auto j = nlohmann::json::parse(tx.out);
  CHECK(j["txid"] == "2947daf667b1914a2f060e8cf10267ca1d056f0dab3ccb273da474f063b7f412");
  CHECK(j["hash"] == "87adb95df3cadce2bf86d4c58d68bd02412bd9e99d64ab46b9f6603debfa69ab");
}

TEST_CASE("pack then scan round-trips, with a random key and with none") {
  for (const std::string key_option : {"--random-key", "--xor-key 0000000000000000"}) {
    CAPTURE(key_option);
    TempDir dir;
    const Run packed = run("pack -o " + (dir / "blocks") + " " + key_option + " " + block413567 + " " + segwit);
    REQUIRE(packed.status == 0);
    const Run scanned = run("scan --json " + (dir / "blocks"));
    CHECK(scanned.status == 0);
    const auto j = nlohmann::json::parse(scanned.out);
    CHECK(j["blocks"] == 2);
    CHECK(j["transactions"] == 1557 + 2500);
    CHECK(j["block_bytes"] == 999'887 + 1'381'836);
    CHECK(j["ok"] == true);
    // The record of the second block, read back by offset.
    const Run second = run("inspect --json --offset " + std::to_string(8 + 999'887) + " " + (dir / "blocks/blk00000.dat"));
    REQUIRE(second.status == 0);
    CHECK(nlohmann::json::parse(second.out)["hash"] == "000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae");
  }
}

TEST_CASE("scan: garbage between records is skipped and reported, a truncated last record too, padding is fine") {
  TempDir dir;
  REQUIRE(run("pack -o " + (dir / "a") + " --xor-key 0000000000000000 " + block413567).status == 0);
  REQUIRE(run("pack -o " + (dir / "b") + " --xor-key 0000000000000000 " + segwit).status == 0);
  const auto first = read_file(dir / "a/blk00000.dat");
  const auto second = read_file(dir / "b/blk00000.dat");
  const auto garbage = test::random_bytes(1000, 9);

  write_file(dir / "garbage.dat", test::concat({first, garbage, second}));
  Run r = run("scan --json " + (dir / "garbage.dat"));
  CHECK(r.status == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["blocks"] == 2);
  CHECK(j["skipped_bytes"] == 1000);
  REQUIRE(j["problems"].size() == 1);
  CHECK(j["problems"][0]["offset"] == first.size());

  write_file(dir / "truncated.dat", test::concat({first, std::vector<std::byte>(second.begin(), second.end() - 100)}));
  r = run("scan --json " + (dir / "truncated.dat"));
  CHECK(r.status == 1);
  j = nlohmann::json::parse(r.out);
  CHECK(j["blocks"] == 1);
  REQUIRE(j["problems"].size() == 1);
  CHECK(j["problems"][0]["reason"].get<std::string>().find("past the end of the file") != std::string::npos);

  write_file(dir / "padded.dat", test::concat({first, std::vector<std::byte>(100'000)}));
  r = run("scan --json " + (dir / "padded.dat"));
  CHECK(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["blocks"] == 1);
}

TEST_CASE("scan with the wrong key says so clearly and exits 1") {
  TempDir dir;
  REQUIRE(run("pack -o " + (dir / "blocks") + " --xor-key 0102030405060708 " + block413567).status == 0);
  const Run r = run("scan " + (dir / "blocks") + " --xor-key 0102030405060709");
  CHECK(r.status == 1);
  CHECK(r.out.find("0 blocks") != std::string::npos);
  CHECK(r.out.find("is the XOR key right?") != std::string::npos);
}

TEST_CASE("usage errors exit with status 2, --help with 0") {
  TempDir dir;
  CHECK(run("").status == 2);
  CHECK(run("frobnicate").status == 2);
  CHECK(run("inspect").status == 2);
  CHECK(run("scan").status == 2);
  CHECK(run("pack " + block413567).status == 2);  // no -o
  CHECK(run("pack -o " + (dir / "x") + " --xor-key 12 " + block413567).status == 2);
  CHECK(run("pack -o " + (dir / "x") + " --xor-key 0011223344556677 --random-key " + block413567).status == 2);
  CHECK(run("scan --network moon " + block413567).status == 2);
  CHECK(run("inspect /nonexistent/file").status == 2);
  CHECK(run("scan /nonexistent/dir").status == 2);
  CHECK(run("--help").status == 0);
  CHECK(run("inspect --help").out.find("getblock") != std::string::npos);
  // Packing into a directory that already has blk files needs --append.
  REQUIRE(run("pack -o " + (dir / "y") + " " + block413567).status == 0);
  CHECK(run("pack -o " + (dir / "y") + " " + segwit).status == 2);
  CHECK(run("pack -o " + (dir / "y") + " --append " + segwit).status == 0);
  CHECK(nlohmann::json::parse(run("scan --json " + (dir / "y")).out)["blocks"] == 2);
}

TEST_CASE("inspect survives output values that overflow a sum") {
  TempDir dir;
  // version 1, one input, two outputs of INT64_MAX satoshis with empty
  // scripts, lock time 0.
  std::string hex =
      "01000000"
      "01" +
      std::string(64, '1') +
      "00000000"
      "00"
      "ffffffff"
      "02"
      "ffffffffffffff7f"
      "00"
      "ffffffffffffff7f"
      "00"
      "00000000";
  write_file(dir / "tx.hex", std::as_bytes(std::span(hex.data(), hex.size())));
  const Run r = run("inspect " + (dir / "tx.hex"));
  CHECK(r.status == 0);
  CHECK(r.out.find("outside the money range") != std::string::npos);
}

namespace {

// One blk-file record: mainnet magic, length, block; no obfuscation.
std::vector<std::byte> record(std::span<const std::byte> block) {
  const std::uint32_t n = static_cast<std::uint32_t>(block.size());
  auto out = test::bytes({0xf9, 0xbe, 0xb4, 0xd9, int(n & 0xff), int((n >> 8) & 0xff), int((n >> 16) & 0xff), int(n >> 24)});
  out.insert(out.end(), block.begin(), block.end());
  return out;
}

std::string read_text(const std::string& path) {
  const auto bytes = read_file(path);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

TEST_CASE("scan reports a record whose block does not decode once, with the fault's offset in the file") {
  TempDir dir;
  // 100 bytes of 0xff: the header, then a CompactSize 0xff ff..ff that
  // ends at byte 8 + 80 + 9 = 97 of the file.
  write_file(dir / "blk00000.dat", test::concat({record(std::vector<std::byte>(100, std::byte{0xff})), record(test::block413567())}));
  const Run r = run("scan --xor-key 0000000000000000 " + (dir / "blk00000.dat"));
  CHECK(r.status == 1);
  CHECK(r.out.find("1 block,") != std::string::npos);  // singular
  CHECK(r.out.find("re-encoded to the same bytes: NO") != std::string::npos);
  CHECK(r.out.find("(1 failed block, 108 bytes skipped)") != std::string::npos);
  CHECK(r.out.find("1 problem (") != std::string::npos);
  CHECK(r.out.find(":0: 108 bytes skipped: the record's block does not decode") != std::string::npos);
  CHECK(r.out.find("at byte 97 of the file") != std::string::npos);
  CHECK(r.out.find("XOR key") == std::string::npos);  // the magic was right: not a key problem
}

TEST_CASE("pack checks every input before writing anything") {
  TempDir dir;
  write_file(dir / "short.raw", std::span(test::block413567()).first(300));
  const Run r = run("pack -o " + (dir / "blocks") + " " + block413567 + " " + (dir / "short.raw"), dir / "err");
  CHECK(r.status == 1);
  CHECK(read_text(dir / "err").find("short.raw is not a block: input ends inside an object (truncated) at byte 300") != std::string::npos);
  CHECK(!fs::exists(dir / "blocks"));
  // The retry that a partly written directory used to refuse:
  CHECK(run("pack -o " + (dir / "blocks") + " " + block413567).status == 0);
}

TEST_CASE("pack warns when a block's proof of work is easier than --network allows") {
  TempDir dir;
  auto regtest_like = test::block413567();
  const auto bits = test::bytes({0xff, 0xff, 0x7f, 0x20});  // 0x207fffff, regtest's limit
  std::copy(bits.begin(), bits.end(), regtest_like.begin() + 72);
  write_file(dir / "easy.raw", regtest_like);
  CHECK(run("pack -o " + (dir / "main") + " " + (dir / "easy.raw"), dir / "err").status == 0);
  CHECK(read_text(dir / "err").find("easy.raw: its bits 207fffff are easier than mainnet allows") != std::string::npos);
  CHECK(run("pack --network regtest -o " + (dir / "reg") + " " + (dir / "easy.raw"), dir / "err2").status == 0);
  CHECK(read_text(dir / "err2").empty());
}

TEST_CASE("inspect --offset: no record past the end is a usage error, a damaged one is bad data, both name file and offset") {
  TempDir dir;
  REQUIRE(run("pack -o " + (dir / "blocks") + " " + block413567).status == 0);
  const std::string blk = dir / "blocks/blk00000.dat";
  CHECK(run("inspect " + blk + " --offset 99999999", dir / "err").status == 2);
  CHECK(read_text(dir / "err").find("blk00000.dat:99999999: no record there") != std::string::npos);
  CHECK(run("inspect " + blk + " --offset 5", dir / "err").status == 1);
  CHECK(read_text(dir / "err").find("blk00000.dat:5: bad magic") != std::string::npos);
  CHECK(run("inspect " + blk + " --offset 0").status == 0);
  CHECK(run("inspect " + blk + " --offset 0 --xor-key 0102", dir / "err").status == 2);
  CHECK(read_text(dir / "err").find("--xor-key takes 16 hex digits") != std::string::npos);
}

// Issue 11: real blocks directories, hostile inputs, messages --------------

namespace {

// One record as Core frames it, with a block of our own making.
using test::le32;

}  // namespace

TEST_CASE("scan: a Core-style file (XOR'd records, then raw zeros to 16 MiB) is clean") {
  TempDir dir;
  REQUIRE(run("pack -o " + (dir / "blocks") + " --xor-key 3c910e7ad25508e1 " + block413567 + " " + segwit).status == 0);
  REQUIRE(::truncate((dir / "blocks/blk00000.dat").c_str(), 16 * 1024 * 1024) == 0);
  const Run r = run("scan " + (dir / "blocks"));
  CHECK(r.status == 0);
  CHECK(r.out.find("2 blocks") != std::string::npos);
  CHECK(r.out.find("problem") == std::string::npos);
}

TEST_CASE("pack --append twice at once: one writes, the other is refused, nothing interleaves") {
  TempDir dir;
  REQUIRE(run("pack -o " + (dir / "blocks") + " " + block413567).status == 0);
  std::string twenty;
  for (int i = 0; i < 20; ++i) twenty += " " + segwit;
  // Both started together through the shell; each exit status to a file.
  const std::string one = std::string(BLOCKWIRE_EXE) + " pack --append -o " + (dir / "blocks") + twenty;
  const std::string script = "(" + one + " 2>" + (dir / "e1") + "; echo $? >" + (dir / "s1") + ") & (" + one + " 2>" + (dir / "e2") +
                             "; echo $? >" + (dir / "s2") + ") & wait";
  REQUIRE(std::system(script.c_str()) == 0);
  const int s1 = std::stoi(read_text(dir / "s1"));
  const int s2 = std::stoi(read_text(dir / "s2"));
  CHECK(s1 + s2 <= 2);  // at least one succeeded; a refusal is 2
  const std::size_t succeeded = (s1 == 0 ? 1u : 0u) + (s2 == 0 ? 1u : 0u);
  CHECK(succeeded >= 1);
  if (succeeded == 1)
    CHECK((read_text(dir / "e1") + read_text(dir / "e2")).find("another writer holds the directory's lock") != std::string::npos);
  const Run r = run("scan --json " + (dir / "blocks"));
  CHECK(r.status == 0);  // every record whole
  // The same block twenty times: added once, whichever ran first; a block
  // the directory holds is never added again.
  CHECK(nlohmann::json::parse(r.out)["blocks"] == 2);
}

TEST_CASE("pack: a failed write leaves a new directory absent, and an existing one as it was") {
  TempDir dir;
  // A file size limit (the shell's ulimit -f, in 512-byte blocks) below one block.
  REQUIRE(run("pack -o " + (dir / "new") + " " + block413567).status == 0);
  // 2,500 x 512 bytes: room for block 413567, not for the segwit block after it.
  const std::string limited = "sh -c 'ulimit -f 2500; exec " + std::string(BLOCKWIRE_EXE) + " \"$@\"' blockwire ";
  const std::string cmd1 = limited + "pack -o " + (dir / "other") + " " + block413567 + " " + segwit + " 2>" + (dir / "err1");
  CHECK(WEXITSTATUS(std::system(cmd1.c_str())) == 2);
  CHECK(read_text(dir / "err1").find("File too large") != std::string::npos);
  CHECK(!fs::exists(dir / "other"));
  for (const auto& entry : fs::directory_iterator(dir.path)) CHECK(entry.path().filename().string().find(".partial") == std::string::npos);

  const auto before = read_file(dir / "new/blk00000.dat");
  const std::string cmd2 = limited + "pack --append -o " + (dir / "new") + " " + segwit + " 2>" + (dir / "err2");
  CHECK(WEXITSTATUS(std::system(cmd2.c_str())) == 2);
  CHECK(read_text(dir / "err2").find("is as it was before this run") != std::string::npos);
  CHECK(read_file(dir / "new/blk00000.dat") == before);
  CHECK(run("scan " + (dir / "new")).status == 0);
}

namespace {

// DIR/blocks packed, unobfuscated, with block 413567: its blk file's bytes.
std::vector<std::byte> packed_413567(const TempDir& dir) {
  REQUIRE(run("pack -o " + (dir / "blocks") + " --xor-key 0000000000000000 " + block413567).status == 0);
  return read_file(dir / "blocks/blk00000.dat");
}

}  // namespace

TEST_CASE("pack --append cuts off a torn last record (what a crash leaves), says so, and appends after the whole ones") {
  TempDir dir;
  auto bytes = packed_413567(dir);
  const std::size_t whole = bytes.size();
  bytes.resize(whole + whole / 2);  // half a record more, as a crash leaves it
  std::copy(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(whole / 2), bytes.begin() + static_cast<std::ptrdiff_t>(whole));
  write_file(dir / "blocks/blk00000.dat", bytes);
  // Read while no writer holds the lock, the torn record is damage the index names.
  CHECK(run("blocks " + (dir / "blocks"), dir / "err0").status == 1);
  CHECK(read_text(dir / "err0").find("blk00000.dat:" + std::to_string(whole) + ": the file ends inside a record") != std::string::npos);
  const Run r = run("pack --append -o " + (dir / "blocks") + " " + segwit, dir / "err");
  CHECK(r.status == 0);
  CHECK(read_text(dir / "err").find("cut off a torn record") != std::string::npos);
  CHECK(read_text(dir / "err").find("it now ends at byte " + std::to_string(whole) + " of blk00000.dat") != std::string::npos);
  const auto after = read_file(dir / "blocks/blk00000.dat");
  CHECK(after == test::concat({std::vector<std::byte>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(whole)),
                               record(test::segwit_block())}));
  CHECK(run("scan --no-progress " + (dir / "blocks")).status == 0);
}

TEST_CASE("pack --append refuses a last file damaged before a whole record (exit 1) and writes nothing") {
  TempDir dir;
  auto bytes = packed_413567(dir);
  const std::size_t whole = bytes.size();
  // A record whose block does not decode, then a whole one: not a torn tail.
  bytes = test::concat({bytes, record(std::vector<std::byte>(100, std::byte{0xff})), record(test::block413567())});
  write_file(dir / "blocks/blk00000.dat", bytes);
  const Run r = run("pack --append -o " + (dir / "blocks") + " " + segwit, dir / "err");
  CHECK(r.status == 1);
  CHECK(read_text(dir / "err").find("damage at byte " + std::to_string(whole)) != std::string::npos);
  CHECK(read_file(dir / "blocks/blk00000.dat") == bytes);
}

TEST_CASE("scan: 10 MB of magic and garbage is one merged problem, over 1,000 problems are counted, 1,000 listed") {
  TempDir dir;
  std::vector<std::byte> garbage;
  auto noise = test::random_bytes(97, 3);
  std::fill(noise.begin(), noise.begin() + 4, std::byte{0xff});  // an implausible length after each magic
  while (garbage.size() < 10'000'000) {
    const auto m = test::bytes({0xf9, 0xbe, 0xb4, 0xd9});
    garbage.insert(garbage.end(), m.begin(), m.end());
    garbage.insert(garbage.end(), noise.begin(), noise.end());
  }
  write_file(dir / "garbage.dat", garbage);
  Run r = run("scan --json --xor-key 0000000000000000 " + (dir / "garbage.dat"));
  CHECK(r.status == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["problem_count"] == 1);
  CHECK(j["skipped_bytes"] == garbage.size());

  // 1,500 records of the right frame whose blocks do not decode: each a failed block.
  std::vector<std::byte> failed;
  for (int i = 0; i < 1500; ++i) {
    const auto frame = test::concat({test::bytes({0xf9, 0xbe, 0xb4, 0xd9}), le32(100), std::vector<std::byte>(100, std::byte{0xff})});
    failed.insert(failed.end(), frame.begin(), frame.end());
  }
  write_file(dir / "failed.dat", failed);
  r = run("scan --json --xor-key 0000000000000000 " + (dir / "failed.dat"));
  CHECK(r.status == 1);
  j = nlohmann::json::parse(r.out);
  CHECK(j["failed_blocks"] == 1500);
  CHECK(j["problem_count"] == 1500);
  CHECK(j["problems"].size() == 1000);
}

TEST_CASE("scan: records nested in records' scripts do not make resync quadratic: past a budget, one is skipped by its length") {
  TempDir dir;
  const auto inner = test::nested_failing_records(40);
  write_file(dir / "nested.dat", inner);
  const Run r = run("scan --xor-key 0000000000000000 " + (dir / "nested.dat"));
  CHECK(r.status == 1);
  CHECK(r.out.find("skipped by its length (resync budget for this stretch spent)") != std::string::npos);
}

TEST_CASE("inspect: input longer than any block stops with a clear error (/dev/zero)") {
  TempDir dir;
  const Run r = run("inspect /dev/zero", dir / "err");
  CHECK(r.status == 1);
  CHECK(read_text(dir / "err").find("longer than any block or transaction (over 9,000,000 bytes read") != std::string::npos);
}

TEST_CASE("inspect: Core's decoderawtransaction rule, a zero-input transaction in the legacy form") {
  TempDir dir;
  const std::string hex = "010000000001e803000000000000015100000000";  // from the issue: Core decodes it
  write_file(dir / "tx.hex", std::as_bytes(std::span(hex.data(), hex.size())));
  const Run r = run("inspect --json " + (dir / "tx.hex"));
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["vin"].empty());
  REQUIRE(j["vout"].size() == 1);
  CHECK(j["vout"][0]["value"] == 0.00001);  // 1,000 satoshis
  CHECK(j["vout"][0]["scriptPubKey"]["hex"] == "51");
}

TEST_CASE("inspect: hex with white space inside is hex, a 0x prefix or an odd length is reported as bad hex, with where") {
  TempDir dir;
  auto hex = to_hex(test::segwit_block());
  hex.insert(1000, "\n  \n");
  write_file(dir / "spaced.hex", std::as_bytes(std::span(hex.data(), hex.size())));
  CHECK(run("inspect " + (dir / "spaced.hex")).status == 0);
  write_file(dir / "prefixed.hex", test::bytes({'0', 'x', '0', '1'}));
  CHECK(run("inspect " + (dir / "prefixed.hex"), dir / "err").status == 1);
  CHECK(read_text(dir / "err").find("not a hex digit at byte 1 (hex takes no 0x prefix)") != std::string::npos);
  write_file(dir / "odd.hex", test::bytes({'a', 'b', 'c'}));
  CHECK(run("inspect " + (dir / "odd.hex"), dir / "err").status == 1);
  CHECK(read_text(dir / "err").find("an odd number of hex digits (3)") != std::string::npos);
}

TEST_CASE("inspect: a raw transaction whose bytes are all hex digits is still found (the other reading is tried)") {
  // A legacy transaction whose every byte is an ASCII hex digit: counts of
  // 0x31 ('1') inputs and outputs, scripts of 0x30 ('0') bytes of 'a', and
  // integers made of digit bytes. The test checks that before relying on it.
  TransactionBuilder builder;
  builder.version = 0x31313131;
  const std::vector<std::byte> script(0x30, std::byte{0x61});
  TransactionBuilder::Input in;
  in.prevout.txid = Txid::from_hex(std::string(64, '3')).value();  // bytes 0x33
  in.prevout.index = 0x30303030;
  in.script_sig = script;
  in.sequence = 0x39393939;
  builder.inputs.assign(0x31, in);
  builder.outputs.assign(0x31, TransactionBuilder::Output{Amount::from_sat(0x3131313131313131), script});
  builder.lock_time = 0x32323232;
  const Transaction tx = builder.build();
  std::vector<std::byte> raw;
  encode_transaction(tx, raw);
  const bool all_digits = std::all_of(raw.begin(), raw.end(), [](std::byte b) {
    const char c = static_cast<char>(b);
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
  REQUIRE(all_digits);
  TempDir dir;
  write_file(dir / "tx.raw", raw);
  const Run r = run("inspect --json " + (dir / "tx.raw"));
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["txid"] == tx.txid().to_hex());
}

TEST_CASE("usage: --threads is capped, --offset is not negative, a FIFO is not a blk file, bad data is 1, not 2") {
  TempDir dir;
  REQUIRE(run("pack -o " + (dir / "blocks") + " " + block413567).status == 0);
  CHECK(run("scan --threads 40000 " + (dir / "blocks"), dir / "err").status == 2);
  CHECK(read_text(dir / "err").find("at most 4 x the cores") != std::string::npos);
  CHECK(run("inspect " + (dir / "blocks/blk00000.dat") + " --offset -1", dir / "err").status == 2);
  CHECK(read_text(dir / "err").find("--offset: a whole number (0 or more), not -1") != std::string::npos);
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK(run("scan " + (dir / "fifo"), dir / "err").status == 2);
  CHECK(read_text(dir / "err").find("not a blk file or a blocks directory") != std::string::npos);
  // A 5 MB "block": bad data.
  write_file(dir / "huge.raw", std::vector<std::byte>(5'000'000, std::byte{1}));
  CHECK(run("pack -o " + (dir / "huge") + " " + (dir / "huge.raw"), dir / "err").status == 1);
  CHECK(read_text(dir / "err").find("block longer than 4,000,000 bytes") != std::string::npos);
}

TEST_CASE("output that cannot be written is an I/O error (exit 2), not a success") {
  TempDir dir;
  REQUIRE(run("pack -o " + (dir / "blocks") + " " + block413567).status == 0);
  const int status =
      std::system((std::string(BLOCKWIRE_EXE) + " scan --json " + (dir / "blocks") + " >/dev/full 2>" + (dir / "err")).c_str());
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(read_text(dir / "err").find("No space left on device") != std::string::npos);
}

TEST_CASE("scan: a file that cannot be read is not counted as scanned") {
  TempDir dir;
  REQUIRE(run("pack -o " + (dir / "blocks") + " " + block413567).status == 0);
  write_file(dir / "blocks/blk00001.dat", test::block413567());
  ::chmod((dir / "blocks/blk00001.dat").c_str(), 0);
  // root reads anything: run the scan as nobody (setpriv), who may read
  // everything else here.
  ::chmod(dir.path.c_str(), 0755);
  ::chmod((dir / "blocks").c_str(), 0755);
  ::chmod((dir / "blocks/blk00000.dat").c_str(), 0644);
  ::chmod((dir / "blocks/xor.dat").c_str(), 0644);
  const std::string as_user = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const int status =
      std::system((as_user + BLOCKWIRE_EXE + " scan --json " + (dir / "blocks") + " >" + (dir / "out") + " 2>/dev/null").c_str());
  CHECK(WEXITSTATUS(status) == 2);
  const auto j = nlohmann::json::parse(read_text(dir / "out"));
  CHECK(j["bytes"] == fs::file_size(dir / "blocks/blk00000.dat"));
  CHECK(j.contains("io_error"));
}

// Issue 12 (part): scripts in the JSON, in Bitcoin Core's shape ----------------

namespace {

std::vector<std::string> keys_of(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

}  // namespace

TEST_CASE("inspect --json: Core's key order, 8-decimal amounts, and asm/desc/address/type that agree with the script") {
  const Run r = run("inspect --json " + segwit);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::ordered_json::parse(r.out);
  // blockheaderToJSON then blockToJSON, without what needs the chain.
  CHECK(keys_of(j) == std::vector<std::string>{"hash", "version", "versionHex", "merkleroot", "time", "nonce", "bits", "target",
                                               "difficulty", "nTx", "previousblockhash", "strippedsize", "size", "weight", "tx"});
  CHECK(keys_of(j["tx"][1]) ==
        std::vector<std::string>{"txid", "hash", "version", "size", "vsize", "weight", "locktime", "vin", "vout", "hex"});
  std::size_t outputs = 0;
  std::size_t with_address = 0;
  for (const auto& tx : j["tx"]) {
    for (const auto& in : tx["vin"]) {
      if (in.contains("coinbase")) continue;
      CHECK(keys_of(in["scriptSig"]) == std::vector<std::string>{"asm", "hex"});
    }
    for (const auto& out : tx["vout"]) {
      ++outputs;
      const auto& spk = out["scriptPubKey"];
      const auto keys = keys_of(spk);
      const bool has_address = spk.contains("address");
      CHECK(keys == (has_address ? std::vector<std::string>{"asm", "desc", "hex", "address", "type"}
                                 : std::vector<std::string>{"asm", "desc", "hex", "type"}));
      const auto script = test::from_hex(spk["hex"].get<std::string>());
      if (has_address) {
        ++with_address;
        const auto decoded = decode_address(spk["address"].get<std::string>(), network::mainnet);
        REQUIRE(decoded);
        CHECK(decoded.value() == script);
      }
      const std::string desc = spk["desc"];
      const auto hash = desc.rfind('#');
      REQUIRE(hash != std::string::npos);
      CHECK(descriptor_checksum(desc.substr(0, hash)) == desc.substr(hash + 1));
    }
  }
  CHECK(outputs > 5000);
  CHECK(with_address > 4000);
  // Amounts as Core's ValueFromAmount writes them: always 8 decimals.
  const auto first_value = r.out.find("\"value\": ");
  REQUIRE(first_value != std::string::npos);
  const auto end = r.out.find_first_of(",\n", first_value);
  const std::string value = r.out.substr(first_value + 9, end - first_value - 9);
  CHECK(value.size() - value.find('.') - 1 == 8);
}

TEST_CASE("inspect --json: difficulty as Core's UniValue prints a double (16 significant digits)") {
  TempDir dir;
  for (const auto& [bits, text] : std::vector<std::pair<std::vector<std::byte>, std::string>>{
           {test::bytes({0xff, 0xff, 0x00, 0x1d}), "\"difficulty\": 1,"},                    // 0x1d00ffff
           {test::bytes({0x4c, 0x86, 0x04, 0x1b}), "\"difficulty\": 14484.1623612254,"}}) {  // 0x1b04864c, the example
    auto block = test::block413567();
    std::copy(bits.begin(), bits.end(), block.begin() + 72);
    write_file(dir / "block.raw", block);
    const Run r = run("inspect --json " + (dir / "block.raw"));  // the proof of work no longer holds: exit 1, JSON all the same
    CHECK(r.out.find(text) != std::string::npos);
  }
}

TEST_CASE("blocks: a directory's best chain in height order, with getblock's chain fields in Core's order, inspect --offset too") {
  const Block g = test::mine(BlockHash::all_zeros(), 1000, 0);
  const Block b1 = test::mine(block_hash(g.header), 1600, 1);
  const Block b2 = test::mine(block_hash(b1.header), 2200, 2);
  const Block a2 = test::mine(block_hash(b1.header), 2300, 20);  // a fork, off the best chain
  const Block b3 = test::mine(block_hash(b2.header), 2800, 3);
  TempDir dir;
  std::string inputs;
  std::uint64_t a2_offset = 0;
  std::uint64_t offset = 0;
  int n = 0;
  for (const Block* b : {&b3, &a2, &g, &b2, &b1}) {  // out of order on disk
    std::vector<std::byte> raw;
    encode_block(*b, raw);
    const std::string file = dir / ("b" + std::to_string(n++) + ".raw");
    write_file(file, raw);
    inputs += " " + file;
    if (b == &a2) a2_offset = offset;
    offset += 8 + raw.size();
  }
  REQUIRE(run("pack --network regtest --xor-key 0000000000000000 -o " + (dir / "blocks") + inputs).status == 0);

  Run r = run("blocks --network regtest --json --verbosity 2 " + (dir / "blocks"));
  REQUIRE(r.status == 0);
  auto j = nlohmann::ordered_json::parse(r.out);
  REQUIRE(j.size() == 4);
  CHECK(keys_of(j[1]) == std::vector<std::string>{"hash",          "confirmations", "height",     "version", "versionHex",
                                                  "merkleroot",    "time",          "mediantime", "nonce",   "bits",
                                                  "target",        "difficulty",    "chainwork",  "nTx",     "previousblockhash",
                                                  "nextblockhash", "strippedsize",  "size",       "weight",  "tx"});
  const Block* chain[] = {&g, &b1, &b2, &b3};
  for (std::size_t h = 0; h < 4; ++h) {
    CAPTURE(h);
    CHECK(j[h]["hash"] == block_hash(chain[h]->header).to_hex());
    CHECK(j[h]["height"] == h);
    CHECK(j[h]["confirmations"] == 4 - h);
    char work[3];
    std::snprintf(work, sizeof work, "%02x", static_cast<unsigned>(2 * (h + 1)));  // regtest: 2 a block
    CHECK(j[h]["chainwork"] == std::string(62, '0') + work);
    CHECK(j[h].contains("nextblockhash") == (h < 3));
    CHECK(j[h]["tx"][0]["vout"][0]["scriptPubKey"]["type"] == "nonstandard");  // OP_TRUE
  }
  CHECK(j[0]["mediantime"] == 1000);
  CHECK(j[3]["mediantime"] == 2200);  // Core's rule: the sorted {1000, 1600, 2200, 2800}, index 4 / 2
  // No --network: the records' magic says regtest.
  CHECK(nlohmann::json::parse(run("blocks --json " + (dir / "blocks")).out).size() == 4);
  const Run scanned = run("scan " + (dir / "blocks"));  // with mainnet's magic it would find no record at all
  CHECK(scanned.status == 0);
  CHECK(scanned.out.find("5 blocks") != std::string::npos);
  r = run("blocks --network regtest --json --verbosity 1 --from 2 --count 1 " + (dir / "blocks"));
  j = nlohmann::ordered_json::parse(r.out);
  REQUIRE(j.size() == 1);
  CHECK(j[0]["height"] == 2);
  CHECK(j[0]["tx"][0] == b2.transactions[0].txid().to_hex());  // verbosity 1: txids

  r = run("inspect --json --network regtest --offset " + std::to_string(a2_offset) + " " + (dir / "blocks/blk00000.dat"));
  REQUIRE(r.status == 0);
  j = nlohmann::ordered_json::parse(r.out);
  CHECK(j["hash"] == block_hash(a2.header).to_hex());
  CHECK(j["confirmations"] == -1);
  CHECK(j["height"] == 2);
  CHECK_FALSE(j.contains("nextblockhash"));
}

TEST_CASE("utxos --json: what Core's gettxoutsetinfo answered of the same chainstate, key for key, a missing one, exit 2") {
  const Run r = run("utxos " + data("core-regtest/chainstate") + " --json");
  REQUIRE(r.status == 0);
  const auto ours = nlohmann::json::parse(r.out);
  std::ifstream in(data("core-regtest/rpc/gettxoutsetinfo_hash_serialized_3.json"));
  REQUIRE(in);
  const auto core = nlohmann::json::parse(in);
  for (const char* key : {"height", "bestblock", "txouts", "bogosize", "hash_serialized_3", "total_amount", "transactions"}) {
    CAPTURE(key);
    CHECK(ours[key] == core[key]);
  }
  CHECK(run("utxos " + data("core-regtest/no-such-chainstate")).status == 2);
}

TEST_CASE("utxos --tables: a chainstate whose best block the blocks directory does not hold is said, and leaves nothing behind") {
  TempDir out;
  const Run r =
      run("utxos " + data("core-regtest/chainstate") + " --tables " + out.file("t") + " --blocks " + out.path.string(), out.file("err"));
  CHECK(r.status != 0);
  CHECK(read_text(out.file("err")).find("is not in") != std::string::npos);
  std::size_t left = 0;  // no height folder, no hidden one
  for (const auto& e : std::filesystem::recursive_directory_iterator(out.file("t"))) {
    left += e.path().filename().string().find("height") != std::string::npos ? 1 : 0;
  }
  CHECK(left == 0);
  CHECK(run("utxos " + data("core-regtest/chainstate") + " --tables " + out.file("t") + " --snapshot " + out.file("s")).status == 2);
}

TEST_CASE("utxos --snapshot: Core's dumptxoutset file byte for byte, its network taken from the blocks beside the chainstate") {
  TempDir out;
  const std::string path = out.file("utxo.dat");
  const Run r = run("utxos " + data("core-regtest/chainstate") + " --snapshot " + path);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("0c40457f115ec84e0acb157994b355bdd2727ca27e2b905070de794b8213b5bb") != std::string::npos);
  CHECK(read_text(path) == read_text(data("core-regtest/utxo.dat")));
  // Another network's magic when told.
  REQUIRE(run("utxos " + data("core-regtest/chainstate") + " --network signet --snapshot " + path).status == 0);
  CHECK(read_text(path) != read_text(data("core-regtest/utxo.dat")));
  CHECK(run("utxos " + data("core-regtest/chainstate") + " --snapshot " + out.file("no/such/folder/utxo.dat")).status == 2);
}
