// The branch that proves a leaf is under a merkle root, as Bitcoin's
// merkle trees pair their nodes (the last one of an odd level with
// itself): a transaction under its block's root (Electrum's
// blockchain.transaction.get_merkle, Esplora's /merkle-proof), a header
// under a checkpoint's root (Electrum's cp_height).
#pragma once

#include <blockwire/codec/ids.hpp>
#include <blockwire/io/hash256.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace blockwire {

// The hashes paired with leaf `pos` on its way up, from the leaves' level
// to the one below the root (none for a single leaf). Precondition:
// pos < leaves.size().
std::vector<Hash256> merkle_branch(std::vector<Hash256> leaves, std::size_t pos);
// The same for a block's transaction at `pos` among its txids.
std::vector<Hash256> merkle_branch(std::span<const Txid> txids, std::size_t pos);

// The root that `branch` proves for `leaf` at `pos` (merkle_branch's
// inverse): what a client checks.
Hash256 merkle_root_from_branch(Hash256 leaf, std::size_t pos, const std::vector<Hash256>& branch);

}  // namespace blockwire
