// The encoders of blocks, headers and transactions, written with the public
// wire toolkit (<blockwire/codec/wire.hpp>). A Transaction holds its wire
// bytes: encoding it is writing them (or, without witness data, the runs
// its txid hashes). Templates on the sink: a BufferedWriter (the entry
// points), a SizeCounter (serialized_size), a SHA-256 writer (the ids) or,
// in the benchmarks, a concrete writer (the templated approach). Each
// mirrors the public entry point of the same name.
//
// Private: never included by a public header or another library (tests
// check both).
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/codec/wire.hpp>

namespace blockwire::detail {

using namespace blockwire::wire;

inline constexpr struct {
  void operator()(ByteSink auto& w, const OutPoint& p) const {
    encode_hash(w, p.txid);
    encode_u32(w, p.index);
  }
} encode_outpoint;

inline constexpr struct {
  template <TransactionLike Tx>
  void operator()(ByteSink auto& w, const Tx& tx, witness mode) const {
    if (mode == witness::allow || !tx.has_witness()) {
      w.write(tx.bytes());
    } else {
      for (const auto& part : tx.txid_parts()) w.write(part);
    }
  }
} encode_transaction;

inline constexpr struct {
  void operator()(ByteSink auto& w, const BlockHeader& h) const {
    encode_i32(w, h.version);
    encode_hash(w, h.prev_block);
    encode_hash(w, h.merkle_root);
    encode_u32(w, h.time);
    encode_u32(w, h.bits);
    encode_u32(w, h.nonce);
  }
} encode_header;

inline constexpr struct {
  void operator()(ByteSink auto& w, const Block& b, witness mode) const {
    encode_header(w, b.header);
    encode_range(w, b.transactions, encode_transaction, mode);
  }
} encode_block;

}  // namespace blockwire::detail
