// The keys of a chainstate (Bitcoin Core's, and the set fetch keeps in the
// same format): "B" the best block, "C" + txid + VARINT(output index) a
// coin.
#pragma once

#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/undo/varint.hpp>

#include <string>
#include <vector>

namespace blockwire::detail {

inline constexpr char best_block_key = 'B';  // DB_BEST_BLOCK (txdb.cpp)
inline constexpr char coin_key = 'C';        // DB_COIN

inline std::string coin_key_of(const OutPoint& point) {
  std::string key(1, coin_key);
  key.append(reinterpret_cast<const char*>(point.txid.bytes().data()), 32);
  std::vector<std::byte> index;
  VectorWriter grows(index);
  BufferedWriter<VectorWriter&, 0> sink(grows);
  undo::encode_varint(sink, point.index);
  key.append(reinterpret_cast<const char*>(index.data()), index.size());
  return key;
}

}  // namespace blockwire::detail
