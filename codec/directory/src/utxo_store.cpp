// The UTXO store itself: its coins read, blocks applied and connected, the
// changes flushed, torn undo records cut; and UtxoStore's public API.
#include "leveldb_snapshot.hpp"
#include "utxo_store_state.hpp"

#include <blockwire/codec/wire.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/number_text.hpp>
#include <blockwire/io/little_endian.hpp>
#include <blockwire/undo/connect.hpp>

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

namespace blockwire {

namespace {

namespace fs = std::filesystem;
using detail::bytes_of;
using detail::leveldb_failure;

using detail::best_block_key;
using utxo_detail::Change;
using utxo_detail::key_of;
using utxo_detail::undo_end_key;
using utxo_detail::UndoEnd;

UndoEnd undo_end_now(const std::string& dir) {
  UndoEnd end;
  auto files = undo_files(dir);
  if (!files || files.value().empty()) return end;
  const fs::path last(files.value().back());
  end.file = undo_file_number(last.filename().string()).value_or(0);
  std::error_code ec;
  end.size = fs::file_size(last, ec);
  end.any = !ec;
  return end;
}

}  // namespace

result<std::optional<SpentCoin>> UtxoStore::State::stored_coin(const OutPoint& point) {
  std::string value;
  const leveldb::Status s = db->Get(detail::checked_reads(), key_of(point), &value);
  if (s.IsNotFound()) return std::optional<SpentCoin>{};
  if (!s.ok()) return leveldb_failure(s);
  auto coin = decode_chainstate_coin(bytes_of(leveldb::Slice(value)));
  if (!coin) return error(directory::errc::bad_index_entry);
  return std::optional<SpentCoin>(std::move(coin).value());
}

// The set as connect_block() sees it: the changes in memory in front of
// the database.
struct UtxoStore::State::View {
  State& s;
  result<std::optional<SpentCoin>> spend(const OutPoint& point) {
    auto it = s.changes.find(point);
    if (it != s.changes.end()) {
      if (!it->second.coin) return std::optional<SpentCoin>{};  // spent since the last flush
      std::optional<SpentCoin> coin(std::move(it->second.coin));
      s.change_bytes -= std::min(s.change_bytes, coin->script_pubkey.size());
      if (it->second.fresh) {
        s.changes.erase(it);  // made and spent between two flushes: the database never hears of it
      } else {
        it->second.coin.reset();
      }
      return coin;
    }
    auto stored = s.stored_coin(point);
    if (!stored || !stored.value()) return stored;
    s.changes.emplace(point, Change{std::nullopt, false});
    s.change_bytes += sizeof(OutPoint) + sizeof(Change) + 32;
    return stored;
  }
  void add(const OutPoint& point, SpentCoin coin) {
    s.change_bytes += sizeof(OutPoint) + sizeof(Change) + 32 + coin.script_pubkey.size();
    auto [it, inserted] = s.changes.try_emplace(point);
    // Over a spent coin the database holds: written over it. A
    // coinbase's may repeat an older one's outpoint (before BIP30) that
    // the database holds: never fresh, as in Core's AddCoins.
    it->second.fresh = inserted && !coin.coinbase;
    it->second.coin = std::move(coin);
    ++s.coins_connected;
  }
};

result<BlockUndo> UtxoStore::State::apply(const Block& block, Height height, std::span<const TxIds> ids) {
  View view{*this};
  return undo::connect_block(block, height, view, ids);
}

result<void> UtxoStore::State::flush() {
  // A block half applied is never written: the next open() connects
  // again what the last flush did not hold.
  if (failed) return error(directory::errc::store_failed);
  failed = true;  // until written
  if (undo_writer) {
    if (auto r = undo_writer->close(); !r) return r;
  }
  // The blocks and the rev files' names on the disk before the set says
  // it is past them.
  if (options.before_flush) {
    if (auto r = options.before_flush(); !r) return r;
  }
  if (auto r = sync_directory(dir.c_str()); !r) return r;
  undo_end = undo_end_now(dir);
  leveldb::WriteBatch batch;
  std::vector<std::byte> value;
  for (const auto& [point, change] : changes) {
    if (change.coin) {
      value.clear();
      encode_chainstate_coin(*change.coin, value);
      batch.Put(key_of(point), leveldb::Slice(reinterpret_cast<const char*>(value.data()), value.size()));
    } else {
      batch.Delete(key_of(point));
    }
  }
  // A set before its first block (the genesis block) has no best block
  // written: a reader (blockwire utxos) says it has none, rather than take
  // zeros and no coins for a set's state; a crash before then makes it
  // again from nothing.
  if (!best.is_all_zeros()) {
    batch.Put(leveldb::Slice(&best_block_key, 1), leveldb::Slice(reinterpret_cast<const char*>(best.bytes().data()), 32));
  }
  std::array<std::byte, 12> end{};
  const auto file = to_le(static_cast<std::uint32_t>(undo_end.file));
  const auto size = to_le(undo_end.size);
  std::copy(file.begin(), file.end(), end.begin());
  std::copy(size.begin(), size.end(), end.begin() + 4);
  batch.Put(leveldb::Slice(&undo_end_key, 1), leveldb::Slice(reinterpret_cast<const char*>(end.data()), end.size()));
  leveldb::WriteOptions sync;
  sync.sync = true;
  if (const leveldb::Status s = db->Write(sync, &batch); !s.ok()) return leveldb_failure(s);
  changes.clear();
  change_bytes = 0;
  failed = false;
  return success();
}

result<std::optional<std::uint32_t>> UtxoStore::State::connect(const Block& block, const BlockHash& hash, BlockPosition at, bool write_undo,
                                                               std::span<const TxIds> ids) {
  // What the blocks before it changed, written first when it is past the
  // cache: a flush that fails (a full disk) then fails before this
  // block's undo record is written, so a caller that takes the block out
  // again leaves no record of it behind (a rerun would write it twice).
  if (!failed && change_bytes > options.cache_bytes) {
    if (auto r = flush(); !r) return r.error();
  }
  if (failed) return error(directory::errc::store_failed);
  failed = true;  // until this block is in
  const bool first = !best_height;
  if (first ? !block.header.prev_block.is_all_zeros() : block.header.prev_block != best) return error(directory::errc::not_one_chain);
  const Height height = first ? Height::genesis() : best_height->next();
  // The genesis block's outputs are no coins: Core never connects it.
  auto undo = first ? result<BlockUndo>(BlockUndo{}) : apply(block, height, ids);
  if (!undo) return undo.error();
  std::optional<std::uint32_t> undo_at;
  if (!first && write_undo) {
    if (!undo_writer) undo_writer.emplace(dir, key, net);
    auto written = undo_writer->append(undo.value(), block.header.prev_block, at.file);
    if (!written) return written.error();
    undo_at = static_cast<std::uint32_t>(written.value().offset);
  }
  best = hash;
  best_height = height;
  failed = false;
  return undo_at;
}

result<void> UtxoStore::State::cut_torn_records() {
  auto files = undo_files(dir);
  if (!files) return files.error();
  const Magic m = magic(net);
  for (const std::string& f : files.value()) {
    if (undo_file_number(fs::path(f).filename().string()).value_or(0) < undo_end.file) continue;
    auto end = undo_records_end(f, key, net);
    if (!end) return end.error();
    std::error_code ec;
    const std::uint64_t size = fs::file_size(f, ec);
    if (ec) return ec;
    if (end.value() + 4 > size) {
      if (end.value() == size) continue;
    } else {
      auto file = FileReader::open(f.c_str());
      if (!file) return file.error();
      std::array<std::byte, 4> head{};
      if (auto r = read_at(file.value().fd(), head, end.value()); !r) return r;
      xor_in_place(head, key, end.value());
      if (!std::equal(m.begin(), m.end(), head.begin())) continue;  // zeros, or damage a reader reports
    }
    fs::resize_file(f, end.value(), ec);
    if (ec) return ec;
    opening.undo_bytes_cut += size - end.value();
  }
  return success();
}

namespace {

// An empty database at `path`, made under a hidden name beside it and
// renamed into place once LevelDB has written its files (CURRENT last): a
// reader of `path` finds no set, or a whole database, never a folder
// LevelDB is still making.
result<void> make_empty_set(const std::string& path) {
  const fs::path place(path);
  std::string hidden = ".";
  hidden.append(place.filename().string()).append(".new");
  const fs::path making = place.parent_path() / hidden;
  std::error_code ec;
  fs::remove_all(making, ec);  // what a crash left
  if (ec) return error(ec).in(making.string());
  leveldb::Options options;
  options.create_if_missing = true;
  leveldb::DB* db = nullptr;
  if (const leveldb::Status s = leveldb::DB::Open(options, making.string(), &db); !s.ok()) return leveldb_failure(s);
  delete db;
  if (auto r = sync_directory(making.c_str()); !r) return r.error().in(making.string());
  fs::rename(making, place, ec);
  if (ec) return error(ec).in("renaming " + making.string() + " to " + path);
  if (auto r = sync_directory(place.parent_path().c_str()); !r) return r.error().in(place.parent_path().string());
  return success();
}

}  // namespace

std::string UtxoStore::path_of(const std::string& blocks_dir) { return (fs::path(blocks_dir) / "blockwire-utxos").string(); }

UtxoStore::UtxoStore(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
UtxoStore::UtxoStore(UtxoStore&&) noexcept = default;
UtxoStore& UtxoStore::operator=(UtxoStore&&) noexcept = default;
UtxoStore::~UtxoStore() = default;

result<UtxoStore> UtxoStore::open(BlockIndex& chain, const Options& options) {
  auto state = std::make_unique<State>();
  state->dir = chain.dir();
  state->key = chain.key();
  state->net = chain.net();
  state->options = options;
  leveldb::Options db_options;
  db_options.create_if_missing = true;
  db_options.paranoid_checks = true;  // (a damaged set is an error, never a smaller set)
  leveldb::DB* db = nullptr;
  std::error_code exists_ec;
  const bool made_here = !fs::exists(path_of(chain.dir()), exists_ec);
  if (made_here) {
    if (auto r = make_empty_set(path_of(chain.dir())); !r) return r.error();
  }
  if (const leveldb::Status s = leveldb::DB::Open(db_options, path_of(chain.dir()), &db); !s.ok()) return leveldb_failure(s);
  state->db.reset(db);

  // Where the set is, and where the rev files ended then. A database with
  // no best block is new, or one a crash interrupted before its first
  // block was in (or while it was first filled): made again, from nothing.
  // It has none until then: a reader says so.
  std::string value;
  leveldb::Status s = db->Get(detail::checked_reads(), leveldb::Slice(&best_block_key, 1), &value);
  if (s.IsNotFound()) {
    if (!made_here) {
      state->db.reset();
      if (const leveldb::Status d = leveldb::DestroyDB(path_of(chain.dir()), leveldb::Options()); !d.ok()) return leveldb_failure(d);
      // (a folder DestroyDB left, with files not LevelDB's: the database made in it)
      if (!fs::exists(path_of(chain.dir()), exists_ec)) {
        if (auto r = make_empty_set(path_of(chain.dir())); !r) return r.error();
      }
      if (const leveldb::Status o = leveldb::DB::Open(db_options, path_of(chain.dir()), &db); !o.ok()) return leveldb_failure(o);
      state->db.reset(db);
    }
    if (auto r = state->import_core_chainstate(chain); !r) return r.error();
    if (auto r = state->flush(); !r) return r.error();
  } else {
    if (!s.ok()) return leveldb_failure(s);
    std::string end;
    if (value.size() != 32 || !db->Get(detail::checked_reads(), leveldb::Slice(&undo_end_key, 1), &end).ok() || end.size() != 12) {
      return error(directory::errc::bad_index_entry).in(path_of(chain.dir()) + ": its best block or its rev files' end");
    }
    state->best = BlockHash::from_bytes(bytes_of(leveldb::Slice(value)).first<32>());
    const auto e = bytes_of(leveldb::Slice(end));
    state->undo_end = {load_le<std::uint32_t>(e.data()), load_le<std::uint64_t>(e.data() + 4), true};
  }
  if (!state->best.is_all_zeros()) {
    const auto at = chain.find(state->best);
    if (!at || !at->linked) {
      return error(directory::errc::unknown_best_block)
          .in("the UTXO set in " + path_of(chain.dir()) + ", at block " + state->best.to_hex() +
              " (remove that folder to build the set again from the blocks)");
    }
    state->best_height = at->height;
  }

  // A pruned directory's set connects the blocks after its own from their
  // data: where those are gone, it cannot reach the tip (nor be built anew).
  const auto below = [&](Height pruned) { return state->best_height ? state->best_height->next() < pruned : pruned != Height::genesis(); };
  if (const Height pruned = chain.prune_height(); below(pruned)) {
    if (made_here) {  // (nothing left behind that a later open would take for a set)
      state->db.reset();
      (void)leveldb::DestroyDB(path_of(chain.dir()), leveldb::Options());
      fs::remove(path_of(chain.dir()), exists_ec);
    }
    return error(blockfiles::errc::pruned)
        .in("the UTXO set in " + path_of(chain.dir()) +
            (!state->best_height ? std::string(" is new") : " is at height " + to_string(*state->best_height)) +
            ", below the lowest block left (height " + to_string(pruned) +
            "): it cannot be brought to the tip (fetch --no-undo fetches blocks without it)");
  }
  std::optional<BlocksDirectory> paired;
  if (chain.tip_height() > state->best_height) {
    // Blocks past the set: a crash came after they were appended, before
    // the flush that would have held their coins. Their undo records, as
    // far as they were written, stay (they are what would be written
    // again); a record torn by the crash is cut off.
    if (auto r = state->cut_torn_records(); !r) return r.error();
    // The records already there (ours, or a node's or pack's from before
    // the set) are paired with their blocks and not written again.
    if (undo_end_now(chain.dir()).any) {
      BlocksDirectory::Options o;
      o.key = chain.key();
      o.net = chain.net();
      o.kept_index = false;  // a reading in the middle of catching up: nothing kept of it
      auto opened = BlocksDirectory::open(chain.dir(), o);
      if (!opened) return opened.error();
      paired.emplace(std::move(opened).value());
    }
  }
  state->opening.from_height = state->best_height;
  const std::uint64_t before = state->blocks_connected;
  if (auto r = state->follow(chain, nullptr, BlockHash::all_zeros(), {}, paired ? &*paired : nullptr); !r) return r.error();
  state->opening.blocks_connected = state->blocks_connected - before;
  state->options.progress = nullptr;  // open()'s alone
  state->options.import_progress = nullptr;
  state->options.stop_requested = nullptr;
  if (state->opening.blocks_connected != 0) {
    if (auto r = state->flush(); !r) return r.error();
  }
  return UtxoStore(std::move(state));
}

result<void> UtxoStore::follow(BlockIndex& chain, const Block* appended, const BlockHash& appended_hash,
                               std::span<const TxIds> appended_ids) {
  return state_->follow(chain, appended, appended_hash, appended_ids, nullptr);
}

result<void> UtxoStore::flush() { return state_->flush(); }

const BlockHash& UtxoStore::best_block() const noexcept { return state_->best; }

std::uint64_t UtxoStore::coins_connected() const noexcept { return state_->coins_connected; }

const UtxoStore::Opening& UtxoStore::opening() const noexcept { return state_->opening; }

std::vector<std::string> UtxoStore::Opening::lines(const std::string& dir) const {
  std::vector<std::string> out;
  const std::string height = std::to_string(signed_height(from_height));
  if (!imported_from.empty()) {
    out.push_back(dir + ": the UTXO set copied from Bitcoin Core's " + imported_from + ": " + count_of(coins_imported, "coin") +
                  " at height " + height);
  }
  if (undo_bytes_cut != 0) out.push_back(dir + ": cut off a torn undo record (" + with_commas(undo_bytes_cut) + " bytes) a crash left");
  if (blocks_connected != 0) {
    out.push_back(dir + ": the UTXO set " + (from_height ? "was at height " + height : std::string("built from the directory's blocks")) +
                  ": " + count_of(blocks_connected, "block") + " connected, their undo records written where missing");
  }
  return out;
}

}  // namespace blockwire
