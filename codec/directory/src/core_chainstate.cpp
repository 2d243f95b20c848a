#include "chainstate_keys.hpp"
#include "leveldb_snapshot.hpp"

#include <blockwire/codec/wire.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/io/little_endian.hpp>
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/io/xor.hpp>
#include <blockwire/undo/varint.hpp>

#include <leveldb/db.h>
#include <leveldb/iterator.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string_view>
#include <vector>

namespace blockwire {
namespace {

using detail::best_block_key;
using detail::coin_key;
constexpr std::string_view obfuscation_key{"\x0e\x00obfuscate_key", 15};

using detail::bytes_of;
using detail::leveldb_failure;

// The database's obfuscation key: a serialized vector (its length, then the
// bytes); none (an old chainstate): no obfuscation.
result<std::vector<std::byte>> key_of(leveldb::DB& db) {
  std::string value;
  const leveldb::Status s = db.Get(detail::checked_reads(), leveldb::Slice(obfuscation_key.data(), obfuscation_key.size()), &value);
  if (s.IsNotFound()) return std::vector<std::byte>{};
  if (!s.ok()) return leveldb_failure(s);
  if (value.empty() || static_cast<std::size_t>(static_cast<unsigned char>(value[0])) != value.size() - 1) {
    return error(directory::errc::bad_index_entry, 0).in("its obfuscation key");
  }
  std::vector<std::byte> key;
  for (std::size_t i = 1; i < value.size(); ++i) key.push_back(static_cast<std::byte>(value[i]));
  return key;
}

void unobfuscate(std::span<std::byte> value, const std::vector<std::byte>& key) {
  if (key.empty()) return;
  if (key.size() == 8) {  // Core's: the block files' XOR, a word at a time
    XorKey word;
    std::copy(key.begin(), key.end(), word.begin());
    return xor_in_place(value, word, 0);
  }
  for (std::size_t i = 0, k = 0; i < value.size(); ++i, k = k + 1 == key.size() ? 0 : k + 1) value[i] ^= key[k];
}

result<std::optional<BlockHash>> best_block_of(leveldb::DB& db, const std::vector<std::byte>& key) {
  std::string value;
  const leveldb::Status s = db.Get(detail::checked_reads(), leveldb::Slice(&best_block_key, 1), &value);
  if (s.IsNotFound()) return std::optional<BlockHash>{};
  if (!s.ok()) return leveldb_failure(s);
  if (value.size() != 32) {
    return error(directory::errc::bad_index_entry, 0).in("its best block, " + std::to_string(value.size()) + " bytes, not 32");
  }
  Hash256 hash;
  std::copy_n(bytes_of(leveldb::Slice(value)).begin(), 32, hash.bytes().begin());
  unobfuscate(hash.bytes(), key);
  // Zeros are no block (Core's GetBestBlock gives them for none): a set a
  // writer had not yet brought to its first block.
  if (hash.is_zero()) return std::optional<BlockHash>{};
  return BlockHash::from_raw_hash(hash);
}

}  // namespace

result<std::optional<BlockHash>> read_core_best_block(const std::string& chainstate_dir) {
  auto snapshot = detail::LevelDbSnapshot::open(chainstate_dir);
  if (!snapshot) return snapshot.error();
  auto key = key_of(snapshot.value().db());
  if (!key) return key.error();
  return best_block_of(snapshot.value().db(), key.value());
}

namespace {

// The coins of an open database one at a time, in key order (the key its
// values are XORed with): what read_core_coins pushes and CoinCursor hands
// out when asked.
class CoinReader {
 public:
  CoinReader(leveldb::DB& db, std::vector<std::byte> key)
      : it_(db.NewIterator(detail::checked_reads(false))), key_(std::move(key)) {  // (one pass: no cache)
    it_->Seek(leveldb::Slice(&coin_key, 1));
  }

  // The next coin (valid until the next call), or null after the last.
  result<const CoreCoin*> next() {
    if (!it_->Valid()) {
      if (const leveldb::Status s = it_->status(); !s.ok()) return leveldb_failure(s);
      return nullptr;
    }
    const auto k = bytes_of(it_->key());
    if (k.empty() || k[0] != static_cast<std::byte>(coin_key)) return nullptr;
    // "C", the txid, VARINT(output index).
    DecodingContext ctx(k.subspan(1));
    std::array<std::byte, 32> txid{};
    ctx.read(std::span<std::byte, 32>(txid));
    const std::uint64_t index = undo::decode_varint(ctx, 0xffffffff);
    if (!ctx.ok() || ctx.offset() != k.size() - 1) {
      return error(directory::errc::bad_index_entry)
          .in("a coin's key of " + std::to_string(k.size()) + " bytes (after " + std::to_string(count_) + " coins)");
    }
    coin_.outpoint.txid = Txid::from_bytes(txid);
    coin_.outpoint.index = static_cast<std::uint32_t>(index);
    const auto v = bytes_of(it_->value());
    value_.assign(v.begin(), v.end());
    unobfuscate(value_, key_);
    auto decoded = decode_chainstate_coin(value_);
    if (!decoded) {
      // (the coin's own failure in its words: the code says the entry's)
      return error(directory::errc::bad_index_entry)
          .in("the coin " + coin_.outpoint.txid.to_hex() + ":" + std::to_string(index) + " (" + decoded.error().message() + ")");
    }
    coin_.coin = std::move(decoded).value();
    coin_.stored = value_;
    ++count_;
    it_->Next();
    return &coin_;
  }
  std::uint64_t count() const noexcept { return count_; }

 private:
  std::unique_ptr<leveldb::Iterator> it_;
  std::vector<std::byte> key_;
  std::vector<std::byte> value_;
  CoreCoin coin_;
  std::uint64_t count_ = 0;
};

// Every coin of an open database to `each`; how many.
result<std::uint64_t> coins_in(leveldb::DB& db, const std::vector<std::byte>& key, const std::function<void(const CoreCoin&)>& each) {
  CoinReader reader(db, key);
  for (;;) {
    auto c = reader.next();
    if (!c) return c.error();
    if (c.value() == nullptr) return reader.count();
    each(*c.value());
  }
}

}  // namespace

result<std::uint64_t> read_core_coins(const std::string& chainstate_dir, const std::function<void(const CoreCoin&)>& each) {
  auto snapshot = detail::LevelDbSnapshot::open(chainstate_dir);
  if (!snapshot) return snapshot.error();
  auto key = key_of(snapshot.value().db());
  if (!key) return key.error();
  return coins_in(snapshot.value().db(), key.value(), each);
}

namespace {

// What gettxoutsetinfo says of a set, taken coin by coin in key order.
class SetSummary {
 public:
  explicit SetSummary(const BlockHash& best_block) { info_.best_block = best_block; }
  void add(const CoreCoin& c) {
    // TxOutSer: the outpoint, uint32 height * 2 + coinbase, the output
    // (int64 amount, the script with its compact size).
    wire::encode_hash(sink_, c.outpoint.txid);
    wire::encode_u32(sink_, c.outpoint.index);
    wire::encode_u32(sink_, c.coin.height.to_wire() * 2 + (c.coin.coinbase ? 1 : 0));
    wire::encode_amount(sink_, c.coin.value);
    wire::encode_bytes(sink_, c.coin.script_pubkey);
    ++info_.txouts;
    if (info_.total_amount) info_.total_amount = checked_add(*info_.total_amount, c.coin.value);
    info_.bogosize += 50 + c.coin.script_pubkey.size();
    if (info_.txouts == 1 || last_txid_ != c.outpoint.txid) ++info_.transactions;
    last_txid_ = c.outpoint.txid;
  }
  UtxoSetInfo finish() {
    (void)sink_.flush();  // hashing cannot fail
    info_.hash_serialized_3 = sha256d_of(hash_);
    return info_;
  }

 private:
  UtxoSetInfo info_;
  Sha256 hash_;
  StreamWriter sink_{writer_ref(hash_)};
  Txid last_txid_ = Txid::all_zeros();
};

constexpr std::uint64_t progress_every = 65536;

CoinsProgress progress_after(const OutPoint& last, std::uint64_t coins) {
  const auto b = last.txid.bytes();
  const std::uint32_t top = (std::to_integer<std::uint32_t>(b[0]) << 24) | (std::to_integer<std::uint32_t>(b[1]) << 16) |
                            (std::to_integer<std::uint32_t>(b[2]) << 8) | std::to_integer<std::uint32_t>(b[3]);
  return {coins, static_cast<double>(top) / 4294967296.0};
}

// A chainstate opened: its snapshot, its obfuscation key, its best block.
struct OpenChainstate {
  detail::LevelDbSnapshot snapshot;
  std::vector<std::byte> key;
  std::optional<BlockHash> best;
};

result<OpenChainstate> open_chainstate(const std::string& chainstate_dir) {
  auto snapshot = detail::LevelDbSnapshot::open(chainstate_dir);
  if (!snapshot) return snapshot.error();
  auto key = key_of(snapshot.value().db());
  if (!key) return key.error();
  auto best = best_block_of(snapshot.value().db(), key.value());
  if (!best) return best.error();
  return OpenChainstate{std::move(snapshot).value(), std::move(key).value(), best.value()};
}

// The best block, required, then every coin to `each` and to the summary.
result<UtxoSetInfo> summarize_set(const std::string& chainstate_dir, const std::function<void(const CoreCoin&)>& each,
                                  const CoinsProgressFn& progress) {
  // The best block and the coins from one snapshot: a node flushing
  // meanwhile changes neither.
  auto opened = open_chainstate(chainstate_dir);
  if (!opened) return opened.error();
  auto& snapshot = opened.value().snapshot;
  const auto& key = opened.value().key;
  const auto& best = opened.value().best;
  if (!best) {
    return error(directory::errc::bad_index_entry)
        .in("no best block (its \"B\" key): the node has not written its chainstate yet (it writes it when its cache fills, and at "
            "shutdown), or is in the middle of a write");
  }
  SetSummary summary(*best);
  std::uint64_t coins = 0;
  auto read = coins_in(snapshot.db(), key, [&](const CoreCoin& c) {
    summary.add(c);
    if (each) each(c);
    if (++coins % progress_every == 0 && progress) progress(progress_after(c.outpoint, coins));
  });
  if (!read) return read.error();
  if (progress) progress({coins, 1.0});
  return summary.finish();
}

}  // namespace

result<UtxoSetInfo> core_utxo_set_info(const std::string& chainstate_dir, const CoinsProgressFn& progress) {
  return summarize_set(chainstate_dir, {}, progress);
}

result<UtxoSetInfo> read_core_utxo_set(const std::string& chainstate_dir, const std::function<void(const CoreCoin&)>& each,
                                       const CoinsProgressFn& progress) {
  return summarize_set(chainstate_dir, each, progress);
}

result<UtxoSetInfo> write_core_snapshot(const std::string& chainstate_dir, const std::string& path, network net,
                                        const CoinsProgressFn& progress) {
  const auto failed_writing = [&](const error& e) -> error { return e.in("writing " + path); };
  auto file = ReplacingFile::create(path.c_str());
  if (!file) return failed_writing(file.error());
  StreamWriter out{writer_ref(file.value())};
  // The metadata, its coin count a placeholder until the end.
  constexpr std::array<std::byte, 5> snapshot_magic{std::byte{'u'}, std::byte{'t'}, std::byte{'x'}, std::byte{'o'}, std::byte{0xff}};
  constexpr std::uint16_t snapshot_version = 2;
  out.write(snapshot_magic);
  wire::encode_u16(out, snapshot_version);
  out.write(magic(net));
  const std::uint64_t base_block_at = out.bytes_written();
  wire::encode_hash(out, Hash256{});
  const std::uint64_t count_at = out.bytes_written();
  wire::encode_u64(out, 0);
  // Each txid's coins gathered, then written behind it and their count.
  Txid txid = Txid::all_zeros();
  std::uint64_t in_group = 0;
  std::vector<std::byte> group;
  const auto write_group = [&] {
    if (in_group == 0) return;
    wire::encode_hash(out, txid);
    wire::encode_compact_size(out, in_group);
    out.write(group);
    group.clear();
    in_group = 0;
  };
  auto info = summarize_set(
      chainstate_dir,
      [&](const CoreCoin& c) {
        if (in_group != 0 && c.outpoint.txid != txid) write_group();
        txid = c.outpoint.txid;
        VectorWriter grows(group);
        BufferedWriter<VectorWriter&, 0> coin(grows);
        wire::encode_compact_size(coin, c.outpoint.index);
        coin.write(c.stored);
        ++in_group;
      },
      progress);
  if (!info) return info.error();
  write_group();
  if (auto r = out.flush(); !r) return failed_writing(r.error());
  const auto count = to_le(info.value().txouts);
  if (auto r = file.value().write_at(info.value().best_block.bytes(), base_block_at); !r) return failed_writing(r.error());
  if (auto r = file.value().write_at(count, count_at); !r) return failed_writing(r.error());
  if (auto r = file.value().commit(); !r) return failed_writing(r.error());
  return info;
}

// A constructor of its own: clang before 16 has no parenthesized aggregate
// initialization, which make_unique<State>(OpenChainstate) would need.
struct ChainstateSnapshot::State : OpenChainstate {
  explicit State(OpenChainstate&& opened) : OpenChainstate(std::move(opened)) {}
};

ChainstateSnapshot::ChainstateSnapshot(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
ChainstateSnapshot::ChainstateSnapshot(ChainstateSnapshot&&) noexcept = default;
ChainstateSnapshot& ChainstateSnapshot::operator=(ChainstateSnapshot&&) noexcept = default;
ChainstateSnapshot::~ChainstateSnapshot() = default;

result<ChainstateSnapshot> ChainstateSnapshot::open(const std::string& chainstate_dir) {
  auto opened = open_chainstate(chainstate_dir);
  if (!opened) return opened.error();
  return ChainstateSnapshot(std::make_unique<State>(std::move(opened).value()));
}

const std::optional<BlockHash>& ChainstateSnapshot::best_block() const noexcept { return state_->best; }

result<std::optional<SpentCoin>> ChainstateSnapshot::find(const OutPoint& point) const {
  std::string value;
  const leveldb::Status s = state_->snapshot.db().Get(detail::checked_reads(), detail::coin_key_of(point), &value);
  if (s.IsNotFound()) return std::optional<SpentCoin>{};
  if (!s.ok()) return leveldb_failure(s);
  std::vector<std::byte> bytes(bytes_of(leveldb::Slice(value)).begin(), bytes_of(leveldb::Slice(value)).end());
  unobfuscate(bytes, state_->key);
  auto coin = decode_chainstate_coin(bytes);
  if (!coin) return error(directory::errc::bad_index_entry);
  return std::optional<SpentCoin>(std::move(coin).value());
}

struct CoinCursor::State {
  explicit State(OpenChainstate&& o) : opened(std::move(o)), reader(opened.snapshot.db(), opened.key) {}
  OpenChainstate opened;
  CoinReader reader;  // (after the snapshot it iterates: destroyed first)
};

CoinCursor::CoinCursor(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
CoinCursor::CoinCursor(CoinCursor&&) noexcept = default;
CoinCursor& CoinCursor::operator=(CoinCursor&&) noexcept = default;
CoinCursor::~CoinCursor() = default;

result<CoinCursor> CoinCursor::open(const std::string& chainstate_dir) {
  auto opened = open_chainstate(chainstate_dir);
  if (!opened) return opened.error();
  return CoinCursor(std::make_unique<State>(std::move(opened).value()));
}

const std::optional<BlockHash>& CoinCursor::best_block() const noexcept { return state_->opened.best; }
result<const CoreCoin*> CoinCursor::next() { return state_->reader.next(); }
std::uint64_t CoinCursor::count() const noexcept { return state_->reader.count(); }

}  // namespace blockwire
