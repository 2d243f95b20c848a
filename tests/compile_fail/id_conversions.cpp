// An id is made from a plain hash, or turned into one, only by name
// (from_raw_hash, to_raw_hash), never changed once made, and never made
// without a value: each break below (BLOCKWIRE_BREAK: 1-7) does not
// compile, and the control says the same thing the allowed way.
#ifndef BLOCKWIRE_BREAK
#define BLOCKWIRE_BREAK 0
#endif

#include <blockwire/codec.hpp>

using blockwire::BlockHash;
using blockwire::Hash256;
using blockwire::Txid;

BlockHash from_txid(const Txid& txid) {
#if BLOCKWIRE_BREAK == 1
  return BlockHash::from_raw_hash(txid);  // a txid taken for a plain hash
#elif BLOCKWIRE_BREAK == 2
  return BlockHash(txid);                   // one kind of id made from another
#else
  return BlockHash::from_raw_hash(txid.to_raw_hash());  // (said, where it is meant)
#endif
}

Hash256 raw(const Txid& txid) {
#if BLOCKWIRE_BREAK == 3
  return txid;  // an id turned into a plain hash unasked
#elif BLOCKWIRE_BREAK == 4
  return Hash256(Txid(Hash256{}).bytes());  // an id made from a plain hash unnamed
#else
  return Hash256(txid.bytes());
#endif
}

Txid changed(Txid txid) {
#if BLOCKWIRE_BREAK == 5
  txid.bytes()[0] = std::byte{1};  // an id's bytes changed in place
#endif
  return txid;
}

Txid nothing() {
#if BLOCKWIRE_BREAK == 6
  Txid none;  // an id with no value given
  return none;
#else
  return Txid::all_zeros();
#endif
}

bool easier(const blockwire::Target& target, const BlockHash& hash) {
#if BLOCKWIRE_BREAK == 7
  return blockwire::Target(hash) < target;  // a hash taken for a target
#else
  return target.met_by(hash);
#endif
}
