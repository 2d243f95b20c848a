// Bytes a user gave that should hold one block or one transaction, read as
// Bitcoin Core's tools read them: each reading in turn, hex first (Readings),
// as a block, else as a transaction with witness data, else as one without
// (decoderawtransaction's order: a transaction with no inputs reads as a
// marker and a flag otherwise). Each must take every byte.
#pragma once

#include <blockwire/codec/view.hpp>
#include <blockwire/io/user_input.hpp>

#include <cstddef>
#include <variant>
#include <vector>

namespace blockwire {

// The bound to read such an input to (read_user_input): no block or
// transaction is longer than 4,000,000 bytes, 8,000,000 hex digits, and
// this leaves room for white space among the digits.
inline constexpr std::size_t max_block_or_transaction_input = 9'000'000;

struct BlockOrTransaction {
  // The reading that parsed (readings.hex or readings.raw), which the view
  // reads: both live as long as the Readings.
  const std::vector<std::byte>* bytes = nullptr;
  std::variant<BlockView, TransactionView> view;
};

// No reading parsed: why the first one tried is not a block, and why it is
// not a transaction (as read last, without witness data).
struct NeitherBlockNorTransaction {
  error as_block;
  error as_transaction;
};

std::variant<BlockOrTransaction, NeitherBlockNorTransaction> block_or_transaction(const Readings& readings);
// A temporary's views would outlive it.
std::variant<BlockOrTransaction, NeitherBlockNorTransaction> block_or_transaction(Readings&&) = delete;

}  // namespace blockwire
