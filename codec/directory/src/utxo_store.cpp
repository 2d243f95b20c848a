#include "leveldb_snapshot.hpp"

#include <blockwire/codec/wire.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/directory/utxo_store.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/little_endian.hpp>
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/undo.hpp>
#include <blockwire/undo/varint.hpp>

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>

namespace blockwire {

namespace {

namespace fs = std::filesystem;
using detail::bytes_of;
using detail::leveldb_failure;

constexpr char best_block_key = 'B';  // as in Core's chainstate
constexpr char coin_key = 'C';
constexpr char undo_end_key = 'R';  // blockwire's: (u32 file, u64 size) of the last rev file at the last flush

std::string key_of(const OutPoint& point) {
  std::string key(1, coin_key);
  key.append(reinterpret_cast<const char*>(point.txid.bytes().data()), 32);
  std::vector<std::byte> index;
  VectorWriter grows(index);
  BufferedWriter<VectorWriter&, 0> sink(grows);
  undo::encode_varint(sink, point.index);
  key.append(reinterpret_cast<const char*>(index.data()), index.size());
  return key;
}

struct OutPointHash {
  std::size_t operator()(const OutPoint& p) const noexcept {
    // Txids are hashes already: their first bytes spread well.
    return static_cast<std::size_t>(load_le<std::uint64_t>(p.txid.bytes().data()) ^ (std::uint64_t{p.index} * 0x9e3779b97f4a7c15ull));
  }
};

// A coin changed since the last flush: its new state (none: spent), and
// whether the database has never held it (spent again, it is forgotten).
struct Change {
  std::optional<SpentCoin> coin;
  bool fresh = false;
};

// Where the rev files end: the last one's number and size.
struct UndoEnd {
  unsigned file = 0;
  std::uint64_t size = 0;
  bool any = false;  // a rev file there at all
};

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

struct UtxoStore::State {
  std::unique_ptr<leveldb::DB> db;
  std::string dir;
  XorKey key;
  network net;
  Options options;
  Hash256 best;
  std::int64_t best_height = -1;
  UndoEnd undo_end;
  std::optional<UndoFileWriter> undo_writer;
  std::unordered_map<OutPoint, Change, OutPointHash> changes;
  std::size_t change_bytes = 0;
  std::uint64_t coins_connected = 0;
  Opening opening;
  bool failed = false;

  result<std::optional<SpentCoin>> stored_coin(const OutPoint& point) {
    std::string value;
    const leveldb::Status s = db->Get(leveldb::ReadOptions(), key_of(point), &value);
    if (s.IsNotFound()) return std::optional<SpentCoin>{};
    if (!s.ok()) return leveldb_failure(s, nullptr);
    auto coin = decode_chainstate_coin(bytes_of(leveldb::Slice(value)));
    if (!coin) return error(directory::errc::bad_index_entry);
    return std::optional<SpentCoin>(std::move(coin).value());
  }

  // The block's coins spent and made; its undo data.
  result<BlockUndo> apply(const Block& block, std::uint32_t height) {
    BlockUndo undo;
    undo.transactions.reserve(block.transactions.empty() ? 0 : block.transactions.size() - 1);
    for (std::size_t t = 0; t < block.transactions.size(); ++t) {
      const Transaction& tx = block.transactions[t];
      if (t != 0) {
        TxUndo& tx_undo = undo.transactions.emplace_back();
        tx_undo.coins.reserve(tx.input_count());
        for (const InputView in : tx.inputs()) {
          const OutPoint point = in.prevout();
          auto it = changes.find(point);
          if (it != changes.end()) {
            if (!it->second.coin) return undo::errc::missing_coin;
            change_bytes -= std::min(change_bytes, it->second.coin->script_pubkey.size());
            tx_undo.coins.push_back(std::move(*it->second.coin));
            if (it->second.fresh) {
              changes.erase(it);
            } else {
              it->second.coin.reset();
            }
            continue;
          }
          auto stored = stored_coin(point);
          if (!stored) return stored.error();
          if (!stored.value()) return undo::errc::missing_coin;
          tx_undo.coins.push_back(std::move(*stored.value()));
          changes.emplace(point, Change{std::nullopt, false});
          change_bytes += sizeof(OutPoint) + sizeof(Change) + 32;
        }
      }
      const Hash256 id = tx.txid();
      for (std::uint32_t o = 0; o < tx.output_count(); ++o) {
        const OutputView out = tx.output(o);
        const auto script = out.script_pubkey();
        if (unspendable(script)) continue;  // never a coin (Core's AddCoin)
        SpentCoin coin{height, t == 0, out.value(), std::vector<std::byte>(script.begin(), script.end())};
        change_bytes += sizeof(OutPoint) + sizeof(Change) + 32 + script.size();
        auto [it, inserted] = changes.try_emplace(OutPoint{id, o});
        it->second.fresh = inserted;  // over a spent coin the database holds: written over it
        it->second.coin = std::move(coin);
        ++coins_connected;
      }
    }
    return undo;
  }

  result<void> flush() {
    // A block half applied is never written: the next open() connects
    // again what the last flush did not hold.
    if (failed) return error(directory::errc::not_one_chain);
    failed = true;  // until written
    if (undo_writer) {
      if (auto r = undo_writer->close(); !r) return r;
    }
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
    batch.Put(leveldb::Slice(&best_block_key, 1), leveldb::Slice(reinterpret_cast<const char*>(best.bytes().data()), 32));
    std::array<std::byte, 12> end{};
    const auto file = to_le(static_cast<std::uint32_t>(undo_end.file));
    const auto size = to_le(undo_end.size);
    std::copy(file.begin(), file.end(), end.begin());
    std::copy(size.begin(), size.end(), end.begin() + 4);
    batch.Put(leveldb::Slice(&undo_end_key, 1), leveldb::Slice(reinterpret_cast<const char*>(end.data()), end.size()));
    leveldb::WriteOptions sync;
    sync.sync = true;
    if (const leveldb::Status s = db->Write(sync, &batch); !s.ok()) return leveldb_failure(s, nullptr);
    changes.clear();
    change_bytes = 0;
    failed = false;
    return success();
  }

  result<std::optional<std::uint32_t>> connect(const Block& block, const Hash256& hash, BlockPosition at, bool write_undo) {
    if (failed) return error(directory::errc::not_one_chain);
    failed = true;  // until this block is in
    const bool first = best_height < 0;
    if (first ? !block.header.prev_block.is_zero() : block.header.prev_block != best) return error(directory::errc::not_one_chain);
    const auto height = static_cast<std::uint32_t>(best_height + 1);
    // The genesis block's outputs are no coins: Core never connects it.
    auto undo = first ? result<BlockUndo>(BlockUndo{}) : apply(block, height);
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
    if (change_bytes > options.cache_bytes) {
      if (auto r = flush(); !r) return r.error();
    }
    return undo_at;
  }
};

std::string UtxoStore::path_of(const std::string& blocks_dir) { return (fs::path(blocks_dir) / "blockwire-utxos").string(); }

UtxoStore::UtxoStore(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
UtxoStore::UtxoStore(UtxoStore&&) noexcept = default;
UtxoStore& UtxoStore::operator=(UtxoStore&&) noexcept = default;
UtxoStore::~UtxoStore() = default;

result<UtxoStore> UtxoStore::open(const BlockIndex& chain, const Options& options, std::string* why) {
  auto state = std::make_unique<State>();
  state->dir = chain.dir();
  state->key = chain.key();
  state->net = chain.net();
  state->options = options;
  leveldb::Options db_options;
  db_options.create_if_missing = true;
  leveldb::DB* db = nullptr;
  if (const leveldb::Status s = leveldb::DB::Open(db_options, path_of(chain.dir()), &db); !s.ok()) return leveldb_failure(s, why);
  state->db.reset(db);

  // Where the set is, and where the rev files ended then. A set made now
  // is at nothing yet, and the rev files there (a node's, pack's) are
  // marked as not its own: never cut.
  std::string value;
  leveldb::Status s = db->Get(leveldb::ReadOptions(), leveldb::Slice(&best_block_key, 1), &value);
  if (s.IsNotFound()) {
    if (auto r = state->flush(); !r) return r.error();
  } else {
    if (!s.ok()) return leveldb_failure(s, why);
    std::string end;
    if (value.size() != 32 || !db->Get(leveldb::ReadOptions(), leveldb::Slice(&undo_end_key, 1), &end).ok() || end.size() != 12) {
      if (why != nullptr) *why = path_of(chain.dir()) + ": its best block or its rev files' end does not decode";
      return error(directory::errc::bad_index_entry);
    }
    std::copy_n(bytes_of(leveldb::Slice(value)).begin(), 32, state->best.bytes().begin());
    const auto e = bytes_of(leveldb::Slice(end));
    state->undo_end = {load_le<std::uint32_t>(e.data()), load_le<std::uint64_t>(e.data() + 4), true};
  }
  // Records past that end are of blocks connected after the last flush
  // (a crash lost their coins): cut off, they are written again below.
  auto files = undo_files(chain.dir());
  if (!files) return files.error();
  for (const std::string& f : files.value()) {
    const unsigned n = undo_file_number(fs::path(f).filename().string()).value_or(0);
    std::error_code ec;
    const std::uint64_t size = fs::file_size(f, ec);
    if (ec) return ec;
    if (n > state->undo_end.file || (n == state->undo_end.file && state->undo_end.size == 0)) {
      fs::remove(f, ec);
      state->opening.undo_bytes_cut += size;
    } else if (n == state->undo_end.file && size > state->undo_end.size) {
      fs::resize_file(f, state->undo_end.size, ec);
      state->opening.undo_bytes_cut += size - state->undo_end.size;
    }
    if (ec) return ec;
  }
  if (!state->best.is_zero()) {
    const auto at = chain.find(state->best);
    if (!at || !chain.on_best_chain(*at)) {
      if (why != nullptr) {
        *why = "the UTXO set in " + path_of(chain.dir()) + " is at block " + state->best.to_hex() +
               ", not on the directory's best chain; remove that folder to build the set again from the blocks";
      }
      return error(directory::errc::not_one_chain);
    }
    state->best_height = at->height;
  }

  // The best chain's blocks past the set's, connected; their undo records
  // written unless the directory has them (rev files from before the set:
  // a node's, pack's; after the cut, no record of ours is past the set).
  const std::int64_t tip = chain.height();
  std::optional<BlocksDirectory> paired;
  if (tip > state->best_height && undo_end_now(chain.dir()).any) {
    BlocksDirectory::Options o;
    o.key = chain.key();
    o.net = chain.net();
    o.undo_required = false;
    auto opened = BlocksDirectory::open(chain.dir(), o);
    if (opened) paired.emplace(std::move(opened).value());
  }
  const std::int64_t start = state->best_height;
  state->opening.from_height = start;
  for (std::int64_t h = start + 1; h <= tip; ++h) {
    const IndexedBlock b = chain.at_height(static_cast<std::size_t>(h));
    const std::string file = (fs::path(chain.dir()) / block_file_name(b.file)).string();
    auto read = read_block_record(file, b.offset, chain.key(), chain.net());
    const auto said = [&](const error& e, const std::string& what) {
      if (why != nullptr) *why = "block " + b.hash.to_hex() + " (height " + std::to_string(h) + "): " + what + ": " + e.message();
      return e;
    };
    if (!read) return said(read.error(), "reading it");
    auto view = BlockView::parse(read.value());
    if (!view) return said(view.error(), "decoding it");
    bool has_record = false;
    if (paired && h > 0) {
      if (const auto there = paired->index().find(b.hash)) has_record = paired->undo_of(*there, view.value()).has_value();
    }
    auto connected = state->connect(view.value().to_block(), b.hash, BlockPosition{b.file, b.offset}, !has_record);
    if (!connected) return said(connected.error(), "connecting it to the UTXO set");
    if (options.progress) options.progress(static_cast<std::uint64_t>(h - start), static_cast<std::uint64_t>(tip - start));
  }
  if (tip > start) {
    state->opening.blocks_connected = static_cast<std::uint64_t>(tip - start);
    if (auto r = state->flush(); !r) return r.error();
  }
  return UtxoStore(std::move(state));
}

result<std::optional<std::uint32_t>> UtxoStore::connect(const Block& block, const Hash256& hash, BlockPosition at) {
  return state_->connect(block, hash, at, true);
}

result<void> UtxoStore::flush() { return state_->flush(); }

const Hash256& UtxoStore::best_block() const noexcept { return state_->best; }

std::uint64_t UtxoStore::coins_connected() const noexcept { return state_->coins_connected; }

const UtxoStore::Opening& UtxoStore::opening() const noexcept { return state_->opening; }

}  // namespace blockwire
