// Bitcoin Core's chainstate (DATADIR/chainstate): its UTXO set in LevelDB,
// each value obfuscated with the key under "\x0e\x00obfuscate_key"; "B" the
// block it is at, "C" + txid + VARINT(output index) a coin. Read from a
// private snapshot laid over the node's files (core_index.hpp): nothing is
// written into it, and a running node's lock does not stop it. Streamed in
// key order, never the whole set in memory.
#pragma once

#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/undo/block_undo.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace blockwire {

// The block the chainstate in `chainstate_dir` is at (its "B" key): the
// node's tip when it last wrote its coins. Nothing when the key is absent
// (a chainstate in the middle of a flush). Errors: a directory that is not
// a LevelDB database (std::errc), a damaged one
// (directory::errc::leveldb_corruption), a value that does not decode
// (directory::errc::bad_index_entry); `why`, when given, says which in words.
result<std::optional<Hash256>> read_core_best_block(const std::string& chainstate_dir, std::string* why = nullptr);

// One coin of the set.
struct CoreCoin {
  OutPoint outpoint;
  SpentCoin coin;  // height, coinbase, value, script
};

// Every coin, in the chainstate's key order (by txid's bytes, then output
// index), handed to `each`; returns how many. Errors as read_core_best_block's;
// a coin whose key or value does not decode is bad_index_entry, `why`
// naming its outpoint: never a short set given as whole.
result<std::uint64_t> read_core_coins(const std::string& chainstate_dir, const std::function<void(const CoreCoin&)>& each,
                                      std::string* why = nullptr);

// What Core's gettxoutsetinfo (hash_type hash_serialized_3) says of the set.
struct UtxoSetInfo {
  Hash256 best_block;
  std::uint64_t transactions = 0;  // with an unspent output
  std::uint64_t txouts = 0;
  std::uint64_t bogosize = 0;     // Core's database-independent size: 50 bytes a coin plus its script
  std::int64_t total_amount = 0;  // satoshis
  // SHA256d of every coin as kernel/coinstats.cpp serializes it
  // (TxOutSer: the outpoint, uint32 height * 2 + coinbase, the output), in
  // key order.
  Hash256 hash_serialized_3;
};
// The whole set read once. Errors: read_core_coins's; a chainstate with no
// best block: directory::errc::bad_index_entry.
result<UtxoSetInfo> core_utxo_set_info(const std::string& chainstate_dir, std::string* why = nullptr);

}  // namespace blockwire
