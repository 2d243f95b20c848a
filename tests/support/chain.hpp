// A small chain made by the tests themselves: coinbase-only blocks at
// regtest's difficulty (0x207fffff: a hash below it takes two tries on
// average), each with a coinbase of its own height so that no two match.
#pragma once

#include <blockwire/codec.hpp>

#include <cstdint>
#include <vector>

namespace test {

inline blockwire::Block mine(const blockwire::BlockHash& prev, std::uint32_t time, std::uint32_t height) {
  using namespace blockwire;
  Block b;
  b.header.version = 4;
  b.header.prev_block = prev;
  b.header.time = time;
  b.header.bits = 0x207fffff;
  TransactionBuilder cb;  // a coinbase: the null prevout
  const std::byte script_sig[]{std::byte{0x04}, std::byte(height), std::byte(height >> 8), std::byte(height >> 16),
                               std::byte(height >> 24)};
  cb.add_input(OutPoint{}, script_sig);
  const std::byte op_true[]{std::byte{0x51}};
  cb.add_output(Amount::from_sat(50'0000'0000), op_true);
  b.transactions.push_back(cb.build());
  b.header.merkle_root = merkle_root(b);
  const Target target = *Target::from_bits(b.header.bits);
  while (!target.met_by(block_hash(b.header))) ++b.header.nonce;
  return b;
}

}  // namespace test
