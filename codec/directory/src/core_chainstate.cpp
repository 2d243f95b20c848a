#include "leveldb_snapshot.hpp"

#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/sha256.hpp>
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

constexpr char best_block_key = 'B';  // DB_BEST_BLOCK (txdb.cpp)
constexpr char coin_key = 'C';        // DB_COIN
constexpr std::string_view obfuscation_key{"\x0e\x00obfuscate_key", 15};

std::span<const std::byte> bytes_of(const leveldb::Slice& s) noexcept { return {reinterpret_cast<const std::byte*>(s.data()), s.size()}; }

error failure_of(const leveldb::Status& s, std::string* why) {
  if (why != nullptr) *why = s.ToString();
  return s.IsCorruption() ? error(directory::errc::leveldb_corruption) : error(std::make_error_code(std::errc::io_error));
}

// The database's obfuscation key: a serialized vector (its length, then the
// bytes); none (an old chainstate): no obfuscation.
result<std::vector<std::byte>> key_of(leveldb::DB& db, std::string* why) {
  std::string value;
  const leveldb::Status s = db.Get(leveldb::ReadOptions(), leveldb::Slice(obfuscation_key.data(), obfuscation_key.size()), &value);
  if (s.IsNotFound()) return std::vector<std::byte>{};
  if (!s.ok()) return failure_of(s, why);
  if (value.empty() || static_cast<std::size_t>(static_cast<unsigned char>(value[0])) != value.size() - 1) {
    if (why != nullptr) *why = "its obfuscation key does not decode";
    return error(directory::errc::bad_index_entry, 0);
  }
  std::vector<std::byte> key;
  for (std::size_t i = 1; i < value.size(); ++i) key.push_back(static_cast<std::byte>(value[i]));
  return key;
}

void unobfuscate(std::span<std::byte> value, const std::vector<std::byte>& key) {
  if (key.empty()) return;
  for (std::size_t i = 0; i < value.size(); ++i) value[i] ^= key[i % key.size()];
}

result<std::optional<Hash256>> best_block_of(leveldb::DB& db, const std::vector<std::byte>& key, std::string* why) {
  std::string value;
  const leveldb::Status s = db.Get(leveldb::ReadOptions(), leveldb::Slice(&best_block_key, 1), &value);
  if (s.IsNotFound()) return std::optional<Hash256>{};
  if (!s.ok()) return failure_of(s, why);
  if (value.size() != 32) {
    if (why != nullptr) *why = "its best block is " + std::to_string(value.size()) + " bytes, not 32";
    return error(directory::errc::bad_index_entry, 0);
  }
  Hash256 hash;
  std::copy_n(bytes_of(leveldb::Slice(value)).begin(), 32, hash.bytes().begin());
  unobfuscate(hash.bytes(), key);
  return std::optional<Hash256>(hash);
}

}  // namespace

result<std::optional<Hash256>> read_core_best_block(const std::string& chainstate_dir, std::string* why) {
  auto snapshot = detail::LevelDbSnapshot::open(chainstate_dir, why);
  if (!snapshot) return snapshot.error();
  auto key = key_of(snapshot.value().db(), why);
  if (!key) return key.error();
  return best_block_of(snapshot.value().db(), key.value(), why);
}

result<std::uint64_t> read_core_coins(const std::string& chainstate_dir, const std::function<void(const CoreCoin&)>& each,
                                      std::string* why) {
  auto snapshot = detail::LevelDbSnapshot::open(chainstate_dir, why);
  if (!snapshot) return snapshot.error();
  auto key = key_of(snapshot.value().db(), why);
  if (!key) return key.error();
  leveldb::ReadOptions options;
  options.fill_cache = false;  // one pass
  std::unique_ptr<leveldb::Iterator> it(snapshot.value().db().NewIterator(options));
  std::uint64_t count = 0;
  std::vector<std::byte> value;
  CoreCoin c;
  for (it->Seek(leveldb::Slice(&coin_key, 1)); it->Valid(); it->Next()) {
    const auto k = bytes_of(it->key());
    if (k.empty() || k[0] != static_cast<std::byte>(coin_key)) break;
    // "C", the txid, VARINT(output index).
    DecodingContext ctx(k.subspan(1));
    std::array<std::byte, 32> txid{};
    ctx.read(std::span<std::byte, 32>(txid));
    const std::uint64_t index = undo::decode_varint(ctx, 0xffffffff);
    if (!ctx.ok() || ctx.offset() != k.size() - 1) {
      if (why != nullptr)
        *why = "a coin's key of " + std::to_string(k.size()) + " bytes does not decode (after " + std::to_string(count) + " coins)";
      return error(directory::errc::bad_index_entry, count);
    }
    std::copy(txid.begin(), txid.end(), c.outpoint.txid.bytes().begin());
    c.outpoint.index = static_cast<std::uint32_t>(index);
    const auto v = bytes_of(it->value());
    value.assign(v.begin(), v.end());
    unobfuscate(value, key.value());
    auto coin = decode_chainstate_coin(value);
    if (!coin) {
      if (why != nullptr) {
        *why = "the coin " + c.outpoint.txid.to_hex() + ":" + std::to_string(index) + " does not decode (" + coin.error().message() + ")";
      }
      return error(directory::errc::bad_index_entry, count);
    }
    c.coin = std::move(coin).value();
    each(c);
    ++count;
  }
  if (const leveldb::Status s = it->status(); !s.ok()) return failure_of(s, why);
  return count;
}

result<UtxoSetInfo> core_utxo_set_info(const std::string& chainstate_dir, std::string* why) {
  auto best = read_core_best_block(chainstate_dir, why);
  if (!best) return best.error();
  if (!best.value()) {
    if (why != nullptr) *why = "no best block (its \"B\" key): a chainstate in the middle of a write";
    return error(directory::errc::bad_index_entry);
  }
  UtxoSetInfo info;
  info.best_block = *best.value();
  Sha256 hash;
  std::vector<std::byte> out;
  std::optional<Hash256> last_txid;
  auto read = read_core_coins(
      chainstate_dir,
      [&](const CoreCoin& c) {
        // TxOutSer: the outpoint, uint32 height * 2 + coinbase, the output
        // (int64 amount, the script with its compact size).
        out.clear();
        const auto le = [&](std::uint64_t v, int n) {
          for (int i = 0; i < n; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
        };
        out.insert(out.end(), c.outpoint.txid.bytes().begin(), c.outpoint.txid.bytes().end());
        le(c.outpoint.index, 4);
        le(std::uint64_t{c.coin.height} * 2 + (c.coin.coinbase ? 1 : 0), 4);
        le(static_cast<std::uint64_t>(c.coin.value), 8);
        const std::size_t n = c.coin.script_pubkey.size();
        if (n < 253) {
          le(n, 1);
        } else if (n <= 0xffff) {
          out.push_back(std::byte{253});
          le(n, 2);
        } else {
          out.push_back(std::byte{254});
          le(n, 4);
        }
        out.insert(out.end(), c.coin.script_pubkey.begin(), c.coin.script_pubkey.end());
        hash.update(out);
        ++info.txouts;
        info.total_amount += c.coin.value;
        info.bogosize += 50 + n;
        if (last_txid != c.outpoint.txid) ++info.transactions;
        last_txid = c.outpoint.txid;
      },
      why);
  if (!read) return read.error();
  info.hash_serialized_3 = sha256d_of(hash);
  return info;
}

}  // namespace blockwire
