// Blocks and transactions as JSON in the shape of Bitcoin Core's RPCs:
// `getblock <hash> 2` and `decoderawtransaction`, written as a stream.
// Fields that need the chain (height, confirmations, chainwork, mediantime,
// nextblockhash, fee) or a script interpreter (asm, desc, address, type)
// are left out.
#pragma once

#include "json_output.hpp"

#include <blockwire/codec.hpp>

namespace blockwire::cli {

void write_transaction_json(JsonOutput& out, const Transaction& tx);
void write_block_json(JsonOutput& out, const Block& block);

// Bitcoin Core's difficulty: the genesis target over the block's target.
double difficulty(std::uint32_t bits);

}  // namespace blockwire::cli
