// blockwire's kept index: made on the first open, read instead of the
// files on the next, extended by what is appended, and never trusted
// where it does not match the directory.
#include "../support/chain.hpp"
#include "../support/temp_dir.hpp"
#include "../support/written.hpp"

#include <blockwire/codec/hashes.hpp>
#include <blockwire/directory.hpp>

#include <doctest/doctest.h>
#include <leveldb/db.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>

namespace fs = std::filesystem;
using namespace blockwire;

namespace {

const std::string core_data = BLOCKWIRE_TEST_DATA "/core-regtest";
using source = BlocksDirectory::index_source;

using test::Written;

BlocksDirectory open(const std::string& dir, bool undo = false) {
  BlocksDirectory::Options o;
  o.undo = undo;
  auto opened = BlocksDirectory::open(dir, o);
  REQUIRE(opened);
  return std::move(opened).value();
}

// What a rebuild from every blk file gives: each block's hash, place and
// height, and the best chain.
struct Shape {
  std::map<BlockHash, std::tuple<unsigned, std::uint64_t, std::int64_t>> blocks;
  std::vector<BlockHash> chain;
  friend bool operator==(const Shape&, const Shape&) = default;
};
Shape shape_of(const BlocksDirectory& d) {
  Shape s;
  for (std::size_t id = 0; id < d.index().size(); ++id) {
    const IndexedBlock b = d.index().block(id);
    s.blocks[b.hash] = {b.file, b.offset, b.linked ? std::int64_t{b.height.to_wire()} : -1};
  }
  for (const Height h : d.chain_size().heights()) s.chain.push_back(d.at_height(h).hash);
  return s;
}
Shape rebuilt(const std::string& dir) {
  BlocksDirectory::Options o;
  o.kept_index = false;
  o.undo = false;
  auto opened = BlocksDirectory::open(dir, o);
  REQUIRE(opened);
  return shape_of(opened.value());
}

bool said(const BlocksDirectory& dir, const std::string& what) {
  return std::any_of(dir.notes().begin(), dir.notes().end(), [&](const std::string& n) { return n.find(what) != std::string::npos; });
}

// Every block's undo data (but genesis') as `second` reads it equals what
// `first` read; how many blocks of `second` had their record placed.
std::size_t same_undo(const BlocksDirectory& first, const BlocksDirectory& second) {
  std::size_t placed = 0;
  for (const Height h : second.chain_size().heights(Height::genesis().next())) {
    const IndexedBlock b = second.at_height(h);
    placed += b.undo_offset.has_value();
    auto bytes = second.read_block(b);
    REQUIRE(bytes);
    auto view = BlockView::parse(bytes.value());
    REQUIRE(view);
    auto undo = second.undo_of(b, view.value());
    auto expected = first.undo_of(first.at_height(h), view.value());
    REQUIRE(undo);
    REQUIRE(expected);
    CHECK(undo.value() == expected.value());
  }
  return placed;
}

using test::CacheAt;

void corrupt(const std::string& path, std::uint64_t at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f);
  f.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x01);
  f.seekp(static_cast<std::streamoff>(at));
  f.write(&c, 1);
}

}  // namespace

TEST_CASE("The kept index: made on the first open, read on the next instead of the blk files, extended by what is appended") {
  Written w(40);
  const auto first = open(w.dir);
  CHECK(first.source() == source::blk_files);
  CHECK(first.notes().empty());
  REQUIRE(fs::exists(w.kept("state.dat")));
  const auto second = open(w.dir);
  CHECK(second.source() == source::kept_index);
  CHECK(second.index().first_read() == 41);
  CHECK(shape_of(second) == rebuilt(w.dir));
  CHECK(second.at_height(*Height::checked(40)).hash == block_hash(w.chain[40].header));

  // Blocks appended since: read past where the kept index stops, and kept too.
  const auto size_before = fs::file_size(w.kept("chain.dat"));
  w.append(5);
  const auto third = open(w.dir);
  CHECK(third.source() == source::kept_index);
  CHECK(third.index().first_read() == 41);
  CHECK(third.chain_size().value() == 46);
  CHECK(shape_of(third) == rebuilt(w.dir));
  CHECK(fs::file_size(w.kept("chain.dat")) == size_before + 5 * 56);
  const auto fourth = open(w.dir);
  CHECK(fourth.index().first_read() == 46);
  CHECK(shape_of(fourth) == rebuilt(w.dir));
  // Headers come from the files, checked against the hash.
  auto header = fourth.index().header(fourth.at_height(*Height::checked(45)));
  REQUIRE(header);
  CHECK(header.value() == w.chain[45].header);
}

TEST_CASE("A kept index that does not match the directory is said, not used, and made again: never a wrong answer") {
  struct Damage {
    const char* what;
    std::function<void(Written&)> make;
    const char* said;
  };
  const std::vector<Damage> cases = {
      {"a changed record", [](Written& w) { corrupt(w.kept("chain.dat"), 8 + 56 * 10 + 3); }, "damaged"},
      {"chain.dat cut short", [](Written& w) { fs::resize_file(w.kept("chain.dat"), fs::file_size(w.kept("chain.dat")) - 30); },
       "shorter than its state"},
      {"a damaged state.dat", [](Written& w) { corrupt(w.kept("state.dat"), 20); }, "damaged"},
      {"a blk file cut back (its last block gone)",
       [](Written& w) {
         std::vector<std::byte> last;
         encode_block(w.chain[40], last);
         const auto path = fs::path(w.dir) / "blk00000.dat";
         fs::resize_file(path, fs::file_size(path) - 8 - last.size());
       },
       "shorter than when"},
      {"the last record rewritten",
       [](Written& w) {
         // The last block's record replaced by another block 40 of the same size.
         const Block other = test::mine(block_hash(w.chain[39].header), 1'800'000'000, 40);
         std::vector<std::byte> bytes;
         encode_block(other, bytes);
         std::vector<std::byte> old;
         encode_block(w.chain[40], old);
         REQUIRE(bytes.size() == old.size());
         const auto end = fs::file_size(fs::path(w.dir) / "blk00000.dat");
         const std::uint64_t at = end - bytes.size();
         xor_in_place(bytes, w.key, at);
         std::fstream f(fs::path(w.dir) / "blk00000.dat", std::ios::in | std::ios::out | std::ios::binary);
         f.seekp(static_cast<std::streamoff>(at));
         f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
       },
       "any more"},
  };
  for (const Damage& d : cases) {
    const std::string what = d.what;
    CAPTURE(what);
    Written w(40);
    (void)open(w.dir);
    d.make(w);
    const auto again = open(w.dir);
    CHECK(again.source() == source::blk_files);
    CHECK(said(again, d.said));
    CHECK(shape_of(again) == rebuilt(w.dir));
    // Made again: the next open reads it.
    CHECK(open(w.dir).source() == source::kept_index);
  }
}

TEST_CASE("An append to the kept index cut short (a crash before its state is replaced) is not read, and written over") {
  Written w(20);
  (void)open(w.dir);
  {
    std::ofstream f(w.kept("chain.dat"), std::ios::app | std::ios::binary);
    f << "half a record";
  }
  const auto again = open(w.dir);
  CHECK(again.source() == source::kept_index);
  CHECK(again.notes().empty());
  CHECK(shape_of(again) == rebuilt(w.dir));
  w.append(3);
  (void)open(w.dir);
  CHECK(fs::file_size(w.kept("chain.dat")) == 8 + 24 * 56);
  const auto last = open(w.dir);
  CHECK(last.index().first_read() == 24);
  CHECK(shape_of(last) == rebuilt(w.dir));
}

TEST_CASE("A blocks directory of a node's: its index kept in the user's cache, nothing written into the node's directories") {
  const CacheAt cache;
  test::TempDir data;
  fs::copy(core_data + "/blocks", data.file("blocks"), fs::copy_options::recursive);
  fs::copy(core_data + "/chainstate", data.file("chainstate"), fs::copy_options::recursive);
  std::map<std::string, std::uintmax_t> listing;
  for (const auto& e : fs::recursive_directory_iterator(data.path)) listing[e.path().string()] = e.is_regular_file() ? e.file_size() : 0;
  const std::string where = BlocksDirectory::kept_index_path(data.file("blocks"));
  CHECK(where.rfind(cache.dir.path.string(), 0) == 0);
  const auto first = open(data.file("blocks"), true);
  CHECK(first.source() == source::core_index);
  const auto second = open(data.file("blocks"), true);
  CHECK(second.source() == source::kept_index);
  CHECK(shape_of(second) == shape_of(first));
  // The undo records where Core's index put them, kept: read, as Core's.
  CHECK(same_undo(first, second) == second.chain_size().value() - 1);
  std::map<std::string, std::uintmax_t> after;
  for (const auto& e : fs::recursive_directory_iterator(data.path)) after[e.path().string()] = e.is_regular_file() ? e.file_size() : 0;
  CHECK(after == listing);
  CHECK(fs::exists(fs::path(where) / "state.dat"));
}

TEST_CASE("Undo records paired once are kept: the next open reads each where the first found it") {
  test::TempDir temp;
  const std::string dir = temp.file("blocks");
  fs::copy(core_data + "/blocks", dir, fs::copy_options::recursive);
  fs::remove_all(fs::path(dir) / "index");  // a copy without Core's index: its rev records paired
  const auto first = open(dir, true);
  CHECK(first.source() == source::blk_files);
  const auto second = open(dir, true);
  CHECK(second.notes().empty());
  CHECK(second.source() == source::kept_index);
  CHECK(same_undo(first, second) == second.chain_size().value() - 1);
}

TEST_CASE("A block's record changed after the index was kept: reading it fails, it never answers another block") {
  Written w(20);
  (void)open(w.dir);
  const auto opened = open(w.dir);
  REQUIRE(opened.source() == source::kept_index);
  const IndexedBlock b = opened.at_height(*Height::checked(7));
  corrupt((fs::path(w.dir) / "blk00000.dat").string(), b.offset + 8 + 40);  // in its merkle root
  auto bytes = opened.read_block(b);
  REQUIRE_FALSE(bytes);
  CHECK(bytes.error().code() == blockfiles::errc::wrong_block);
  CHECK_FALSE(opened.index().header(b));
}

TEST_CASE("A block whose undo record the node has not written yet: found once its record is there, and kept") {
  const CacheAt cache;
  for (const bool core_index : {true, false}) {
    CAPTURE(core_index);
    test::TempDir data;
    const std::string dir = data.file("blocks");
    fs::copy(core_data + "/blocks", dir, fs::copy_options::recursive);
    const auto hashes = [&] {
      BlocksDirectory::Options o;
      o.kept_index = false;
      return shape_of(BlocksDirectory::open(dir, o).value()).chain;
    }();
    if (core_index) {
      // Core's index as the node wrote it before its last three blocks: read from the files past it.
      leveldb::DB* raw = nullptr;
      REQUIRE(leveldb::DB::Open(leveldb::Options(), dir + "/index", &raw).ok());
      std::unique_ptr<leveldb::DB> db(raw);
      for (std::size_t h = hashes.size() - 3; h < hashes.size(); ++h) {
        std::string key(1, 'b');
        key.append(reinterpret_cast<const char*>(hashes[h].bytes().data()), 32);
        REQUIRE(db->Delete(leveldb::WriteOptions(), key).ok());
      }
    } else {
      fs::remove_all(fs::path(dir) / "index");  // its blocks read from the files, their records paired
    }
    // The tip's undo record cut off, as a node that wrote the block and not yet its undo data leaves it.
    const auto rev = fs::path(dir) / "rev00000.dat";
    const std::string full = [&] {
      std::ifstream in(rev, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    const XorKey key = read_xor_key(dir).value();
    const std::uint64_t records_end = undo_records_end(rev.string(), key, network::regtest).value();
    std::uint64_t tip_record = 0;  // the last record: the frames walked to where it begins
    for (std::uint64_t at = 0; at < records_end; at = UndoIndex::record_end(rev.string(), key, network::regtest, at).value())
      tip_record = at;
    fs::resize_file(rev, tip_record);
    const auto undo_of_tip = [](const BlocksDirectory& d) {
      const IndexedBlock tip = d.index().tip_block();
      auto bytes = d.read_block(tip);
      REQUIRE(bytes);
      auto view = BlockView::parse(bytes.value());
      REQUIRE(view);
      return d.undo_of(tip, view.value()).has_value();
    };

    const auto first = open(dir, true);
    CHECK(first.source() == (core_index ? source::core_index : source::blk_files));
    CHECK(first.chain_size().value() == hashes.size());
    CHECK_FALSE(undo_of_tip(first));
    const auto second = open(dir, true);
    CHECK(second.notes().empty());
    CHECK(second.source() == source::kept_index);
    CHECK_FALSE(undo_of_tip(second));
    // (Read past a node's index, the tip is read from the files again until its record is there.)
    if (core_index) CHECK(second.index().first_read() < second.index().size());

    // The record written: found, and kept.
    {
      std::ofstream out(rev, std::ios::binary | std::ios::trunc);
      out << full;
    }
    const auto third = open(dir, true);
    CHECK(third.source() == source::kept_index);
    CHECK(undo_of_tip(third));
    const auto fourth = open(dir, true);
    CHECK(fourth.source() == source::kept_index);
    CHECK(fourth.index().first_read() == fourth.index().size());
    CHECK(fourth.index().tip_block().undo_offset == std::optional<std::uint32_t>(static_cast<std::uint32_t>(tip_record)));
    CHECK(shape_of(fourth).chain == hashes);
  }
}

TEST_CASE("A blk file whose pre-allocated zeros are cut off (as Core does when it moves to the next file) keeps its kept index") {
  Written w(20);
  const auto path = fs::path(w.dir) / "blk00000.dat";
  const auto size = fs::file_size(path);
  fs::resize_file(path, size + (1 << 20));  // Core's pre-allocation: zeros past the records
  CHECK(open(w.dir).source() == source::blk_files);
  CHECK(open(w.dir).source() == source::kept_index);
  fs::resize_file(path, size);  // finalized: cut back to its records
  const auto again = open(w.dir);
  CHECK(again.source() == source::kept_index);
  CHECK(again.notes().empty());
  CHECK(shape_of(again) == rebuilt(w.dir));
}

TEST_CASE("Two openers of one directory: what one kept is not appended to by the other as if it were its own") {
  Written w(20);
  (void)open(w.dir);
  BlocksDirectory::Options o;
  o.undo = false;
  auto older = BlocksDirectory::open(w.dir, o);  // reads the kept index, then lives on
  REQUIRE(older);
  REQUIRE(older.value().source() == source::kept_index);
  w.append(3);
  const auto newer = open(w.dir);  // keeps the three blocks first
  CHECK(newer.source() == source::kept_index);
  w.append(2);
  REQUIRE(older.value().refresh());  // its five new blocks kept over what the other wrote
  CHECK(older.value().chain_size().value() == 26);
  const auto last = open(w.dir);
  CHECK(last.source() == source::kept_index);
  CHECK(last.notes().empty());
  CHECK(last.index().first_read() == 26);
  CHECK(shape_of(last) == rebuilt(w.dir));
}
