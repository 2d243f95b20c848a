// Esplora's JSON of a transaction (esplora-electrs' TransactionValue), as
// its /tx/, /address/.../txs and /block/.../txs routes write it.
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/script_history.hpp>
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
  std::optional<Height> height;  // none: a block not linked to a genesis block (-1 said)
  BlockHash block = BlockHash::all_zeros();
  std::uint32_t time = 0;
};
void write_esplora_status(tables::JsonWriter& out, const Confirmed& at);

// The block's undo data into `out` (nothing to read for a block of a
// coinbase alone), or the 500 that says why it could not be read.
std::optional<Response> read_undo(const BlocksDirectory& dir, const IndexedBlock& b, const BlockView& v, BlockUndo& out);

// `undo`: the coins its inputs spent (none for a coinbase): each input's
// prevout and the fee.
void write_esplora_tx(tables::JsonWriter& out, const TransactionView& tx, const TxUndo* undo, const Confirmed& at, network net);

}  // namespace blockwire::rest::detail
