// Bitcoin Core's block index as the source of a directory's chain, against
// the directory Core's own node wrote (tests/data/core-regtest) and Core's
// RPC answers about it; and copies of it whose index lies or is locked.
#include "../support/core_regtest.hpp"
#include "../support/temp_dir.hpp"

#include <blockwire/codec/hashes.hpp>
#include <blockwire/directory.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/directory/core_index.hpp>
#include <blockwire/io/hex.hpp>

#include <doctest/doctest.h>
#include <leveldb/db.h>
#include <leveldb/write_batch.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace blockwire;

namespace {

using test::core_data;
using test::rpc;

BlockHash hash_of(const std::string& hex) {
  auto h = BlockHash::from_hex(hex);
  REQUIRE(h);
  return h.value();
}

// Core's data directory copied: blocks/ (with index/) and chainstate/.
struct CoreCopy {
  test::TempDir temp;
  std::string blocks = temp.file("blocks");
  CoreCopy() {
    fs::copy(core_data + "/blocks", blocks, fs::copy_options::recursive);
    fs::copy(core_data + "/chainstate", temp.file("chainstate"), fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(temp.path))
      fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  }
};

// Opens the copy's block index for writing, as a node would.
std::unique_ptr<leveldb::DB> open_index(const std::string& blocks) {
  leveldb::DB* db = nullptr;
  leveldb::Options options;
  REQUIRE(leveldb::DB::Open(options, blocks + "/index", &db).ok());
  return std::unique_ptr<leveldb::DB>(db);
}

std::string key_of(const BlockHash& hash) {
  std::string key(1, 'b');
  key.append(reinterpret_cast<const char*>(hash.bytes().data()), 32);
  return key;
}

// Rewrites the entry of `hash` in the copy's index through `change`.
void lie_about(const std::string& blocks, const BlockHash& hash, const std::function<void(CoreBlockEntry&)>& change) {
  auto db = open_index(blocks);
  std::string value;
  REQUIRE(db->Get(leveldb::ReadOptions(), key_of(hash), &value).ok());
  auto entry = decode_core_block_entry(hash, std::span<const std::byte>(reinterpret_cast<const std::byte*>(value.data()), value.size()));
  REQUIRE(entry);
  CoreBlockEntry e = entry.value();
  change(e);
  leveldb::WriteOptions sync;
  sync.sync = true;
  const auto bytes = encode_core_block_entry(e);
  REQUIRE(db->Put(sync, key_of(hash), leveldb::Slice(reinterpret_cast<const char*>(bytes.data()), bytes.size())).ok());
}

// Whether a note of the directory's says `what`.
bool said(const BlocksDirectory& dir, const std::string& what) {
  return std::any_of(dir.notes().begin(), dir.notes().end(), [&](const std::string& n) { return n.find(what) != std::string::npos; });
}

// Opened from Bitcoin Core's index (or the blk files), not from an index
// blockwire kept of it.
result<BlocksDirectory> open_core(const std::string& path, bool core_index = true) {
  BlocksDirectory::Options o;
  o.kept_index = false;
  o.core_index = core_index;
  return BlocksDirectory::open(path, o);
}

std::vector<BlockHash> chain_hashes(const BlocksDirectory& dir) {
  std::vector<BlockHash> out;
  for (const Height h : dir.chain_size().heights()) out.push_back(dir.at_height(h).hash);
  return out;
}

std::vector<BlockHash> core_chain() {
  std::vector<BlockHash> out;
  for (const auto& h : rpc("getblockhash")) out.push_back(hash_of(h.get<std::string>()));
  return out;
}

// The undo data of the best chain's block at `h`, read as a caller reads it.
BlockUndo undo_at(const BlocksDirectory& dir, Height h) {
  const IndexedBlock b = dir.at_height(h);
  auto bytes = dir.read_block(b);
  REQUIRE(bytes);
  auto view = BlockView::parse(bytes.value());
  REQUIRE(view);
  auto undo = dir.undo_of(b, view.value());
  REQUIRE_MESSAGE(undo, undo.error().message());
  return std::move(undo).value();
}

// Every file under `dir` with its size and modification time.
std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> listing(const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out[e.path().string()] = {e.is_regular_file() ? e.file_size() : 0, e.last_write_time()};
  }
  return out;
}

}  // namespace

TEST_CASE("Core's block index: every entry decodes, heights and tip as Core's RPC gives them, the stale blocks failed") {
  std::map<BlockHash, CoreBlockEntry> entries;
  auto count = read_core_block_index(core_data + "/blocks/index", [&](const CoreBlockEntry& e) { entries.emplace(e.hash, e); });
  REQUIRE_MESSAGE(count, count.error().message());
  CHECK(count.value() == 241);  // the 238 of the best chain and the three a reorg left
  for (const auto& header : rpc("getblockheader")) {
    const auto it = entries.find(hash_of(header["hash"].get<std::string>()));
    REQUIRE(it != entries.end());
    const CoreBlockEntry& e = it->second;
    CHECK(e.height == header["height"].get<int>());
    CHECK(e.tx_count == header["nTx"].get<unsigned>());
    CHECK(e.header.time == header["time"].get<std::uint32_t>());
    CHECK(e.header.nonce == header["nonce"].get<std::uint32_t>());
    CHECK(block_hash(e.header) == e.hash);
    CHECK(e.has_data());
    CHECK(e.has_undo() == (e.height != 0));  // Core writes no undo record for the genesis block
    CHECK_FALSE(e.failed());
  }
  for (const auto& stale : rpc("stale_blocks")) {
    const auto it = entries.find(hash_of(stale["hash"].get<std::string>()));
    REQUIRE(it != entries.end());
    CHECK(it->second.failed());
  }
  // Core's own bytes again from the entries (the writer of its format the
  // benchmarks use).
  {
    leveldb::DB* raw = nullptr;
    CoreCopy copy;
    REQUIRE(leveldb::DB::Open(leveldb::Options(), copy.blocks + "/index", &raw).ok());
    std::unique_ptr<leveldb::DB> db(raw);
    std::size_t same = 0;
    for (const auto& [hash, e] : entries) {
      std::string value;
      REQUIRE(db->Get(leveldb::ReadOptions(), key_of(hash), &value).ok());
      const auto bytes = encode_core_block_entry(e);
      same += std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()) == value;
    }
    CHECK(same == entries.size());
  }
  auto best = read_core_best_block(core_data + "/chainstate");
  REQUIRE_MESSAGE(best, best.error().message());
  REQUIRE(best.value());
  CHECK(best.value()->to_hex() == rpc("getbestblockhash").get<std::string>());
}

TEST_CASE("A directory with Core's index: its chain, positions and undo data are Core's, read without the blk files' records") {
  auto opened = open_core(core_data + "/blocks");
  REQUIRE(opened);
  const BlocksDirectory& dir = opened.value();
  CHECK(dir.source() == BlocksDirectory::index_source::core_index);
  CHECK(dir.notes().empty());
  CHECK(dir.problem_count() == 0);
  CHECK(chain_hashes(dir) == core_chain());
  // The stale blocks are there, off the best chain.
  for (const auto& stale : rpc("stale_blocks")) {
    const auto b = dir.index().find(hash_of(stale["hash"].get<std::string>()));
    REQUIRE(b);
    CHECK(dir.index().height_of(b->hash) == std::nullopt);
  }
  // Positions as reading every record finds them.
  auto scanned = open_core(core_data + "/blocks", false);
  REQUIRE(scanned);
  CHECK(scanned.value().source() == BlocksDirectory::index_source::blk_files);
  REQUIRE(scanned.value().index().size() == dir.index().size());
  for (std::size_t id = 0; id < scanned.value().index().size(); ++id) {
    const IndexedBlock b = scanned.value().index().block(id);
    const auto same = dir.index().find(b.hash);
    REQUIRE(same);
    CHECK(same->file == b.file);
    CHECK(same->offset == b.offset);
  }
  // The undo data where Core's index puts it: every prevout as Core's
  // getblock 3 prints it.
  const auto blocks = rpc("getblock3");
  std::size_t inputs = 0;
  for (const Height h : dir.chain_size().heights(Height::genesis().next())) {
    const BlockUndo undo = undo_at(dir, h);
    const auto& txs = blocks[h.to_wire()]["tx"];
    REQUIRE(undo.transactions.size() + 1 == txs.size());
    for (std::size_t t = 1; t < txs.size(); ++t) {
      const auto& vin = txs[t]["vin"];
      const auto& coins = undo.transactions[t - 1].coins;
      REQUIRE(coins.size() == vin.size());
      for (std::size_t i = 0; i < coins.size(); ++i) {
        const auto& prevout = vin[i]["prevout"];
        CHECK(coins[i].value == Amount::from_sat(std::llround(prevout["value"].get<double>() * 1e8)));
        CHECK(coins[i].height.to_wire() == prevout["height"].get<std::uint32_t>());
        CHECK(coins[i].coinbase == prevout["generated"].get<bool>());
        CHECK(to_hex(coins[i].script_pubkey) == prevout["scriptPubKey"]["hex"].get<std::string>());
        ++inputs;
      }
    }
  }
  CHECK(inputs > 300);
}

TEST_CASE("Blocks the node wrote after its index: read from the blk files past the last record the index knows") {
  CoreCopy copy;
  // The index as a node that had not yet written the last three blocks'
  // entries would have left it.
  const auto hashes = core_chain();
  {
    auto db = open_index(copy.blocks);
    for (std::size_t h = hashes.size() - 3; h < hashes.size(); ++h) REQUIRE(db->Delete(leveldb::WriteOptions(), key_of(hashes[h])).ok());
  }
  auto opened = open_core(copy.blocks);
  REQUIRE(opened);
  const BlocksDirectory& dir = opened.value();
  CHECK(dir.source() == BlocksDirectory::index_source::core_index);
  CHECK(chain_hashes(dir) == hashes);
  // Their undo data, paired from the rev file.
  const IndexedBlock tip = dir.index().tip_block();
  auto bytes = dir.read_block(tip);
  REQUIRE(bytes);
  auto view = BlockView::parse(bytes.value());
  REQUIRE(view);
  CHECK(dir.undo_of(tip, view.value()));
  // Without the chainstate beside: the most work of the blocks not failed,
  // the same tip.
  fs::remove_all(copy.temp.file("chainstate"));
  auto without = open_core(copy.blocks);
  REQUIRE(without);
  CHECK(without.value().source() == BlocksDirectory::index_source::core_index);
  CHECK(chain_hashes(without.value()) == hashes);
}

TEST_CASE("An index that lies is found out, said, and the blk files read instead: never a wrong answer") {
  const auto hashes = core_chain();
  const BlockHash tip = hashes.back();
  struct Lie {
    const char* what;
    BlockHash block;
    std::function<void(CoreBlockEntry&)> change;
    const char* said;
  };
  const std::vector<Lie> lies = {
      {"a changed header", hashes[100], [](CoreBlockEntry& e) { e.header.time += 1; }, "is not that block's"},
      {"a wrong position", tip, [](CoreBlockEntry& e) { e.data_pos -= 8; }, "blk00000.dat"},
      {"a missing file", tip, [](CoreBlockEntry& e) { e.file = 7; }, "blk00007.dat"},
      {"a wrong undo position", tip, [](CoreBlockEntry& e) { e.undo_pos += 1; }, "rev00000.dat"},
  };
  for (const Lie& lie : lies) {
    CAPTURE(lie.what);
    CoreCopy copy;
    lie_about(copy.blocks, lie.block, lie.change);
    auto opened = open_core(copy.blocks);
    REQUIRE(opened);
    const BlocksDirectory& dir = opened.value();
    CHECK(dir.source() == BlocksDirectory::index_source::blk_files);
    CHECK(said(dir, lie.said));
    CHECK(chain_hashes(dir) == hashes);
  }
  SUBCASE("a position off the sample: reading that block fails, never gives another") {
    CoreCopy copy;
    // Block 50's entry points at block 51's record: a lie the sample may
    // miss, but reading block 50 must not answer block 51.
    auto scanned = open_core(core_data + "/blocks");
    REQUIRE(scanned);
    const IndexedBlock& next = scanned.value().at_height(*Height::checked(51));
    lie_about(copy.blocks, hashes[50], [&](CoreBlockEntry& e) { e.data_pos = static_cast<std::uint32_t>(next.offset + 8); });
    auto opened = open_core(copy.blocks);
    REQUIRE(opened);
    const BlocksDirectory& dir = opened.value();
    if (dir.source() == BlocksDirectory::index_source::core_index) {
      auto bytes = dir.read_block(dir.at_height(*Height::checked(50)));
      REQUIRE_FALSE(bytes);
      CHECK(bytes.error().code() == blockfiles::errc::wrong_block);
    } else {
      CHECK(said(dir, "blk00000.dat"));
    }
  }
}

TEST_CASE("An index a running node holds locked: read all the same, nothing written into the node's directories") {
  CoreCopy copy;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t node = ::fork();
  REQUIRE(node >= 0);
  if (node == 0) {
    // As a running node holds them: the locks LevelDB takes (fcntl on each
    // database's LOCK file), until killed. (No LevelDB call after fork.)
    bool ok = true;
    for (const std::string& db : {copy.blocks + "/index/LOCK", copy.temp.file("chainstate") + "/LOCK"}) {
      const int fd = ::open(db.c_str(), O_RDWR | O_CREAT, 0644);
      struct flock lock {};
      lock.l_type = F_WRLCK;
      lock.l_whence = SEEK_SET;
      ok = ok && fd >= 0 && ::fcntl(fd, F_SETLK, &lock) == 0;
    }
    const char c = ok ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  const bool locked = ::read(ready[0], &c, 1) == 1 && c == 'y';
  ::close(ready[0]);
  // The lock is held, as a running node holds it.
  struct flock held {};
  held.l_type = F_WRLCK;
  held.l_whence = SEEK_SET;
  const int lock_fd = ::open((copy.blocks + "/index/LOCK").c_str(), O_RDWR);
  const bool is_held = lock_fd >= 0 && ::fcntl(lock_fd, F_GETLK, &held) == 0 && held.l_type != F_UNLCK;
  if (lock_fd >= 0) ::close(lock_fd);
  const auto before = listing(copy.temp.path);
  auto opened = open_core(copy.blocks);
  const auto after = listing(copy.temp.path);
  ::kill(node, SIGKILL);
  ::waitpid(node, nullptr, 0);
  REQUIRE(locked);
  CHECK(is_held);
  REQUIRE(opened);
  CHECK(opened.value().source() == BlocksDirectory::index_source::core_index);
  CHECK(chain_hashes(opened.value()) == core_chain());
  CHECK(before == after);
}

TEST_CASE("A byte flipped anywhere in Core's block index: the chain is still Core's (the blk files read instead), never another") {
  CoreCopy base;
  const fs::path log = fs::path(base.blocks) / "index" / "000003.log";
  REQUIRE(fs::exists(log));
  const std::uintmax_t size = fs::file_size(log);
  std::size_t refused = 0;
  for (std::uintmax_t i = 0; i < 30; ++i) {
    const std::uintmax_t at = (size - 1) * i / 29;
    test::TempDir temp;
    const std::string blocks = temp.file("blocks");
    fs::copy(base.blocks, blocks, fs::copy_options::recursive);
    {
      std::fstream f(fs::path(blocks) / "index" / "000003.log", std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(static_cast<std::streamoff>(at));
      char c = 0;
      f.get(c);
      f.seekp(static_cast<std::streamoff>(at));
      f.put(static_cast<char>(c ^ 0x20));
    }
    auto opened = open_core(blocks);
    REQUIRE(opened);
    CHECK_MESSAGE(chain_hashes(opened.value()) == core_chain(), "byte " << at);
    CHECK(opened.value().problem_count() == 0);
    if (opened.value().source() != BlocksDirectory::index_source::core_index) {
      ++refused;
      CHECK(said(opened.value(), "Bitcoin Core's block index not used"));
      for (const std::string& note : opened.value().notes()) CHECK(note.find("blockwire-leveldb-") == std::string::npos);
    }
  }
  CHECK(refused > 20);  // LevelDB's checksums, checked on open (paranoid_checks) and on every read
}

using test::CacheAt;

TEST_CASE("The kept index follows Core's: a block the node invalidates after it was kept is never the tip") {
  const CacheAt cache;
  CoreCopy copy;
  const auto core = core_chain();
  {
    auto first = BlocksDirectory::open(copy.blocks);
    REQUIRE(first);
    CHECK(first.value().source() == BlocksDirectory::index_source::core_index);
    auto second = BlocksDirectory::open(copy.blocks);
    REQUIRE(second);
    CHECK(second.value().source() == BlocksDirectory::index_source::kept_index);
    CHECK(chain_hashes(second.value()) == core);
  }
  // invalidateblock of height 200, as the node writes it: the block failed,
  // its descendants failed children.
  lie_about(copy.blocks, core[200], [](CoreBlockEntry& e) { e.status |= 32; });
  for (std::size_t h = 201; h < core.size(); ++h) lie_about(copy.blocks, core[h], [](CoreBlockEntry& e) { e.status |= 64; });
  auto after = BlocksDirectory::open(copy.blocks);
  REQUIRE(after);
  CHECK(after.value().source() == BlocksDirectory::index_source::core_index);
  REQUIRE(after.value().chain_size().value() == 200);
  CHECK(chain_hashes(after.value()) == std::vector<BlockHash>(core.begin(), core.begin() + 200));
  // Kept again, as the node's index now is.
  auto again = BlocksDirectory::open(copy.blocks);
  REQUIRE(again);
  CHECK(again.value().source() == BlocksDirectory::index_source::kept_index);
  CHECK(again.value().chain_size().value() == 200);
}

TEST_CASE("A pruned node's index (blocks with their headers alone): the chain from genesis, its data from the prune height") {
  const CacheAt cache;
  CoreCopy copy;
  const auto core = core_chain();
  // As PruneOneBlockFile leaves an entry: no data, no undo, no file.
  constexpr std::size_t prune_height = 120;
  for (std::size_t h = 0; h < prune_height; ++h) {
    lie_about(copy.blocks, core[h], [](CoreBlockEntry& e) {
      e.status &= ~(CoreBlockEntry::have_data | CoreBlockEntry::have_undo);
      e.file = 0;
      e.data_pos = 0;
      e.undo_pos = 0;
    });
  }
  for (const bool kept : {false, true}) {
    auto opened = BlocksDirectory::open(copy.blocks);
    REQUIRE(opened);
    const BlocksDirectory& dir = opened.value();
    CHECK(dir.source() == (kept ? BlocksDirectory::index_source::kept_index : BlocksDirectory::index_source::core_index));
    CHECK(dir.notes().empty());
    CHECK(dir.problem_count() == 0);
    CHECK(chain_hashes(dir) == core);
    CHECK(dir.pruned());
    CHECK(dir.prune_height().to_wire() == prune_height);
    const IndexedBlock gone = dir.at_height(*Height::checked(prune_height - 1));
    CHECK(gone.pruned);
    auto read = dir.read_block(gone);
    REQUIRE_FALSE(read);
    CHECK(read.error().code() == blockfiles::errc::pruned);
    // From the prune height on: blocks and undo data as Core's getblock 3.
    const auto blocks = rpc("getblock3");
    for (const Height h : dir.chain_size().heights(*Height::checked(prune_height))) {
      CHECK_FALSE(dir.at_height(h).pruned);
      CHECK(undo_at(dir, h).transactions.size() + 1 == blocks[h.to_wire()]["tx"].size());
    }
  }
}

TEST_CASE(
    "An index all in LevelDB's log, streamed: the entries LevelDB itself reads, wherever a crash cut the log, and an error where a byte is "
    "flipped") {
  // Core's fixture's entries, written as a node's flushes write them: in
  // batches that stay in the log (a write buffer larger than the index),
  // the last one larger than a log block (32 KiB), so that it is
  // fragmented.
  test::TempDir temp;
  const std::string db_dir = temp.file("index");
  std::vector<std::pair<std::string, std::string>> all;
  {
    CoreCopy fixture;  // (a copy: LevelDB's open rewrites what it opens)
    auto source = open_index(fixture.blocks);
    std::unique_ptr<leveldb::Iterator> it(source->NewIterator(leveldb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) all.emplace_back(it->key().ToString(), it->value().ToString());
  }
  REQUIRE(all.size() > 200);
  {
    leveldb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = std::size_t{64} << 20;
    leveldb::DB* raw = nullptr;
    REQUIRE(leveldb::DB::Open(options, db_dir, &raw).ok());
    std::unique_ptr<leveldb::DB> db(raw);
    leveldb::WriteBatch batch;
    for (std::size_t i = 0; i < all.size(); ++i) {
      batch.Put(all[i].first, all[i].second);
      if (i == 40 || i == 120 || i + 1 == all.size()) {  // three flushes
        REQUIRE(db->Write(leveldb::WriteOptions(), &batch).ok());
        batch.Clear();
      }
    }
    // A fourth batch, several log blocks long, of entries under keys of
    // their own (each block's four times, its hash's last byte changed):
    // a cut inside it must lose all of them, as LevelDB loses the batch.
    for (char again = 1; again <= 4; ++again) {
      for (auto [k, v] : all) {
        if (k[0] != 'b') continue;
        k.back() = static_cast<char>(k.back() ^ again);
        batch.Put(k, v);
      }
    }
    REQUIRE(db->Write(leveldb::WriteOptions(), &batch).ok());
  }
  const fs::path log = fs::path(db_dir) / "000003.log";
  REQUIRE(fs::exists(log));
  const std::uintmax_t size = fs::file_size(log);
  REQUIRE(size > 3 * 32768);
  // What LevelDB itself reads of a copy (its own log reader and batches: the independent side).
  const auto leveldb_reads = [](const std::string& dir) {
    // (on a copy: LevelDB's open replays the log into a table and removes it)
    test::TempDir scratch;
    const std::string mine = scratch.file("db");
    fs::copy(dir, mine, fs::copy_options::recursive);
    std::set<std::string> keys;
    leveldb::DB* raw = nullptr;
    leveldb::Options options;
    options.paranoid_checks = true;
    const leveldb::Status s = leveldb::DB::Open(options, mine, &raw);
    if (!s.ok()) return std::optional<std::set<std::string>>();
    std::unique_ptr<leveldb::DB> db(raw);
    std::unique_ptr<leveldb::Iterator> it(db->NewIterator(leveldb::ReadOptions()));
    for (it->Seek("b"); it->Valid() && it->key().starts_with("b"); it->Next()) keys.insert(it->key().ToString().substr(1));
    return std::optional<std::set<std::string>>(keys);
  };
  const auto ours = [](const std::string& dir) {
    std::set<std::string> keys;
    auto read = read_core_block_index(
        dir, [&](const CoreBlockEntry& e) { keys.insert(std::string(reinterpret_cast<const char*>(e.hash.bytes().data()), 32)); });
    return read ? std::optional<std::set<std::string>>(keys) : std::nullopt;
  };
  const auto blocks = static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [](const auto& kv) { return kv.first[0] == 'b'; }));
  CHECK(ours(db_dir) == leveldb_reads(db_dir));
  CHECK(ours(db_dir)->size() == 5 * blocks);
  // Cut at 25 places: each time the batches LevelDB keeps, and no entry of the batch cut short.
  std::size_t differs = 0;
  for (std::uintmax_t i = 1; i <= 25; ++i) {
    const std::uintmax_t at = size * i / 26;
    test::TempDir copy;
    const std::string dir = copy.file("index");
    fs::copy(db_dir, dir, fs::copy_options::recursive);
    fs::resize_file(fs::path(dir) / "000003.log", at);
    const auto expected = leveldb_reads(dir);
    REQUIRE(expected);
    CHECK_MESSAGE(ours(dir) == expected, "cut at " << at);
    differs += expected->size() != 5 * blocks;
  }
  CHECK(differs == 25);  // (every cut loses the last batch at least: the comparison can fail)
  // A flipped byte in a record's payload: an error, as LevelDB's paranoid_checks make it.
  {
    test::TempDir copy;
    const std::string dir = copy.file("index");
    fs::copy(db_dir, dir, fs::copy_options::recursive);
    std::fstream f(fs::path(dir) / "000003.log", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.put('\x5a');
    f.close();
    auto read = read_core_block_index(dir, [](const CoreBlockEntry&) {});
    REQUIRE_FALSE(read);
    CHECK(read.error().code() == directory::errc::leveldb_corruption);
    CHECK(read.error().context().find("000003.log") != std::string::npos);
    CHECK_FALSE(leveldb_reads(dir));
  }
}
