// Esplora's JSON of a transaction (esplora-electrs' TransactionValue), as
// its /tx/, /address/.../txs and /block/.../txs routes write it.
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/rest/rest_service.hpp>
#include <blockwire/tables/json_writer.hpp>
#include <blockwire/undo/block_undo.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace blockwire::rest::detail {

// The kind of an output script as Esplora names it ("v0_p2wpkh",
// "op_return", ...; mempool.space's "multisig" and "anchor" too).
std::string_view esplora_script_type(std::span<const std::byte> script);

// A script as rust-bitcoin writes it, which Esplora shows: every push with
// its size ("OP_PUSHBYTES_20 89ab..."), small numbers as OP_PUSHNUM_N,
// "<push past end>" where a push runs out.
std::string esplora_asm(std::span<const std::byte> script);

// The block a transaction is in: Esplora's "status".
struct Confirmed {
  std::int64_t height = 0;
  BlockHash block = BlockHash::all_zeros();
  std::uint32_t time = 0;
};
void write_esplora_status(tables::JsonWriter& out, const Confirmed& at);

// The block's undo data into `out` (nothing to read for a block of a
// coinbase alone), or the 500 that says why it could not be read.
std::optional<Response> read_undo(const BlocksDirectory& dir, const IndexedBlock& b, const BlockView& v, BlockUndo& out);
// The coins the block's transaction `i` spent (none for the coinbase).
inline const TxUndo* coins_spent_by(const BlockUndo& undo, std::size_t i) noexcept {
  return i != 0 && i - 1 < undo.transactions.size() ? &undo.transactions[i - 1] : nullptr;
}

// `undo`: the coins its inputs spent (none for a coinbase): each input's
// prevout and the fee.
void write_esplora_tx(tables::JsonWriter& out, const TransactionView& tx, const TxUndo* undo, const Confirmed& at, network net);

}  // namespace blockwire::rest::detail
