#include "kept_database.hpp"
#include "leveldb_snapshot.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/directory/address_index.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/undo.hpp>

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace blockwire {

namespace {

namespace fs = std::filesystem;
using detail::leveldb_failure;
using detail::slice_of;

// Keys. A row: 'a', the scripthash's first 10 bytes (a chance collision
// among mainnet's ~2^31 scripts is about 2^-18; finding one for a given
// script takes ~2^80 hashes), the height big-endian (a script's rows in
// height order). Its value: the block's Totals as five LEB128 numbers.
constexpr char best_key = 'B';  // the block the index is at
constexpr char row_key = 'a';
constexpr std::size_t prefix_size = 10;
constexpr std::size_t row_key_size = 1 + prefix_size + 4;

using Prefix = std::array<std::byte, prefix_size>;
using RowKey = std::array<char, row_key_size>;

RowKey row_key_of(const Prefix& prefix, Height height) {
  RowKey k{};
  k[0] = row_key;
  std::memcpy(k.data() + 1, prefix.data(), prefix_size);
  for (int i = 0; i < 4; ++i) k[1 + prefix_size + i] = static_cast<char>(height.to_wire() >> (24 - 8 * i));
  return k;
}

void put_number(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::optional<std::uint64_t> take_number(std::string_view& in) {
  std::uint64_t v = 0;
  for (unsigned shift = 0; shift < 64 && !in.empty(); shift += 7) {
    const auto b = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  return std::nullopt;
}

Amount plus(Amount a, Amount b) noexcept {
  // (sums of hostile values wrap rather than overflow: a row never fails to add)
  return Amount::from_sat(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.to_sat()) + static_cast<std::uint64_t>(b.to_sat())));
}

std::string encode_totals(const AddressIndex::Totals& t) {
  std::string v;
  put_number(v, t.tx_count);
  put_number(v, t.funded_txo_count);
  put_number(v, static_cast<std::uint64_t>(t.funded_txo_sum.to_sat()));
  put_number(v, t.spent_txo_count);
  put_number(v, static_cast<std::uint64_t>(t.spent_txo_sum.to_sat()));
  return v;
}

result<AddressIndex::Totals> decode_totals(std::string_view v) {
  AddressIndex::Totals t;
  const auto tx = take_number(v), funded = take_number(v), funded_sum = take_number(v), spent = take_number(v), spent_sum = take_number(v);
  if (!spent_sum || !v.empty()) return error(directory::errc::bad_index_entry).in("a row of the address index");
  t.tx_count = *tx;
  t.funded_txo_count = *funded;
  t.funded_txo_sum = Amount::from_sat(static_cast<std::int64_t>(*funded_sum));
  t.spent_txo_count = *spent;
  t.spent_txo_sum = Amount::from_sat(static_cast<std::int64_t>(*spent_sum));
  return t;
}

// One block's rows: each script it touches, what it did with it.
struct BlockRows {
  std::vector<std::pair<Prefix, AddressIndex::Totals>> rows;
  std::size_t bytes = 0;  // of the block
  std::optional<error> failure;
};

BlockRows rows_of(const BlocksDirectory& dir, const IndexedBlock& b, std::vector<std::byte>& buffer) {
  BlockRows out;
  const auto said = [&](const error& e) {
    out.failure = e.in("block " + b.hash.to_hex() + " (height " + to_string(b.height) + ")");
    return std::move(out);
  };
  if (auto r = dir.read_block(b, buffer); !r) return said(r.error());
  out.bytes = buffer.size();
  auto view = BlockView::parse(buffer);
  if (!view) return said(view.error());
  const BlockView& block = view.value();
  std::optional<BlockUndo> undo;
  if (block.transaction_count() > 1) {
    if (!dir.has_undo()) return said(error(directory::errc::no_undo_data));
    auto read = dir.undo_of(b, block);
    if (!read) return said(read.error());
    undo = std::move(read).value();
  }
  // Every (script, transaction, spent or funded, value) of the block, then
  // summed by script.
  struct Touch {
    Prefix prefix;
    std::uint32_t tx;
    bool spent;
    Amount value;
  };
  std::vector<Touch> touches;
  const auto touch = [&](std::span<const std::byte> script, std::uint32_t tx, bool spent, Amount value) {
    if (unspendable(script)) return;
    const Hash256 h = sha256(script);
    Touch t{{}, tx, spent, value};
    std::copy_n(h.bytes().begin(), prefix_size, t.prefix.begin());
    touches.push_back(t);
  };
  for (std::size_t i = 0; i < block.transaction_count(); ++i) {
    const TransactionView tx = block.transaction(i);
    const auto n = static_cast<std::uint32_t>(i);
    if (i != 0) {
      const TxUndo& spent = undo->transactions[i - 1];
      for (const SpentCoin& coin : spent.coins) touch(coin.script_pubkey, n, true, coin.value);
    }
    for (const OutputView o : tx.outputs()) touch(o.script_pubkey(), n, false, o.value());
  }
  std::sort(touches.begin(), touches.end(),
            [](const Touch& a, const Touch& b) { return a.prefix != b.prefix ? a.prefix < b.prefix : a.tx < b.tx; });
  for (std::size_t i = 0; i < touches.size(); ++i) {
    const Touch& t = touches[i];
    if (i == 0 || t.prefix != touches[i - 1].prefix) out.rows.emplace_back(t.prefix, AddressIndex::Totals{});
    AddressIndex::Totals& totals = out.rows.back().second;
    if (i == 0 || t.prefix != touches[i - 1].prefix || t.tx != touches[i - 1].tx) ++totals.tx_count;
    if (t.spent) {
      ++totals.spent_txo_count;
      totals.spent_txo_sum = plus(totals.spent_txo_sum, t.value);
    } else {
      ++totals.funded_txo_count;
      totals.funded_txo_sum = plus(totals.funded_txo_sum, t.value);
    }
  }
  return out;
}

}  // namespace

ScriptHash ScriptHash::of(std::span<const std::byte> script) noexcept {
  ScriptHash s;
  const Hash256 h = sha256(script);
  std::copy(h.bytes().begin(), h.bytes().end(), s.bytes_.begin());
  return s;
}

ScriptHash ScriptHash::from_bytes(std::span<const std::byte, 32> bytes) noexcept {
  ScriptHash s;
  std::copy(bytes.begin(), bytes.end(), s.bytes_.begin());
  return s;
}

std::optional<ScriptHash> ScriptHash::from_hex(std::string_view hex) {
  if (hex.size() != 64) return std::nullopt;
  auto bytes = blockwire::from_hex(hex);
  if (!bytes || bytes.value().size() != 32) return std::nullopt;
  return from_bytes(std::span<const std::byte, 32>(bytes.value().data(), 32));
}

std::string ScriptHash::to_hex() const { return blockwire::to_hex(bytes_); }

AddressIndex::Totals& AddressIndex::Totals::operator+=(const Totals& o) noexcept {
  tx_count += o.tx_count;
  funded_txo_count += o.funded_txo_count;
  funded_txo_sum = plus(funded_txo_sum, o.funded_txo_sum);
  spent_txo_count += o.spent_txo_count;
  spent_txo_sum = plus(spent_txo_sum, o.spent_txo_sum);
  return *this;
}

struct AddressIndex::State {
  std::unique_ptr<leveldb::DB> db;
  std::string path;     // the database's folder
  std::mutex updating;  // one update at a time; reads need no lock (LevelDB's own)
  mutable std::mutex best_lock;
  BlockHash best_block = BlockHash::all_zeros();
  std::optional<Height> best_height;

  result<std::optional<BlockHash>> read_best() const { return detail::read_block_hash(*db, leveldb::Slice(&best_key, 1)); }

  void set_best(const BlockHash& hash, std::optional<Height> height) {
    const std::lock_guard lock(best_lock);
    best_block = hash;
    best_height = height;
  }

  // Writes `batch` with the index at `b` (none: before the first block).
  result<void> commit(leveldb::WriteBatch& batch, const std::optional<IndexedBlock>& b) {
    const BlockHash at = b ? b->hash : BlockHash::all_zeros();
    batch.Put(leveldb::Slice(&best_key, 1), slice_of(at.bytes()));
    if (const leveldb::Status s = db->Write(leveldb::WriteOptions(), &batch); !s.ok()) return leveldb_failure(s);
    batch.Clear();
    set_best(at, b ? std::optional(b->height) : std::nullopt);
    return success();
  }

  result<void> update(const BlocksDirectory& dir, const Options& options) {
    const std::lock_guard lock(updating);
    const BlockIndex& index = dir.index();
    auto at = read_best();
    if (!at) return at.error();
    std::optional<IndexedBlock> last = at.value() ? index.find(*at.value()) : std::nullopt;
    if (at.value() && (!last || !last->linked)) {
      // (the kept index forgot the block: start again rather than keep rows no block explains)
      return error(directory::errc::unknown_best_block).in("the address index is at block " + at.value()->to_hex());
    }
    std::vector<std::byte> buffer;
    // Off a branch the chain left: its blocks' rows removed, a block a batch.
    while (last && !index.on_best_chain(*last)) {
      BlockRows rows = rows_of(dir, *last, buffer);
      if (rows.failure) return *rows.failure;
      leveldb::WriteBatch batch;
      for (const auto& [prefix, totals] : rows.rows) {
        const RowKey k = row_key_of(prefix, last->height);
        batch.Delete(leveldb::Slice(k.data(), k.size()));
      }
      last = index.parent(*last);
      if (auto r = commit(batch, last); !r) return r;
    }
    set_best(last ? last->hash : BlockHash::all_zeros(), last ? std::optional(last->height) : std::nullopt);
    const std::uint64_t from = last ? std::uint64_t{last->height.to_wire()} + 1 : 0;
    const std::uint64_t end = dir.chain_size().value();
    if (from >= end) return success();
    const auto height_at = [](std::uint64_t h) { return *Height::checked(h); };  // (below `end`: a height of the chain)
    const unsigned threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t batch_blocks = 32 * std::size_t{threads};
    std::vector<BlockRows> made(batch_blocks);
    std::vector<std::vector<std::byte>> buffers(threads);
    Progress progress{0, end - from, 0};
    // LevelDB takes a batch's rows on a thread of its own while the next
    // batch's blocks are read and hashed: its inserts are most of the work
    // and one thread's.
    using Rows = std::vector<std::pair<RowKey, AddressIndex::Totals>>;
    std::future<result<void>> writing;
    Progress written = progress;
    const auto written_so_far = [&]() -> result<void> {
      if (!writing.valid()) return success();
      if (auto r = writing.get(); !r) return r;
      if (options.progress) options.progress(written);
      return success();
    };
    for (std::uint64_t first = from; first < end; first += batch_blocks) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(batch_blocks, end - first));
      std::atomic<std::size_t> next{0};
      const auto work = [&](unsigned t) {
        for (std::size_t i; (i = next.fetch_add(1)) < n;) made[i] = rows_of(dir, dir.at_height(height_at(first + i)), buffers[t]);
      };
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < threads && t < n; ++t) pool.emplace_back(work, t);
      work(0);
      for (auto& t : pool) t.join();
      // The batch's rows in key order (LevelDB's table takes them faster so,
      // its inserts mostly in memory already touched), up to the last whole
      // block before a failure.
      std::size_t whole = 0;
      Rows sorted;
      for (; whole < n && !made[whole].failure; ++whole) {
        const Height height = height_at(first + whole);
        for (const auto& [prefix, totals] : made[whole].rows) sorted.emplace_back(row_key_of(prefix, height), totals);
        progress.block_bytes += made[whole].bytes;
        made[whole] = BlockRows{};
      }
      std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      progress.blocks_done += whole;
      const std::optional<IndexedBlock> reached =
          whole != 0 ? std::optional<IndexedBlock>(dir.at_height(height_at(first + whole - 1))) : last;
      if (auto r = written_so_far(); !r) return r;
      written = progress;
      writing = std::async(std::launch::async, [this, rows = std::move(sorted), reached]() -> result<void> {
        leveldb::WriteBatch batch;
        for (const auto& [k, totals] : rows) batch.Put(leveldb::Slice(k.data(), k.size()), encode_totals(totals));
        return commit(batch, reached);
      });
      last = reached;
      if (whole != n) {
        if (auto r = written_so_far(); !r) return r;
        return *made[whole].failure;
      }
    }
    if (auto r = written_so_far(); !r) return r;
    return success();
  }
};

AddressIndex::AddressIndex(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
AddressIndex::AddressIndex(AddressIndex&&) noexcept = default;
AddressIndex& AddressIndex::operator=(AddressIndex&&) noexcept = default;
AddressIndex::~AddressIndex() = default;

result<AddressIndex> AddressIndex::open(const BlocksDirectory& dir, const Options& options) {
  leveldb::Options db_options;
  // (rows come in random key order: larger tables mean fewer compactions)
  db_options.write_buffer_size = std::size_t{64} << 20;
  db_options.max_file_size = std::size_t{32} << 20;
  auto kept = detail::open_kept_database(dir.path(), "addresses", db_options);
  if (!kept) return kept.error();
  auto state = std::make_unique<State>();
  state->db = std::move(kept.value().db);
  state->path = std::move(kept.value().path);
  if (auto r = state->update(dir, options); !r) return r.error();
  return AddressIndex(std::move(state));
}

result<AddressIndex> AddressIndex::open(const BlocksDirectory& dir) { return open(dir, Options{}); }
result<void> AddressIndex::update(const BlocksDirectory& dir, const Options& options) { return state_->update(dir, options); }
result<void> AddressIndex::update(const BlocksDirectory& dir) { return state_->update(dir, Options{}); }

BlockHash AddressIndex::best() const {
  const std::lock_guard lock(state_->best_lock);
  return state_->best_block;
}

std::optional<Height> AddressIndex::best_height() const {
  const std::lock_guard lock(state_->best_lock);
  return state_->best_height;
}

result<void> AddressIndex::each_block(const ScriptHash& script, bool newest_first, Height start,
                                      const std::function<bool(const BlockRow&)>& each) const {
  Prefix prefix;
  std::copy_n(script.bytes().begin(), prefix_size, prefix.begin());
  const RowKey from = row_key_of(prefix, start);
  const leveldb::Slice mine(from.data(), 1 + prefix_size);
  std::unique_ptr<leveldb::Iterator> it(state_->db->NewIterator(detail::checked_reads()));
  it->Seek(leveldb::Slice(from.data(), from.size()));
  if (newest_first) {
    // (Seek finds the first row at or above `start`: one back unless it is `start`'s)
    if (!it->Valid()) {
      it->SeekToLast();
    } else if (it->key() != leveldb::Slice(from.data(), from.size())) {
      it->Prev();
    }
  }
  for (; it->Valid() && it->key().starts_with(mine); newest_first ? it->Prev() : it->Next()) {
    const leveldb::Slice k = it->key();
    if (k.size() != row_key_size) return error(directory::errc::bad_index_entry).in("a key of the address index");
    std::uint32_t height = 0;
    for (int i = 0; i < 4; ++i) height = (height << 8) | static_cast<unsigned char>(k[1 + prefix_size + i]);
    const auto checked = Height::checked(height);
    if (!checked) return error(directory::errc::bad_index_entry).in("a key of the address index (height " + std::to_string(height) + ")");
    BlockRow row{*checked, {}};
    auto totals = decode_totals(std::string_view(it->value().data(), it->value().size()));
    if (!totals) return totals.error();
    row.totals = totals.value();
    if (!each(row)) return success();
  }
  if (!it->status().ok()) return leveldb_failure(it->status());
  return success();
}

result<AddressIndex::Totals> AddressIndex::totals(const ScriptHash& script) const {
  Totals sum;
  auto r = each_block(script, false, Height::genesis(), [&](const BlockRow& row) {
    sum += row.totals;
    return true;
  });
  if (!r) return r.error();
  return sum;
}

std::uint64_t AddressIndex::disk_size() const {
  std::uint64_t size = 0;
  std::error_code ec;
  for (const auto& file : fs::directory_iterator(state_->path, ec)) {
    const auto bytes = file.file_size(ec);
    if (!ec) size += bytes;
  }
  return size;
}

}  // namespace blockwire
