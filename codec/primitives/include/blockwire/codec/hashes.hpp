// Bitcoin's hashes of blocks and transactions, hashed from the bytes a
// transaction holds (nothing is encoded again), and merkle roots.
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace blockwire {

class BlockView;

// SHA256d of bytes: sha256d() in <blockwire/io/sha256.hpp>.

BlockHash block_hash(const BlockHeader& header);
// A transaction's ids are its members, tx.txid() and tx.wtxid(), on a
// Transaction and a TransactionView alike; tx_ids() below gives both.

// Bitcoin Core's merkle root: an odd level pairs its last hash with itself.
// `mutated`, when given, is set if some level has two equal adjacent hashes
// (CVE-2012-2459: a block with duplicated transactions can have the same
// root as the real one).
Hash256 merkle_root(std::span<const Hash256> leaves, bool* mutated = nullptr);
Hash256 merkle_root(std::span<const Txid> txids, bool* mutated = nullptr);
// A block's, owned or viewed: the root of its txids.
Hash256 merkle_root(const Block& block, bool* mutated = nullptr);
Hash256 merkle_root(const BlockView& block, bool* mutated = nullptr);
// BIP141: the merkle root of the wtxids, the coinbase's counted as zero.
Hash256 witness_merkle_root(const Block& block);
Hash256 witness_merkle_root(const BlockView& block);

// Bitcoin Core's merkle root of leaves given one at a time, in O(log n)
// memory: the same root and mutation flag as merkle_root(leaves), without
// holding the leaves (a level's pending left node waits for its sibling).
// Leaves wait in batches of 64, hashed a level at a time as one run of
// pairs: the SHA-extension path hashes four pairs side by side, which a
// pair at a time cannot feed.
class MerkleBuilder {
 public:
  void add(const Hash256& leaf) noexcept {
    batch_[batched_++] = leaf;
    if (batched_ == batch_.size()) add_batch();
  }
  // The root of the leaves added so far (zero for none), and whether some
  // level had two equal adjacent hashes.
  Hash256 root(bool* mutated = nullptr) const noexcept;

 private:
  static constexpr std::size_t batch_height = 6;
  void add_batch() noexcept;
  // The 2^height leaves of a complete subtree, hashed in place; count_ is
  // a multiple of 2^height.
  void add_subtree(std::span<Hash256> leaves, std::size_t height) noexcept;
  // A complete subtree of 2^level leaves; count_ is a multiple of 2^level.
  void add_node(Hash256 node, std::size_t level) noexcept;

  std::array<Hash256, 64> pending_{};                          // pending_[k]: a complete left subtree of 2^k leaves
  std::array<Hash256, std::size_t{1} << batch_height> batch_;  // leaves not yet in pending_
  std::size_t batched_ = 0;
  std::uint64_t count_ = 0;  // leaves in pending_
  bool mutated_ = false;
};

struct TxIds {
  Txid txid = Txid::all_zeros();
  Wtxid wtxid = Wtxid::all_zeros();
  friend bool operator==(const TxIds&, const TxIds&) = default;
};

// Both ids of a transaction; one hash when it has no witness data (the
// same bytes).
TxIds tx_ids(const Transaction& tx);

// The ids of many transactions to out[i] (out.size() == txs.size()),
// hashed several side by side (sha256d_each; a txid from the parts of the
// witness encoding).
void tx_ids(std::span<const Transaction> txs, std::span<TxIds> out);

class BlockView;
// The ids of transactions [first, first + out.size()) of `block` (at most
// its transaction count), hashed from its bytes several transactions side
// by side (sha256d_each).
void tx_ids(const BlockView& block, std::size_t first, std::span<TxIds> out);
// The txids alone of transactions [first, first + out.size()), the same
// way: for a reader that wants no wtxid (segwit transactions' bytes are
// then hashed once, not twice).
void txids(const BlockView& block, std::size_t first, std::span<Txid> out);

// Decodes a block and computes every txid and wtxid, several transactions
// side by side (sha256d_each). `ids` is resized to the block's transaction
// count.
result<Block> decode_block(std::span<const std::byte> bytes, std::vector<TxIds>& ids, witness mode = witness::allow);
// The same into `out`, whose buffers are reused (decode_block(bytes, out));
// on an error `ids` is left empty.
result<void> decode_block(std::span<const std::byte> bytes, Block& out, std::vector<TxIds>& ids, witness mode = witness::allow);

}  // namespace blockwire
