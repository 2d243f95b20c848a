// Blocks and transactions as JSON in the shape of Bitcoin Core's RPCs:
// `getblock <hash> 2` and `decoderawtransaction`. Fields that need the chain
// (height, confirmations, chainwork, mediantime, nextblockhash, fee) or a
// script interpreter (asm, desc, address, type) are left out.
#pragma once

#include <blockwire/codec.hpp>

#include <nlohmann/json.hpp>

namespace blockwire::cli {

nlohmann::ordered_json transaction_json(const Transaction& tx);
nlohmann::ordered_json block_json(const Block& block);

// Bitcoin Core's difficulty: the genesis target over the block's target.
double difficulty(std::uint32_t bits);

}  // namespace blockwire::cli
