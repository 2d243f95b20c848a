// A chain's Work and a block's Target are numbers of their own: comparing
// one with the other, or taking a hash for either, does not compile
// (BLOCKWIRE_BREAK: 1-3).
#ifndef BLOCKWIRE_BREAK
#define BLOCKWIRE_BREAK 0
#endif

#include <blockwire/codec.hpp>

bool easier(const blockwire::Work& work, const blockwire::Target& target) {
#if BLOCKWIRE_BREAK == 1
  return work < target;
#else
  return work.to_hex() == target.to_hex();  // (the numbers' text, said so)
#endif
}

blockwire::Work plus(const blockwire::Work& w, [[maybe_unused]] const blockwire::BlockHash& h) {
#if BLOCKWIRE_BREAK == 2
  return w + h;
#elif BLOCKWIRE_BREAK == 3
  return w + blockwire::Work(h.to_raw_hash());
#else
  return w + blockwire::Work::of_bits(0x207fffff).value_or(blockwire::Work{});  // (a block's work, from its bits)
#endif
}
