// The blockwire command, run as a user runs it: exit statuses, JSON in
// Bitcoin Core's shape checked against tests/data/README.md, and damaged
// block files.
#include <blockwire/blockfiles.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "../support/test_data.hpp"
#include "../support/bytes.hpp"
#include "../io/test_support.hpp"
#include "../support/temp_dir.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

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

TEST_CASE("scan: garbage between records is skipped and reported, a truncated last record too; padding is fine") {
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

TEST_CASE("usage errors exit with status 2; --help with 0") {
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
  std::string hex = "01000000" "01" + std::string(64, '1') + "00000000" "00" "ffffffff" "02" "ffffffffffffff7f" "00"
                    "ffffffffffffff7f" "00" "00000000";
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

TEST_CASE("inspect --offset: no record past the end is a usage error, a damaged one is bad data; both name file and offset") {
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
