// Peak heap bytes while decoding each real block (the Block alive at the
// end included), next to the block's size: a replaced operator new counts.
// Also two blocks made of the smallest transactions, where a decoded
// Transaction's fixed size dominates (issue 16's memory target): 399,991
// ten-byte transactions (no inputs, no outputs: they decode, they are not
// valid) in 4 MB, and 16,665 sixty-byte ones (one input, one output, empty
// scripts: the most a block's weight limit admits, 4 x 1,000,043 bytes
// being over 4,000,000 with one more).
// Prints JSON: [{"block": ..., "bytes": ..., "peak_heap": ..., "allocations": ...}].
#include <blockwire/codec.hpp>

#include "block_data.hpp"

#include "../tests/support/counting_new.hpp"
#include "../tests/support/small_tx_blocks.hpp"

#include <cstdio>
#include <iterator>

int main() {
  const auto tiny = test::block_of(399'991, test::ten_byte_tx());
  const auto dense = test::block_of(test::max_sixty_byte_txs, test::sixty_byte_tx());
  struct Case {
    const char* name;
    const std::vector<std::byte>& bytes;
  };
  const Case cases[] = {{"413567", test::block413567()},
                        {"segwit", test::segwit_block()},
                        {"399,991 ten-byte transactions", tiny},
                        {"16,665 sixty-byte transactions", dense}};
  std::printf("[\n");
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const auto& bytes = cases[i].bytes;
    const std::size_t before = counting::reset_peak();
    const std::size_t allocations_before = counting::allocations.load();
    auto block = blockwire::decode_block(bytes);
    if (!block) {
      std::fprintf(stderr, "%s: %s\n", cases[i].name, block.error().message().c_str());
      return 1;
    }
    const std::size_t peak_heap = counting::peak.load() - before;
    const std::size_t held = counting::live.load() - before;
    std::printf("  {\"block\": \"%s\", \"bytes\": %zu, \"peak_heap\": %zu, \"held_after\": %zu, \"allocations\": %zu}%s\n", cases[i].name,
                bytes.size(), peak_heap, held, counting::allocations.load() - allocations_before, i + 1 < std::size(cases) ? "," : "");
  }
  std::printf("]\n");
  return 0;
}
