// An address index of a directory's best chain, as Electrum and Esplora
// servers keep one: for each output script (by its scripthash, the
// SHA-256 of the script), the blocks whose transactions fund it or spend
// from it, each with what it did there (transactions, outputs funded and
// spent, their sums). Made from the blk and rev files alone: the scripts
// inputs spend come from the undo data, so no earlier output is looked up.
//
// One row per script and block: the block's transactions themselves are
// read again from the directory when asked for (the way romanz/electrs
// keeps its index small), and a script's totals are the sum of its rows.
// Kept in LevelDB inside the directory's kept index ("addresses"), with
// the block it is at written in the same batch as each block's rows, so a
// process killed at any point leaves whole blocks only; brought to the
// chain's tip when opened and by update(), rows of blocks a
// reorganization took off removed. Provably unspendable outputs (OP_RETURN,
// scripts over 10,000 bytes) are not indexed, as Esplora does not.
#pragma once

#include <blockwire/codec/amount.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/io/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace blockwire {

// The SHA-256 of an output script: how Electrum and Esplora name a script.
// Its hex is Esplora's (the bytes in order); Electrum's is reversed.
class ScriptHash {
 public:
  static ScriptHash of(std::span<const std::byte> script) noexcept;
  static ScriptHash from_bytes(std::span<const std::byte, 32> bytes) noexcept;
  // 64 hex digits, the bytes in order (Esplora's /scripthash/); nothing
  // for anything else.
  static std::optional<ScriptHash> from_hex(std::string_view hex);
  std::string to_hex() const;
  std::span<const std::byte, 32> bytes() const noexcept { return bytes_; }
  friend bool operator==(const ScriptHash&, const ScriptHash&) = default;

 private:
  ScriptHash() = default;
  std::array<std::byte, 32> bytes_{};
};

class AddressIndex {
 public:
  // What transactions did with a script: Esplora's chain_stats.
  struct Totals {
    std::uint64_t tx_count = 0;          // transactions that fund it or spend from it
    std::uint64_t funded_txo_count = 0;  // outputs paying to it
    Amount funded_txo_sum;
    std::uint64_t spent_txo_count = 0;  // of those, spent (by inputs of the chain)
    Amount spent_txo_sum;
    Totals& operator+=(const Totals& other) noexcept;
    friend bool operator==(const Totals&, const Totals&) = default;
  };
  struct BlockRow {
    Height height = Height::genesis();
    Totals totals;  // what the block's transactions did with the script
  };
  struct Progress {
    std::uint64_t blocks_done = 0;
    std::uint64_t blocks_total = 0;  // to index in this call
    std::uint64_t block_bytes = 0;   // read so far
  };
  struct Options {
    unsigned threads = 0;  // reading and hashing blocks (0: every core)
    std::function<void(const Progress&)> progress;
  };

  // Opens (or makes) the index of `dir` and brings it to its tip. Errors:
  // LevelDB's (directory::errc::leveldb_corruption, std::errc, with
  // LevelDB's words), reading a block or its undo data (a pruned block:
  // blockfiles::errc::pruned; no rev files: directory::errc::no_undo_data),
  // the context naming the block. Rows committed before a failure stay: the
  // next open goes on from there. A directory whose index cannot be kept
  // (kept_index_path empty) is std::errc::read_only_file_system.
  static result<AddressIndex> open(const BlocksDirectory& dir, const Options& options);
  static result<AddressIndex> open(const BlocksDirectory& dir);
  AddressIndex(AddressIndex&&) noexcept;
  AddressIndex& operator=(AddressIndex&&) noexcept;
  ~AddressIndex();

  // To `dir`'s tip again (after BlocksDirectory::refresh), from any thread
  // while others read.
  result<void> update(const BlocksDirectory& dir, const Options& options);
  result<void> update(const BlocksDirectory& dir);
  // The block the index is at (all_zeros before the first block), and its
  // height (none then).
  BlockHash best() const;
  std::optional<Height> best_height() const;

  // The script's totals over the chain: the sum of its rows.
  result<Totals> totals(const ScriptHash& script) const;
  // The script's rows, newest block first (or oldest first), from height
  // `start` on in that direction (newest first: at or below it); `each`
  // returns false to stop.
  result<void> each_block(const ScriptHash& script, bool newest_first, Height start,
                          const std::function<bool(const BlockRow&)>& each) const;
  // The index's bytes on disk.
  std::uint64_t disk_size() const;

 private:
  struct State;
  explicit AddressIndex(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace blockwire
