// UtxoStore's state (struct UtxoStore::State) and the small types it keeps,
// shared by utxo_store.cpp, utxo_store_import.cpp and utxo_store_chain.cpp.
#pragma once

#include "chainstate_keys.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec/block.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/utxo_store.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/little_endian.hpp>
#include <blockwire/io/xor.hpp>
#include <blockwire/undo.hpp>

#include <leveldb/db.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

namespace blockwire {

namespace utxo_detail {

inline constexpr char undo_end_key = 'R';  // blockwire's: (u32 file, u64 size) of the last rev file at the last flush

inline std::string key_of(const OutPoint& point) { return detail::coin_key_of(point); }

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

}  // namespace utxo_detail

struct UtxoStore::State {
  std::unique_ptr<leveldb::DB> db;
  std::string dir;
  XorKey key;
  network net;
  Options options;
  BlockHash best = BlockHash::all_zeros();
  std::optional<Height> best_height;  // none: no block yet
  utxo_detail::UndoEnd undo_end;
  std::optional<UndoFileWriter> undo_writer;
  std::unordered_map<OutPoint, utxo_detail::Change, utxo_detail::OutPointHash> changes;
  std::size_t change_bytes = 0;
  std::uint64_t coins_connected = 0;
  std::uint64_t blocks_connected = 0;
  Opening opening;
  std::optional<BlocksDirectory> pairing;  // the directory's records paired, while a follow() takes blocks off
  bool failed = false;

  result<std::optional<SpentCoin>> stored_coin(const OutPoint& point);

  struct View;  // the set as connect_block() sees it (utxo_store.cpp)

  // The block's coins spent and made; its undo data.
  result<BlockUndo> apply(const Block& block, Height height, std::span<const TxIds> ids);

  result<void> flush();

  result<std::optional<std::uint32_t>> connect(const Block& block, const BlockHash& hash, BlockPosition at, bool write_undo,
                                               std::span<const TxIds> ids);

  // A record a crash tore (the last of a rev file written since the last
  // flush: its magic where the whole records end) cut off. Core's zeros
  // past its records are no record: left alone.
  result<void> cut_torn_records();

  // A new set: a copy of the node's chainstate beside, when it is at a
  // block of the chain (else nothing: the set is built from the blocks).
  result<void> import_core_chainstate(const BlockIndex& chain);

  // A block of the chain, read from its blk file.
  result<Block> read_block(const IndexedBlock& b) const;

  // The undo record of a block of the chain: where the index says it is,
  // checked against its checksum; else (a fetch keeps no index of the
  // blocks it appends) where the directory's records pair with it.
  result<BlockUndo> undo_of(const IndexedBlock& b, const Block& block);

  // The best block taken off: its outputs removed, the coins it spent put
  // back from its undo record, as Core's DisconnectBlock does.
  result<void> disconnect(const IndexedBlock& b);

  // To the chain's tip: off the old branch back to where the new one
  // forks, then the new one's blocks connected, each one's undo record
  // written (unless `paired` has it) and its place given to the chain.
  result<void> follow(BlockIndex& chain, const Block* appended, const BlockHash& appended_hash, std::span<const TxIds> appended_ids,
                      const BlocksDirectory* paired);
};

}  // namespace blockwire
