// Blocks and transactions as JSON in the shape of Bitcoin Core's RPCs:
// `getblock <hash> 2` and `decoderawtransaction`, written as a stream.
// Fields that need the chain (height, confirmations, chainwork, mediantime,
// nextblockhash, fee) or a script interpreter (asm, desc, address, type)
// are left out.
#pragma once

#include "json_output.hpp"

#include <blockwire/codec.hpp>

namespace blockwire::cli {

// From views: nothing is decoded into objects, so memory stays the input's
// plus its offsets, whatever the number of transactions or witness items.
void write_transaction_json(JsonOutput& out, const TransactionView& tx);
void write_block_json(JsonOutput& out, const BlockView& block);

// Bitcoin Core's difficulty: the genesis target over the block's target.
double difficulty(std::uint32_t bits);

}  // namespace blockwire::cli
