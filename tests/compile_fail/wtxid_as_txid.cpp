// An input spends a txid: a wtxid in its place does not compile
// (BLOCKWIRE_BREAK: 1, 2), nor does comparing the two kinds of id.
#ifndef BLOCKWIRE_BREAK
#define BLOCKWIRE_BREAK 0
#endif

#include <blockwire/codec.hpp>

blockwire::OutPoint first_output(const blockwire::Transaction& tx) {
#if BLOCKWIRE_BREAK == 1
  return blockwire::OutPoint{tx.wtxid(), 0};
#else
  return blockwire::OutPoint{tx.txid(), 0};
#endif
}

bool same(const blockwire::Transaction& tx) {
#if BLOCKWIRE_BREAK == 2
  return tx.txid() == tx.wtxid();
#else
  return tx.txid().to_raw_hash() == tx.wtxid().to_raw_hash();  // the raw hashes, said explicitly
#endif
}
