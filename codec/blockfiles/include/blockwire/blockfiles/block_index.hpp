// The chain a blocks directory holds, from its blocks' headers alone: each
// header linked to its parent by hash (the files may hold blocks in any
// order), heights counted from a block whose parent is all zeros, and the
// best chain the one with the most work, as Bitcoin Core picks its tip.
// Memory: the index (a few hundred bytes a block), never the blocks.
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/io/xor.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace blockwire {

struct IndexedBlock {
  static constexpr std::size_t none = ~std::size_t{0};
  Hash256 hash;
  BlockHeader header;
  unsigned file = 0;           // N of blkNNNNN.dat
  std::uint64_t offset = 0;    // of the record's magic
  std::int64_t height = -1;    // -1: not linked to a block with a zero parent
  Hash256 chainwork;           // the work of this block and its ancestors
  std::size_t parent = none;   // in BlockIndex::blocks()
};

// What getblock says of a block's place in the chain.
struct ChainInfo {
  std::int64_t height;
  std::int64_t confirmations;     // -1 off the best chain
  std::uint32_t median_time;      // of the block and its ten ancestors
  Hash256 chainwork;
  std::optional<Hash256> next;    // on the best chain, when there is one
};

class BlockIndex {
 public:
  // Reads every record's header of DIR's blk files (damaged stretches are
  // passed over: `blockwire scan` is what reports them).
  static result<BlockIndex> build(const std::string& blocks_dir, const XorKey& key, network net = network::mainnet);

  std::span<const IndexedBlock> blocks() const noexcept { return blocks_; }
  // Indexes into blocks(), the best chain's blocks by height from 0.
  std::span<const std::size_t> best_chain() const noexcept { return best_; }
  const IndexedBlock* find(const Hash256& hash) const;
  ChainInfo chain_info(const IndexedBlock& block) const;
  std::string file_path(unsigned file) const;

 private:
  std::string dir_;
  std::vector<IndexedBlock> blocks_;
  std::map<Hash256, std::size_t> by_hash_;
  std::vector<std::size_t> best_;
};

}  // namespace blockwire
