// Blocks and block headers as plain data.
#pragma once

#include <blockwire/codec/ids.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/codec/transaction.hpp>

#include <cstdint>
#include <vector>

namespace blockwire {

struct BlockHeader {
  std::int32_t version = 0;
  BlockHash prev_block = BlockHash::all_zeros();
  Hash256 merkle_root;
  std::uint32_t time = 0;
  std::uint32_t bits = 0;
  std::uint32_t nonce = 0;
  friend bool operator==(const BlockHeader&, const BlockHeader&) = default;
};

struct Block {
  BlockHeader header;
  std::vector<Transaction> transactions;
  // Read as a BlockView is read, so that code over blocks (fees, merkle
  // roots, undo) is written once for both.
  std::size_t transaction_count() const noexcept { return transactions.size(); }
  const Transaction& transaction(std::size_t i) const noexcept { return transactions[i]; }
  friend bool operator==(const Block&, const Block&) = default;
};

}  // namespace blockwire
