// Bitcoin Core's chainstate (DATADIR/chainstate): its UTXO set in LevelDB,
// each value obfuscated with the key under "\x0e\x00obfuscate_key"; "B" the
// block it is at, "C" + txid + VARINT(output index) a coin. Read from a
// private snapshot laid over the node's files (core_index.hpp): nothing is
// written into it, and a running node's lock does not stop it. Streamed in
// key order, never the whole set in memory.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/undo/block_undo.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace blockwire {

// The block the chainstate in `chainstate_dir` is at (its "B" key): the
// node's tip when it last wrote its coins. Nothing when the key is absent
// (a chainstate in the middle of a flush). Errors: a directory that is not
// a LevelDB database (std::errc), a damaged one
// (directory::errc::leveldb_corruption), a value that does not decode
// (directory::errc::bad_index_entry); the error's context says which
// (LevelDB's words, the key). The caller names `chainstate_dir`.
result<std::optional<BlockHash>> read_core_best_block(const std::string& chainstate_dir);

// One coin of the set.
struct CoreCoin {
  OutPoint outpoint;
  SpentCoin coin;                     // height, coinbase, value, script
  std::span<const std::byte> stored;  // the value as the chainstate holds it, un-obfuscated (valid in `each` only)
};

// Every coin, in the chainstate's key order (by txid's bytes, then output
// index), handed to `each`; returns how many. Errors as read_core_best_block's;
// a coin whose key or value does not decode is bad_index_entry, its
// context naming the outpoint: never a short set given as whole.
result<std::uint64_t> read_core_coins(const std::string& chainstate_dir, const std::function<void(const CoreCoin&)>& each);

// What Core's gettxoutsetinfo (hash_type hash_serialized_3) says of the set.
struct UtxoSetInfo {
  BlockHash best_block = BlockHash::all_zeros();
  std::uint64_t transactions = 0;  // with an unspent output
  std::uint64_t txouts = 0;
  std::uint64_t bogosize = 0;                     // Core's database-independent size: 50 bytes a coin plus its script
  std::optional<Amount> total_amount = Amount();  // nothing when the sum leaves the money range (as Core says nothing)
  // SHA256d of every coin as kernel/coinstats.cpp serializes it
  // (TxOutSer: the outpoint, uint32 height * 2 + coinbase, the output), in
  // key order.
  Hash256 hash_serialized_3;
};
// How far a pass over the set has come: coins read, and the share of the
// key space behind it (txids are uniform, so the first bytes of the last
// one read say it; exact at the end).
struct CoinsProgress {
  std::uint64_t coins = 0;
  double fraction = 0;
};
using CoinsProgressFn = std::function<void(const CoinsProgress&)>;

// The whole set read once; `progress`, when given, every 65,536 coins and
// at the end. Errors: read_core_coins's; a chainstate with no best block:
// directory::errc::bad_index_entry (its context: "no best block ...").
result<UtxoSetInfo> core_utxo_set_info(const std::string& chainstate_dir, const CoinsProgressFn& progress = {});
// The same pass handing each coin to `each` too (what read_core_coins
// gives), for whatever is made of the set besides its summary.
result<UtxoSetInfo> read_core_utxo_set(const std::string& chainstate_dir, const std::function<void(const CoreCoin&)>& each,
                                       const CoinsProgressFn& progress = {});

// The set as Core's dumptxoutset writes it (node/utxo_snapshot.h's
// SnapshotMetadata: "utxo" 0xff, version 2, the network's magic, the base
// block, the coin count; then for each txid in key order: the txid, a
// compact size count and each coin as a compact size output index and the
// chainstate's Coin), into `path` whole or not at all (ReplacingFile): a
// failure leaves no short file behind. `net`: whose magic, the chainstate
// does not say. Returns the UtxoSetInfo of what was written, read in the
// same pass. Errors: core_utxo_set_info's, writing's (std::errc, its
// context "writing PATH").
result<UtxoSetInfo> write_core_snapshot(const std::string& chainstate_dir, const std::string& path, network net,
                                        const CoinsProgressFn& progress = {});

// The coins of a chainstate handed out one at a time as they are asked
// for, in key order, from one snapshot: for a reader that pulls (an
// iterator in another language, a consumer that stops early) where
// read_core_coins pushes them all.
class CoinCursor {
 public:
  // Errors as read_core_best_block's.
  static result<CoinCursor> open(const std::string& chainstate_dir);
  CoinCursor(CoinCursor&&) noexcept;
  CoinCursor& operator=(CoinCursor&&) noexcept;
  ~CoinCursor();
  // Its "B": nothing in the middle of a flush.
  const std::optional<BlockHash>& best_block() const noexcept;
  // The next coin (valid until the next call), or null after the last.
  // Errors as read_core_coins's.
  result<const CoreCoin*> next();
  // How many next() has handed out.
  std::uint64_t count() const noexcept;

 private:
  struct State;
  explicit CoinCursor(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

// A chainstate opened once for lookups of single coins: a node's, or the
// set fetch keeps (DIR/blockwire-utxos, the same format), as it was when
// opened (a private snapshot, as above).
class ChainstateSnapshot {
 public:
  // Errors as read_core_best_block's.
  static result<ChainstateSnapshot> open(const std::string& chainstate_dir);
  ChainstateSnapshot(ChainstateSnapshot&&) noexcept;
  ChainstateSnapshot& operator=(ChainstateSnapshot&&) noexcept;
  ~ChainstateSnapshot();
  // Its "B": nothing in the middle of a flush.
  const std::optional<BlockHash>& best_block() const noexcept;
  // The coin, if the set holds it. Errors: LevelDB's, a value that does
  // not decode (directory::errc::bad_index_entry).
  result<std::optional<SpentCoin>> find(const OutPoint& point) const;

 private:
  struct State;
  explicit ChainstateSnapshot(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace blockwire
