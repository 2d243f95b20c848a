// Blocks and transactions as JSON in the shape of Bitcoin Core's RPCs:
// `getblock <hash> 2` and `decoderawtransaction`, written as a stream.
// Keys in Core's order (blockheaderToJSON, blockToJSON, TxToUniv,
// ScriptToUniv); the fields that need the chain (height, confirmations,
// mediantime, chainwork, nextblockhash) or undo data (fee, prevout) are
// left out for a loose block; a blocks directory with rev files has them.
#pragma once

#include <blockwire/tables/json_writer.hpp>

#include <blockwire/blockfiles/block_index.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/undo/block_undo.hpp>

namespace blockwire::tables {

// A Transaction or a TransactionView, read the same way (compiled for both
// in core_json.cpp). From a view nothing is decoded into objects, so memory
// stays the input's plus its offsets, whatever the number of transactions
// or witness items. `hex`: the transaction's own bytes at the end, as
// getblock prints them (decoderawtransaction does not). Addresses and
// descriptors for `net`. `undo`: the coins its inputs spent, when the
// directory has undo data: then `fee`, and with `prevouts` (getblock 3)
// each input's `prevout`. `block`: the block that holds it, as
// getrawtransaction and Core's /rest/tx print it ("blockhash").
template <TransactionLike Tx>
void write_transaction_json(JsonWriter& out, const Tx& tx, network net, bool hex, const TxUndo* undo = nullptr, bool prevouts = false,
                            const BlockHash* block = nullptr);
extern template void write_transaction_json(JsonWriter&, const Transaction&, network, bool, const TxUndo*, bool, const BlockHash*);
extern template void write_transaction_json(JsonWriter&, const TransactionView&, network, bool, const TxUndo*, bool, const BlockHash*);
// getblock's verbosity: 1 lists the txids, 2 the transactions in full.
// `chain`: the block's place in a blocks directory, when it is known.
// `undo`: the block's undo data, when the directory has it (fees at 2,
// and prevouts at 3, as getblock prints them).
void write_block_json(JsonWriter& out, const BlockView& block, network net, const ChainInfo* chain = nullptr, int verbosity = 2,
                      const BlockUndo* undo = nullptr);

// getblockheader's object (blockheaderToJSON): the header's fields, with
// `chain` its place (confirmations, height, mediantime, chainwork,
// nextblockhash) and its transaction count.
void write_block_header_json(JsonWriter& out, const BlockHeader& header, const ChainInfo* chain, std::uint64_t tx_count);
// A script as Core's ScriptToUniv shows an output's (asm, desc, hex,
// address when it has one, type).
void write_script_pubkey_json(JsonWriter& out, std::span<const std::byte> script, network net);
// "bits", "target", "difficulty" of compact `bits`, as getblockchaininfo
// and getblockheader print them.
void write_target_members(JsonWriter& out, std::uint32_t bits);
// Bitcoin Core's difficulty: the genesis target over the block's target.
double difficulty(std::uint32_t bits);
// An amount as Core's ValueFromAmount writes it: "50.00000000".
std::string amount_text(Amount amount);

}  // namespace blockwire::tables
