// A txid where a block hash belongs does not compile (BLOCKWIRE_BREAK=1);
// the same lookup with a block hash does.
#ifndef BLOCKWIRE_BREAK
#define BLOCKWIRE_BREAK 0
#endif

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>

bool known(const blockwire::BlockIndex& index, const blockwire::Block& block) {
#if BLOCKWIRE_BREAK == 1
  return index.contains(block.transactions[0].txid());
#else
  return index.contains(blockwire::block_hash(block.header));
#endif
}
