// Bitcoin Core's chainstate read as its UTXO set, against what Core's own
// node answered of it (tests/data/core-regtest: gettxoutsetinfo with
// hash_type hash_serialized_3), and copies of it damaged.
#include "../support/temp_dir.hpp"

#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/directory/error.hpp>

#include <doctest/doctest.h>
#include <leveldb/db.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>

namespace fs = std::filesystem;
using namespace blockwire;

namespace {

const std::string core_data = BLOCKWIRE_TEST_DATA "/core-regtest";

// The chainstate copied, writable, and opened as a node would write it.
struct ChainstateCopy {
  test::TempDir temp;
  std::string dir = temp.file("chainstate");
  ChainstateCopy() {
    fs::copy(core_data + "/chainstate", dir, fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(dir)) fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  }
  std::unique_ptr<leveldb::DB> open() const {
    leveldb::DB* db = nullptr;
    REQUIRE(leveldb::DB::Open(leveldb::Options(), dir, &db).ok());
    return std::unique_ptr<leveldb::DB>(db);
  }
};

}  // namespace

TEST_CASE("Core's chainstate: the UTXO set's count, total, best block and hash_serialized_3 as Core's gettxoutsetinfo gives them") {
  std::ifstream in(core_data + "/rpc/gettxoutsetinfo_hash_serialized_3.json");
  REQUIRE(in);
  const auto core = nlohmann::json::parse(in);
  auto info = core_utxo_set_info(core_data + "/chainstate");
  REQUIRE_MESSAGE(info, info.error().message());
  CHECK(info.value().best_block.to_hex() == core["bestblock"].get<std::string>());
  CHECK(info.value().txouts == core["txouts"].get<std::uint64_t>());
  CHECK(info.value().transactions == core["transactions"].get<std::uint64_t>());
  CHECK(info.value().bogosize == core["bogosize"].get<std::uint64_t>());
  CHECK(info.value().total_amount == Amount::from_sat(std::llround(core["total_amount"].get<double>() * 1e8)));
  CHECK(info.value().hash_serialized_3.to_hex() == core["hash_serialized_3"].get<std::string>());
  // The coins in key order: by txid's bytes, then output index.
  std::optional<OutPoint> last;
  std::uint64_t in_order = 0;
  auto count = read_core_coins(core_data + "/chainstate", [&](const CoreCoin& c) {
    in_order += !last || *last < c.outpoint;
    last = c.outpoint;
  });
  REQUIRE(count);
  CHECK(count.value() == 316);
  CHECK(in_order == 316);
}

TEST_CASE("CoinCursor hands out, when asked, the coins read_core_coins pushes, in the same order, a damaged coin is an error, not an end") {
  std::vector<std::pair<OutPoint, SpentCoin>> pushed;
  REQUIRE(read_core_coins(core_data + "/chainstate", [&](const CoreCoin& c) { pushed.emplace_back(c.outpoint, c.coin); }));
  auto cursor = CoinCursor::open(core_data + "/chainstate");
  REQUIRE_MESSAGE(cursor, cursor.error().message());
  std::ifstream in(core_data + "/rpc/gettxoutsetinfo_hash_serialized_3.json");
  CHECK(cursor.value().best_block()->to_hex() == nlohmann::json::parse(in)["bestblock"].get<std::string>());
  std::vector<std::pair<OutPoint, SpentCoin>> pulled;
  for (;;) {
    auto c = cursor.value().next();
    REQUIRE(c);
    if (c.value() == nullptr) break;
    pulled.emplace_back(c.value()->outpoint, c.value()->coin);
  }
  CHECK(pulled.size() == 316);
  CHECK(pulled == pushed);
  CHECK(cursor.value().count() == 316);
  CHECK(cursor.value().next().value() == nullptr);  // and stays at the end

  ChainstateCopy copy;
  {
    auto db = copy.open();
    std::unique_ptr<leveldb::Iterator> it(db->NewIterator(leveldb::ReadOptions()));
    it->Seek("C");
    REQUIRE(it->Valid());
    REQUIRE(db->Put(leveldb::WriteOptions(), it->key().ToString(), std::string(1, '\x00')).ok());  // the first coin
  }
  auto damaged = CoinCursor::open(copy.dir);
  REQUIRE(damaged);
  auto first = damaged.value().next();
  REQUIRE_FALSE(first);
  CHECK(first.error().code() == directory::errc::bad_index_entry);
}

TEST_CASE("A damaged chainstate is an error naming what is wrong, never a short set") {
  SUBCASE("a coin whose value does not decode: the coin is named") {
    ChainstateCopy copy;
    std::string victim;
    {
      auto db = copy.open();
      std::unique_ptr<leveldb::Iterator> it(db->NewIterator(leveldb::ReadOptions()));
      for (it->Seek("C"); it->Valid() && it->key().starts_with("C"); it->Next()) victim = it->key().ToString();  // the last coin
      REQUIRE(!victim.empty());
      REQUIRE(db->Put(leveldb::WriteOptions(), victim, std::string(1, '\x00')).ok());
    }
    auto info = core_utxo_set_info(copy.dir);
    REQUIRE_FALSE(info);
    CHECK(info.error().code() == directory::errc::bad_index_entry);
    CHECK(info.error().message().find("does not decode") != std::string::npos);
    CHECK(info.error().context().find("the coin ") != std::string::npos);
    CHECK(info.error().context().find(":") != std::string::npos);  // (txid:index)
  }
  SUBCASE("no best block (a chainstate in the middle of a write)") {
    ChainstateCopy copy;
    REQUIRE(copy.open()->Delete(leveldb::WriteOptions(), "B").ok());
    auto info = core_utxo_set_info(copy.dir);
    REQUIRE_FALSE(info);
    CHECK(info.error().context().find("no best block") != std::string::npos);
  }
  SUBCASE("a table file cut short: LevelDB's damage is said") {
    ChainstateCopy copy;
    {
      auto db = copy.open();
      db->CompactRange(nullptr, nullptr);  // the coins into a table file
    }
    std::string table;
    for (const auto& e : fs::directory_iterator(copy.dir)) {
      if (e.path().extension() == ".ldb") table = e.path().string();
    }
    REQUIRE(!table.empty());
    fs::resize_file(table, fs::file_size(table) / 2);
    auto info = core_utxo_set_info(copy.dir);
    REQUIRE_FALSE(info);
    CHECK_FALSE(info.error().context().empty());
  }
  SUBCASE("not a chainstate") {
    test::TempDir empty;
    CHECK_FALSE(core_utxo_set_info(empty.path.string()));
    CHECK_FALSE(core_utxo_set_info(empty.file("missing")));
  }
}

TEST_CASE(
    "A byte flipped anywhere in a chainstate's log or tables: an error naming the user's path, or Core's own set, never another set") {
  std::ifstream in(core_data + "/rpc/gettxoutsetinfo_hash_serialized_3.json");
  REQUIRE(in);
  const std::string core_hash = nlohmann::json::parse(in)["hash_serialized_3"].get<std::string>();
  // The node's own layout (everything in the log), and the same set
  // compacted into a table.
  for (const bool compacted : {false, true}) {
    ChainstateCopy base;
    if (compacted) base.open()->CompactRange(nullptr, nullptr);
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(base.dir)) {
      const auto ext = e.path().extension();
      if ((ext == ".log" || ext == ".ldb") && fs::file_size(e.path()) > 0) files.push_back(e.path().filename());
    }
    REQUIRE(!files.empty());
    std::size_t failed = 0, tried = 0;
    for (const fs::path& name : files) {
      const std::uintmax_t size = fs::file_size(fs::path(base.dir) / name);
      for (std::uintmax_t i = 0; i < 40; ++i) {
        const std::uintmax_t at = (size - 1) * i / 39;
        test::TempDir temp;
        const std::string dir = temp.file("chainstate");
        fs::copy(base.dir, dir, fs::copy_options::recursive);
        {
          std::fstream f(fs::path(dir) / name, std::ios::in | std::ios::out | std::ios::binary);
          f.seekg(static_cast<std::streamoff>(at));
          char c = 0;
          f.get(c);
          f.seekp(static_cast<std::streamoff>(at));
          f.put(static_cast<char>(c ^ 0x20));
        }
        auto info = core_utxo_set_info(dir);
        ++tried;
        if (!info) {
          ++failed;
          const std::string said = info.error().message();
          CHECK_MESSAGE(said.find("blockwire-leveldb-") == std::string::npos, said);  // the user's path, never the private one
          continue;
        }
        // (a flip LevelDB's checksums do not cover, such as a log record's
        // padding, changes nothing)
        CHECK_MESSAGE(info.value().hash_serialized_3.to_hex() == core_hash, name.string() << " byte " << at);
      }
    }
    CHECK(failed * 2 > tried);  // most flips land in checked bytes
  }
}

TEST_CASE("The set as Core's dumptxoutset: byte for byte the file Core's node wrote of the same chainstate") {
  test::TempDir temp;
  const std::string path = temp.file("utxo.dat");
  std::vector<CoinsProgress> seen;
  auto info = write_core_snapshot(core_data + "/chainstate", path, network::regtest, [&](const CoinsProgress& p) { seen.push_back(p); });
  REQUIRE_MESSAGE(info, info.error().message());
  std::ifstream ours(path, std::ios::binary), core(core_data + "/utxo.dat", std::ios::binary);
  REQUIRE(core);
  const std::string ours_bytes{std::istreambuf_iterator<char>(ours), {}}, core_bytes{std::istreambuf_iterator<char>(core), {}};
  CHECK(ours_bytes.size() == core_bytes.size());
  CHECK(ours_bytes == core_bytes);
  std::ifstream answer(core_data + "/rpc/dumptxoutset.json");
  const auto said = nlohmann::json::parse(answer);
  CHECK(info.value().txouts == said["coins_written"].get<std::uint64_t>());
  CHECK(info.value().best_block.to_hex() == said["base_hash"].get<std::string>());
  CHECK(info.value().hash_serialized_3.to_hex() == said["txoutset_hash"].get<std::string>());
  REQUIRE_FALSE(seen.empty());
  CHECK(seen.back().coins == 316);
  CHECK(seen.back().fraction == 1.0);
}

TEST_CASE("A snapshot that fails leaves the file there before it, and no other") {
  test::TempDir temp;
  const std::string path = temp.file("utxo.dat");
  {
    std::ofstream old(path);
    old << "an older snapshot";
  }
  ChainstateCopy copy;
  REQUIRE(copy.open()->Delete(leveldb::WriteOptions(), "B").ok());
  CHECK_FALSE(write_core_snapshot(copy.dir, path, network::regtest));
  std::ifstream old(path);
  std::string kept;
  std::getline(old, kept);
  CHECK(kept == "an older snapshot");
  CHECK(std::distance(fs::directory_iterator(temp.path), fs::directory_iterator()) == 1);  // no temporary file left
  SUBCASE("a folder that is not there") {
    auto written = write_core_snapshot(core_data + "/chainstate", temp.file("missing/utxo.dat"), network::regtest);
    REQUIRE_FALSE(written);
    CHECK(written.error().context().find("writing") != std::string::npos);
  }
}

TEST_CASE("A chainstate under another obfuscation key is an error, never a set of other coins") {
  ChainstateCopy copy;
  {
    auto db = copy.open();
    std::string key;
    const std::string name("\x0e\x00obfuscate_key", 15);
    REQUIRE(db->Get(leveldb::ReadOptions(), name, &key).ok());
    REQUIRE(key.size() == 9);
    for (std::size_t i = 1; i < key.size(); ++i) key[i] = static_cast<char>(key[i] ^ 0x5a);
    REQUIRE(db->Put(leveldb::WriteOptions(), name, key).ok());
  }
  auto info = core_utxo_set_info(copy.dir);
  REQUIRE_FALSE(info);
  CHECK(info.error().code() == directory::errc::bad_index_entry);
  CHECK(info.error().message().find("does not decode") != std::string::npos);
}
