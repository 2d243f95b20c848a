// A height is a Height and a count of blocks a BlockCount: an integer in
// either's place, a height taken for a count, arithmetic that could leave
// the range, or a height turned back into an integer unasked does not
// compile (BLOCKWIRE_BREAK: 1-8); the control says each the allowed way.
#ifndef BLOCKWIRE_BREAK
#define BLOCKWIRE_BREAK 0
#endif

#include <blockwire/blockfiles/block_index.hpp>

#include <cstdint>
#include <optional>

using blockwire::BlockCount;
using blockwire::BlockIndex;
using blockwire::Height;
using blockwire::IndexedBlock;

IndexedBlock fifth(const BlockIndex& index) {
#if BLOCKWIRE_BREAK == 1
  return index.at_height(5);  // an integer where a height belongs
#else
  return index.at_height(*Height::checked(5));
#endif
}

bool has(const BlockIndex& index, Height h) {
#if BLOCKWIRE_BREAK == 2
  return h < index.chain_size();  // a height compared with a count
#else
  return index.chain_size().contains(h);
#endif
}

std::optional<Height> above(Height h) {
#if BLOCKWIRE_BREAK == 3
  return h + 1;  // arithmetic past the checks
#else
  return h.next();
#endif
}

Height made() {
#if BLOCKWIRE_BREAK == 4
  return Height(7);  // a height made from an integer unchecked
#else
  return *Height::checked(7);
#endif
}

std::uint32_t on_the_wire(Height h) {
#if BLOCKWIRE_BREAK == 5
  return h;  // a height turned into an integer unasked
#else
  return h.to_wire();
#endif
}

BlockCount blocks() {
#if BLOCKWIRE_BREAK == 6
  return 10;  // an integer where a count belongs
#else
  return BlockCount(10);
#endif
}

Height last(const BlockIndex& index) {
#if BLOCKWIRE_BREAK == 7
  return index.chain_size();  // a count taken for a height (the tip's is one less)
#else
  return index.chain_size().last().value_or(Height::genesis());
#endif
}

// A check whose answer is dropped is a check skipped (BLOCKWIRE_BREAK: 8;
// [[nodiscard]], an error here).
#pragma GCC diagnostic error "-Wunused-result"
bool is_height(std::int64_t n) {
#if BLOCKWIRE_BREAK == 8
  Height::checked(n);
  return true;
#else
  return Height::checked(n).has_value();
#endif
}
