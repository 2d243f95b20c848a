// A transaction index of a directory's best chain, as Core's -txindex: each
// txid to its block and its place in the block's bytes. Kept in LevelDB
// inside the directory's kept index (BlocksDirectory::kept_index_path,
// "txindex"), with the block it is at; brought to the chain's tip when
// opened and by update() (blocks taken off a reorganization leave it, as in
// Core: a transaction of a stale block alone is not found). The genesis
// block's coinbase is not indexed (Core's is not spendable, nor indexed).
#pragma once

#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace blockwire {

class TxIndex {
 public:
  struct Place {
    BlockHash block = BlockHash::all_zeros();
    std::uint32_t offset = 0;  // of the transaction in the block's bytes
    std::uint32_t size = 0;
  };
  // Opens (or makes) the index of `dir` and brings it to its tip.
  // `progress`: blocks indexed of those to index. Errors: LevelDB's
  // (directory::errc::leveldb_corruption, std::errc), reading a block;
  // the error's context says which (LevelDB's words, the block). A
  // directory whose index cannot be kept (kept_index_path empty) is
  // std::errc::read_only_file_system.
  static result<TxIndex> open(const BlocksDirectory& dir,
                              const std::function<void(std::uint64_t done, std::uint64_t total)>& progress = {});
  TxIndex(TxIndex&&) noexcept;
  TxIndex& operator=(TxIndex&&) noexcept;
  ~TxIndex();

  // To `dir`'s tip again (after BlocksDirectory::refresh), from any thread
  // while others find().
  result<void> update(const BlocksDirectory& dir);
  result<std::optional<Place>> find(const Txid& txid) const;
  // The transaction's bytes, read from the block's record.
  result<std::optional<std::vector<std::byte>>> read(const BlocksDirectory& dir, const Txid& txid) const;

 private:
  struct State;
  explicit TxIndex(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace blockwire
