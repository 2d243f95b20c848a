// Peak heap bytes while decoding each real block (the Block alive at the
// end included), next to the block's size: a replaced operator new counts.
// Prints JSON: [{"block": ..., "bytes": ..., "peak_heap": ..., "allocations": ...}].
#include <blockwire/codec.hpp>

#include "block_data.hpp"

#include "../tests/support/counting_new.hpp"

#include <cstdio>

int main() {
  struct Case {
    const char* name;
    const std::vector<std::byte>& bytes;
  };
  const Case cases[] = {{"413567", test::block413567()}, {"segwit", test::segwit_block()}};
  std::printf("[\n");
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& bytes = cases[i].bytes;
    const std::size_t before = counting::reset_peak();
    const std::size_t allocations_before = counting::allocations.load();
    auto block = blockwire::decode_block(bytes);
    if (!block) return 1;
    const std::size_t peak_heap = counting::peak.load() - before;
    const std::size_t held = counting::live.load() - before;
    std::printf("  {\"block\": \"%s\", \"bytes\": %zu, \"peak_heap\": %zu, \"held_after\": %zu, \"allocations\": %zu}%s\n",
                cases[i].name, bytes.size(), peak_heap, held, counting::allocations.load() - allocations_before, i == 0 ? "," : "");
  }
  std::printf("]\n");
  return 0;
}
