// Blocks made of the smallest transactions, where a decoded Transaction's
// own size and allocations dominate (issue 16's memory target): built by the
// memory test and bench/peak_memory alike.
#pragma once

#include <blockwire/codec/wire.hpp>
#include <blockwire/io.hpp>

#include "bytes.hpp"
#include "test_data.hpp"

#include <cstddef>
#include <vector>

namespace test {

// Version 1, no inputs (read as the marker), flag 0, lock time 0: the
// fewest bytes that decode as a transaction. Not valid in a block.
inline std::vector<std::byte> ten_byte_tx() { return bytes({1, 0, 0, 0, 0, 0, 0, 0, 0, 0}); }

// Version 1, one input (outpoint, empty scriptSig, sequence), one output
// (value, empty script), lock time 0: the smallest transaction a valid
// block can hold.
inline std::vector<std::byte> sixty_byte_tx() {
  return concat(
      {bytes({1, 0, 0, 0, 1}), std::vector<std::byte>(36), bytes({0, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})});
}

// The most sixty-byte transactions a block's weight limit admits: 16,666
// would make it 4 x 1,000,043 weight units, over 4,000,000.
inline constexpr std::size_t max_sixty_byte_txs = 16'665;

// A block of `count` copies of `tx` after the segwit block's header.
inline std::vector<std::byte> block_of(std::size_t count, const std::vector<std::byte>& tx) {
  std::vector<std::byte> out(segwit_block().begin(), segwit_block().begin() + 80);
  blockwire::VectorWriter sink(out);
  blockwire::StreamWriter w{blockwire::writer_ref(sink)};
  blockwire::wire::encode_compact_size(w, count);
  (void)w.flush();  // a vector cannot fail
  out.reserve(out.size() + count * tx.size());
  for (std::size_t i = 0; i < count; ++i) out.insert(out.end(), tx.begin(), tx.end());
  return out;
}

}  // namespace test
