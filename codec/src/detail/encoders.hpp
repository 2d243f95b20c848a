// The encoders: small stateless function objects, one line per wire field,
// composed by hand. Templates on the sink, which is a BufferedWriter (the
// entry points), a size counter (serialized_size), or, in the benchmarks, a
// concrete writer (the templated approach). The sink's write() returns
// nothing: a BufferedWriter keeps the first error itself.
//
// Private: never included by a public header (a build rule checks).
#pragma once

#include "little_endian.hpp"

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/transaction.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

namespace blockwire::detail {

template <class S>
concept ByteSink = requires(S& s, std::span<const std::byte> bytes, std::span<const std::byte, 4> four) {
  { s.write(bytes) } -> std::same_as<void>;
  { s.write(four) } -> std::same_as<void>;
};

// Counts what would be written and writes nothing: serialized_size runs the
// same encoders as encode_*, so the two cannot disagree.
class SizeCounter {
 public:
  template <std::size_t K>
  void write(std::span<const std::byte, K> bytes) noexcept { size_ += bytes.size(); }
  std::size_t size() const noexcept { return size_; }

 private:
  std::size_t size_ = 0;
};

template <std::integral T>
struct encode_int_fn {
  void operator()(ByteSink auto& w, T v) const { w.write(std::span<const std::byte, sizeof(T)>(to_le(v))); }
};
inline constexpr encode_int_fn<std::uint8_t> encode_u8;
inline constexpr encode_int_fn<std::uint16_t> encode_u16;
inline constexpr encode_int_fn<std::uint32_t> encode_u32;
inline constexpr encode_int_fn<std::int32_t> encode_i32;
inline constexpr encode_int_fn<std::uint64_t> encode_u64;
inline constexpr encode_int_fn<std::int64_t> encode_i64;

// Bitcoin's CompactSize: 1, 3, 5 or 9 bytes.
inline constexpr struct {
  void operator()(ByteSink auto& w, std::uint64_t n) const {
    if (n < 0xfd) {
      encode_u8(w, static_cast<std::uint8_t>(n));
    } else if (n <= 0xffff) {
      encode_u8(w, 0xfd);
      encode_u16(w, static_cast<std::uint16_t>(n));
    } else if (n <= 0xffffffff) {
      encode_u8(w, 0xfe);
      encode_u32(w, static_cast<std::uint32_t>(n));
    } else {
      encode_u8(w, 0xff);
      encode_u64(w, n);
    }
  }
} encode_compact_size;

inline constexpr struct {
  void operator()(ByteSink auto& w, const Hash256& h) const { w.write(h.bytes()); }
} encode_hash;

// A length-prefixed byte string (a script, a witness item).
inline constexpr struct {
  void operator()(ByteSink auto& w, std::span<const std::byte> bytes) const {
    encode_compact_size(w, bytes.size());
    w.write(bytes);
  }
} encode_var_bytes;

inline constexpr struct {
  void operator()(ByteSink auto& w, const OutPoint& p) const {
    encode_hash(w, p.txid);
    encode_u32(w, p.index);
  }
} encode_outpoint;

inline constexpr struct {
  void operator()(ByteSink auto& w, const Transaction& tx, const TxIn& in) const {
    encode_outpoint(w, in.prevout);
    encode_var_bytes(w, tx.script_sig(in));
    encode_u32(w, in.sequence);
  }
} encode_txin;

inline constexpr struct {
  void operator()(ByteSink auto& w, const Transaction& tx, const TxOut& out) const {
    encode_i64(w, out.value);
    encode_var_bytes(w, tx.script_pubkey(out));
  }
} encode_txout;

inline constexpr struct {
  void operator()(ByteSink auto& w, const Transaction& tx, const TxIn& in) const {
    const auto stack = tx.witness(in);
    encode_compact_size(w, stack.size());
    for (const ByteRange item : stack) encode_var_bytes(w, tx.bytes(item));
  }
} encode_witness_stack;

// BIP144: marker 0x00 and flag 0x01 before the inputs, the witness stacks
// after the outputs, when there is witness data and the mode allows it.
inline constexpr struct {
  void operator()(ByteSink auto& w, const Transaction& tx, witness mode) const {
    const bool segwit = mode == witness::allow && tx.has_witness();
    encode_u32(w, tx.version);
    if (segwit) {
      encode_u8(w, 0x00);  // marker: what an old parser reads as "no inputs"
      encode_u8(w, 0x01);  // flag: witness stacks follow the outputs
    }
    encode_compact_size(w, tx.inputs.size());
    for (const TxIn& in : tx.inputs) encode_txin(w, tx, in);
    encode_compact_size(w, tx.outputs.size());
    for (const TxOut& out : tx.outputs) encode_txout(w, tx, out);
    if (segwit) {
      for (const TxIn& in : tx.inputs) encode_witness_stack(w, tx, in);
    }
    encode_u32(w, tx.lock_time);
  }
} encode_tx;

inline constexpr struct {
  void operator()(ByteSink auto& w, const BlockHeader& h) const {
    encode_i32(w, h.version);
    encode_hash(w, h.prev_block);
    encode_hash(w, h.merkle_root);
    encode_u32(w, h.time);
    encode_u32(w, h.bits);
    encode_u32(w, h.nonce);
  }
} encode_block_header;

inline constexpr struct {
  void operator()(ByteSink auto& w, const Block& b, witness mode) const {
    encode_block_header(w, b.header);
    encode_compact_size(w, b.transactions.size());
    for (const Transaction& tx : b.transactions) encode_tx(w, tx, mode);
  }
} encode_full_block;

}  // namespace blockwire::detail
