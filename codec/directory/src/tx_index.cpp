#include "kept_database.hpp"
#include "leveldb_snapshot.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/directory/tx_index.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/little_endian.hpp>
#include <blockwire/io/xor.hpp>

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <array>
#include <mutex>

namespace blockwire {

namespace {

using detail::bytes_of;
using detail::leveldb_failure;
using detail::slice_of;

constexpr char best_key = 'B';  // the block the index is at
constexpr char tx_key = 't';    // 't' + txid -> block hash, offset, size

std::string key_of(const Txid& txid) {
  std::string k(1, tx_key);
  k.append(reinterpret_cast<const char*>(txid.bytes().data()), 32);
  return k;
}

}  // namespace

struct TxIndex::State {
  std::unique_ptr<leveldb::DB> db;
  std::mutex updating;  // one update at a time; find() needs no lock (LevelDB's own)

  result<std::optional<BlockHash>> best() const { return detail::read_block_hash(*db, leveldb::Slice(&best_key, 1)); }

  // Each transaction of the block put (or deleted) in `batch`.
  static result<void> each_tx(const BlocksDirectory& dir, const IndexedBlock& b, leveldb::WriteBatch& batch, bool add) {
    auto bytes = dir.read_block(b);
    if (!bytes) return bytes.error();
    auto view = BlockView::parse(bytes.value());
    if (!view) return view.error();
    for (std::size_t i = 0; i < view.value().transaction_count(); ++i) {
      const TransactionView tx = view.value().transaction(i);
      if (!add) {
        batch.Delete(key_of(tx.txid()));
        continue;
      }
      std::array<std::byte, 40> place{};
      std::copy(b.hash.bytes().begin(), b.hash.bytes().end(), place.begin());
      const auto offset = to_le(static_cast<std::uint32_t>(tx.bytes().data() - view.value().bytes().data()));
      const auto size = to_le(static_cast<std::uint32_t>(tx.bytes().size()));
      std::copy(offset.begin(), offset.end(), place.begin() + 32);
      std::copy(size.begin(), size.end(), place.begin() + 36);
      batch.Put(key_of(tx.txid()), slice_of(place));
    }
    return success();
  }

  result<void> update(const BlocksDirectory& dir, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
    const std::lock_guard lock(updating);
    const BlockIndex& index = dir.index();
    auto at = best();
    if (!at) return at.error();
    std::optional<IndexedBlock> last = at.value() ? index.find(*at.value()) : std::nullopt;
    const auto said = [&](const error& e, const IndexedBlock& b) {
      return e.in("block " + b.hash.to_hex() + " (height " + to_string(b.height) + ")");
    };
    // Off a branch the chain left: its blocks' transactions removed.
    while (last && !index.on_best_chain(*last)) {
      leveldb::WriteBatch batch;
      if (auto r = each_tx(dir, *last, batch, false); !r) return said(r.error(), *last);
      const auto parent = index.parent(*last);
      const BlockHash now = parent ? parent->hash : BlockHash::all_zeros();
      batch.Put(leveldb::Slice(&best_key, 1), slice_of(now.bytes()));
      if (const leveldb::Status s = db->Write(leveldb::WriteOptions(), &batch); !s.ok()) return leveldb_failure(s);
      last = parent;
    }
    const Height from = (last ? last->height : Height::genesis()).next();  // (never the genesis block)
    leveldb::WriteBatch batch;
    const BlockCount::Heights heights = index.chain_size().heights(from);
    for (const Height h : heights) {
      const IndexedBlock b = index.at_height(h);
      if (auto r = each_tx(dir, b, batch, true); !r) return said(r.error(), b);
      const bool flush = !index.chain_size().contains(h.next()) || batch.ApproximateSize() > (std::size_t{8} << 20);
      if (flush) {
        batch.Put(leveldb::Slice(&best_key, 1), slice_of(b.hash.bytes()));
        if (const leveldb::Status s = db->Write(leveldb::WriteOptions(), &batch); !s.ok()) return leveldb_failure(s);
        batch.Clear();
      }
      if (progress) progress(static_cast<std::uint64_t>(h - from + 1), heights.size());
    }
    return success();
  }
};

TxIndex::TxIndex(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
TxIndex::TxIndex(TxIndex&&) noexcept = default;
TxIndex& TxIndex::operator=(TxIndex&&) noexcept = default;
TxIndex::~TxIndex() = default;

result<TxIndex> TxIndex::open(const BlocksDirectory& dir, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  auto kept = detail::open_kept_database(dir.path(), "txindex", leveldb::Options());
  if (!kept) return kept.error();
  auto state = std::make_unique<State>();
  state->db = std::move(kept.value().db);
  if (auto r = state->update(dir, progress); !r) return r.error();
  return TxIndex(std::move(state));
}

result<void> TxIndex::update(const BlocksDirectory& dir) { return state_->update(dir, {}); }

result<std::optional<TxIndex::Place>> TxIndex::find(const Txid& txid) const {
  std::string v;
  const leveldb::Status s = state_->db->Get(detail::checked_reads(), key_of(txid), &v);
  if (s.IsNotFound()) return std::optional<Place>{};
  if (!s.ok()) return leveldb_failure(s);
  if (v.size() != 40) return error(directory::errc::bad_index_entry);
  const auto b = bytes_of(leveldb::Slice(v));
  Place p;
  p.block = BlockHash::from_bytes(b.first<32>());
  p.offset = load_le<std::uint32_t>(b.data() + 32);
  p.size = load_le<std::uint32_t>(b.data() + 36);
  return std::optional<Place>(p);
}

result<std::optional<std::vector<std::byte>>> TxIndex::read(const BlocksDirectory& dir, const Txid& txid) const {
  auto place = find(txid);
  if (!place) return place.error();
  if (!place.value()) return std::optional<std::vector<std::byte>>{};
  const auto b = dir.index().find(place.value()->block);
  if (!b || !dir.index().on_best_chain(*b)) return std::optional<std::vector<std::byte>>{};  // (a reorganization not yet followed)
  auto file = FileReader::open(dir.index().file_path(b->file).c_str());
  if (!file) return file.error();
  std::vector<std::byte> bytes(place.value()->size);
  const std::uint64_t at = b->offset + 8 + place.value()->offset;
  if (auto r = read_at(file.value().fd(), bytes, at); !r) return r.error();
  xor_in_place(bytes, dir.key(), at);
  return std::optional<std::vector<std::byte>>(std::move(bytes));
}

}  // namespace blockwire
