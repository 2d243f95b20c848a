// BIP152 compact blocks: short transaction ids, a cmpctblock built from a
// block, and a block rebuilt from one and the transactions a node already
// has (its mempool), as Core's PartiallyDownloadedBlock does.
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/p2p.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace blockwire::p2p {

// Version 1 ids the transactions by txid, version 2 by wtxid.
inline constexpr std::uint64_t compact_version_txid = 1;
inline constexpr std::uint64_t compact_version_wtxid = 2;
// BIP152: the protocol version from which a peer knows compact blocks
// (Core's SHORT_IDS_BLOCKS_VERSION).
inline constexpr std::int32_t short_ids_version = 70014;

// The SipHash key of a cmpctblock: the first two little-endian 64-bit
// words of SHA256(header || nonce).
struct ShortIdKey {
  std::uint64_t k0 = 0;
  std::uint64_t k1 = 0;
};
ShortIdKey short_id_key(const BlockHeader& header, std::uint64_t nonce);
// The low 6 bytes of SipHash-2-4 of the id.
std::uint64_t short_id(const ShortIdKey& key, const Hash256& id) noexcept;

// A cmpctblock for `block`, the coinbase prefilled. `ids` are the block's
// transaction ids in order (decode_block(bytes, ids) gives them with the
// block); without them they are computed.
CmpctBlock make_cmpctblock(const Block& block, std::span<const TxIds> ids, std::uint64_t nonce,
                           std::uint64_t version = compact_version_wtxid);
CmpctBlock make_cmpctblock(const Block& block, std::uint64_t nonce, std::uint64_t version = compact_version_wtxid);

// A transaction a node already has, with its ids (a mempool keeps them).
// The transaction must outlive the PartialBlock it goes into.
struct PoolTransaction {
  TxIds ids;
  const Transaction* tx = nullptr;
};

// A block being rebuilt from a cmpctblock:
//   auto partial = PartialBlock::start(cmpct, pool);  // bad_compact_block, short_id_collision
//   if (partial->missing().empty()) block = partial->finish({});
//   else send partial->request(), then block = partial->finish(blocktxn);
// On short_id_collision, ask for the whole block.
class PartialBlock {
 public:
  PartialBlock() = default;
  static result<PartialBlock> start(const CmpctBlock& cmpct, std::span<const PoolTransaction> pool,
                                    std::uint64_t version = compact_version_wtxid);
  // Moved, never copied: its slots point into its own prefilled
  // transactions (a moved vector keeps its elements where they are; a
  // copy would point into the original).
  PartialBlock(PartialBlock&&) noexcept = default;
  PartialBlock& operator=(PartialBlock&&) noexcept = default;
  PartialBlock(const PartialBlock&) = delete;
  PartialBlock& operator=(const PartialBlock&) = delete;

  std::size_t transaction_count() const noexcept { return slots_.size(); }
  bool has(std::size_t index) const noexcept { return slots_[index] != nullptr; }
  // The indexes to ask for, ascending.
  std::vector<std::uint16_t> missing() const;
  GetBlockTxn request() const { return {block_hash_, missing()}; }

  // The block, with `txn`'s transactions in the missing places, checked
  // with check_block. A block that does not match its header is a short
  // id collision (or a peer's lie): fetch the whole block.
  result<Block> finish(const BlockTxn& txn) const;
  result<Block> finish(std::span<const Transaction> missing_transactions) const;

 private:
  BlockHeader header_;
  BlockHash block_hash_ = BlockHash::all_zeros();
  std::vector<Transaction> prefilled_;     // the slots of prefilled transactions point here
  std::vector<const Transaction*> slots_;  // null: missing
  std::vector<TxIds> ids_;                 // of each slot's transaction
};

}  // namespace blockwire::p2p
