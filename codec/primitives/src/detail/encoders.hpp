// The encoders of blocks, headers and transactions: one line per wire
// field, written with the public wire toolkit (<blockwire/codec/wire.hpp>).
// Templates on the sink: a BufferedWriter (the entry points), a SizeCounter
// (serialized_size), a SHA-256 writer (the ids) or, in the benchmarks, a
// concrete writer (the templated approach). Each mirrors the public entry
// point of the same name: detail::encode_block is what encode_block runs.
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

// A transaction's payload and witness items, located once: the
// transaction's own accessors find them in its allocation on every call.
struct TxParts {
  std::span<const std::byte> payload;
  std::span<const ByteRange> witness_items;

  explicit TxParts(const Transaction& tx) : payload(tx.payload()), witness_items(tx.witness_items()) {}
  std::span<const std::byte> bytes(ByteRange r) const { return payload.subspan(r.offset, r.size); }
  std::span<const ByteRange> witness(const TxIn& in) const {  // as Transaction::witness
    if (in.witness_size == 0) return {};
    return witness_items.subspan(in.witness_begin, in.witness_size);
  }
};

inline constexpr struct {
  void operator()(ByteSink auto& w, const TxIn& in, const TxParts& tx) const {
    encode_outpoint(w, in.prevout);
    encode_bytes(w, tx.bytes(in.script_sig));
    encode_u32(w, in.sequence);
  }
} encode_txin;

inline constexpr struct {
  void operator()(ByteSink auto& w, const TxOut& out, const TxParts& tx) const {
    encode_i64(w, out.value);
    encode_bytes(w, tx.bytes(out.script_pubkey));
  }
} encode_txout;

inline constexpr struct {
  void operator()(ByteSink auto& w, const ByteRange& item, const TxParts& tx) const { encode_bytes(w, tx.bytes(item)); }
} encode_witness_item;

inline constexpr struct {
  void operator()(ByteSink auto& w, const TxIn& in, const TxParts& tx) const {
    encode_range(w, tx.witness(in), encode_witness_item, tx);
  }
} encode_witness_stack;

// BIP144: marker 0x00 and flag 0x01 before the inputs, the witness stacks
// after the outputs, when there is witness data and the mode allows it.
inline constexpr struct {
  void operator()(ByteSink auto& w, const Transaction& tx, witness mode) const {
    const bool segwit = mode == witness::allow && tx.has_witness();
    const TxParts parts(tx);
    const auto inputs = tx.inputs();
    encode_u32(w, tx.version);
    if (segwit) {
      encode_u8(w, 0x00);  // marker: what an old parser reads as "no inputs"
      encode_u8(w, 0x01);  // flag: witness stacks follow the outputs
    }
    encode_range(w, inputs, encode_txin, parts);
    encode_range(w, tx.outputs(), encode_txout, parts);
    if (segwit) {
      for (const TxIn& in : inputs) encode_witness_stack(w, in, parts);
    }
    encode_u32(w, tx.lock_time);
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
