// A script's transactions in one block of the best chain, read again from
// the block and its undo data: the address index keeps a row of totals a
// block, not transactions, so every server that lists a script's history
// (Esplora's routes, Electrum's) reads the blocks its rows name through
// this one function.
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/directory/address_index.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/undo.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace blockwire {

// A block of the best chain with its undo data.
struct BlockWithUndo {
  std::vector<std::byte> bytes;  // the block's
  BlockView view;                // over `bytes`
  BlockUndo undo;                // the coins it spent (none for a coinbase-only block)
  IndexedBlock block;
};

// Reads the block at `height` (on dir.chain_size()) and its undo data into
// `out`, its memory kept from call to call. Errors: blockfiles::errc::pruned,
// or the block's or its undo data's read or decoding failure, naming the
// height.
result<void> read_block_with_undo(const BlocksDirectory& dir, Height height, BlockWithUndo& out);

struct ScriptInBlock : BlockWithUndo {
  struct Touch {
    std::size_t tx;                     // its position in the block
    std::vector<std::uint32_t> funds;   // outputs paying the script
    std::vector<std::uint32_t> spends;  // inputs spending from it
  };
  std::vector<Touch> touching;  // in block order
};

// Reads the block at `height` into `out`, with the transactions that fund
// or spend from `script` (every output and spent coin hashed once). A
// height past the chain (a row the index has yet to take off) touches
// nothing. Errors: read_block_with_undo's.
result<void> read_script_in_block(const BlocksDirectory& dir, Height height, const ScriptHash& script, ScriptInBlock& out);

// The coins the block's transaction `i` spent (none for the coinbase).
inline const TxUndo* coins_spent_by(const BlockUndo& undo, std::size_t i) noexcept {
  return i != 0 && i - 1 < undo.transactions.size() ? &undo.transactions[i - 1] : nullptr;
}

}  // namespace blockwire
