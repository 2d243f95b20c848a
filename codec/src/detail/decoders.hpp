// The decoders: function objects that read one wire field per line from a
// DecodingContext. The context keeps the first failure and yields zeros
// after it, so a decoder checks ok() only where a value decides what happens
// next (a count, a flag) and never trusts a count for an allocation:
//   - every CompactSize is canonical and at most MAX_SIZE (0x02000000);
//   - room is reserved for no more items than the bytes left can hold (a
//     span) or a bounded batch (a stream); containers grow past that only as
//     items actually decode, and byte strings from a stream arrive in
//     bounded chunks. A span and a stream of the same bytes therefore fail
//     with the same error at the same offset.
//
// Private: never included by a public header (a build rule checks).
#pragma once

#include "little_endian.hpp"

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/decode_error.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/decoding_context.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace blockwire::detail {

inline constexpr std::uint64_t max_size = 0x02000000;  // Bitcoin Core's MAX_SIZE

// The fewest bytes one item can take on the wire.
inline constexpr std::uint64_t min_txin_size = 32 + 4 + 1 + 4;
inline constexpr std::uint64_t min_txout_size = 8 + 1;
inline constexpr std::uint64_t min_tx_size = 4 + 1 + 1 + 4;

// Reserving for a stream: never more than this many items up front; the
// container then grows with what is actually decoded.
inline constexpr std::uint64_t stream_reserve_limit = 1024;

template <std::integral T>
struct decode_int_fn {
  T operator()(DecodingContext& ctx) const {
    std::array<std::byte, sizeof(T)> bytes;
    ctx.read(std::span<std::byte, sizeof(T)>(bytes));
    return from_le<T>(bytes);
  }
};
inline constexpr decode_int_fn<std::uint8_t> decode_u8;
inline constexpr decode_int_fn<std::uint16_t> decode_u16;
inline constexpr decode_int_fn<std::uint32_t> decode_u32;
inline constexpr decode_int_fn<std::int32_t> decode_i32;
inline constexpr decode_int_fn<std::uint64_t> decode_u64;
inline constexpr decode_int_fn<std::int64_t> decode_i64;

// CompactSize, checked as Bitcoin Core checks it: the shortest form, then
// at most MAX_SIZE, in every branch. A failure yields 0.
inline constexpr struct {
  std::uint64_t operator()(DecodingContext& ctx) const {
    const std::uint8_t first = decode_u8(ctx);
    std::uint64_t n = first;
    std::uint64_t shortest = 0;
    if (first == 0xfd) {
      n = decode_u16(ctx);
      shortest = 0xfd;
    } else if (first == 0xfe) {
      n = decode_u32(ctx);
      shortest = 0x10000;
    } else if (first == 0xff) {
      n = decode_u64(ctx);
      shortest = 0x100000000;
    }
    if (!ctx.ok()) return 0;
    if (n < shortest) {
      ctx.fail(decode_errc::non_canonical_size);
      return 0;
    }
    if (n > max_size) {
      ctx.fail(decode_errc::size_too_large);
      return 0;
    }
    return n;
  }
} decode_compact_size;

inline bool streaming(const DecodingContext& ctx) { return ctx.remaining_bound() == DecodingContext::unbounded; }

// How many of `n` items, each at least `min_item_size` bytes on the wire, to
// reserve room for: no more than the bytes left can hold (a span), or a
// bounded batch (a stream). The container grows past that only as items
// actually decode, so memory follows the bytes present, never the count.
inline std::size_t reserve_for(const DecodingContext& ctx, std::uint64_t n, std::uint64_t min_item_size) {
  return std::min(n, streaming(ctx) ? stream_reserve_limit : ctx.remaining_bound() / min_item_size);
}

// A length-prefixed byte string, appended to the transaction's payload.
inline constexpr struct {
  ByteRange operator()(DecodingContext& ctx, Transaction& tx) const {
    const std::uint64_t n = decode_compact_size(ctx);
    if (tx.payload.size() + n > UINT32_MAX) {  // ByteRange offsets are 32-bit (a stream could get there)
      ctx.fail(decode_errc::size_too_large);
      return {};
    }
    const auto offset = static_cast<std::uint32_t>(tx.payload.size());
    ctx.read_append(tx.payload, n);
    return {offset, static_cast<std::uint32_t>(tx.payload.size() - offset)};
  }
} decode_var_bytes;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Hash256& h) const { ctx.read(h.bytes()); }
} decode_hash;

inline constexpr struct {
  void operator()(DecodingContext& ctx, OutPoint& p) const {
    decode_hash(ctx, p.txid);
    p.index = decode_u32(ctx);
  }
} decode_outpoint;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Transaction& tx, TxIn& in) const {
    decode_outpoint(ctx, in.prevout);
    in.script_sig = decode_var_bytes(ctx, tx);
    in.sequence = decode_u32(ctx);
  }
} decode_txin;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Transaction& tx, TxOut& out) const {
    out.value = decode_i64(ctx);
    out.script_pubkey = decode_var_bytes(ctx, tx);
  }
} decode_txout;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Transaction& tx) const {
    const std::uint64_t n = decode_compact_size(ctx);
    tx.inputs.clear();
    tx.inputs.reserve(reserve_for(ctx, n, min_txin_size));
    for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) decode_txin(ctx, tx, tx.inputs.emplace_back());
  }
} decode_inputs;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Transaction& tx) const {
    const std::uint64_t n = decode_compact_size(ctx);
    tx.outputs.reserve(reserve_for(ctx, n, min_txout_size));
    for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) decode_txout(ctx, tx, tx.outputs.emplace_back());
  }
} decode_outputs;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Transaction& tx, TxIn& in) const {
    const std::uint64_t n = decode_compact_size(ctx);
    in.witness_begin = static_cast<std::uint32_t>(tx.witness_items.size());
    for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) tx.witness_items.push_back(decode_var_bytes(ctx, tx));
    in.witness_size = static_cast<std::uint32_t>(tx.witness_items.size() - in.witness_begin);
  }
} decode_witness_stack;

// Where a transaction's parts lie in the input, for hashing the very bytes
// that were decoded: the txid covers [begin, begin + 4) (the version),
// [body_begin, body_end) (inputs and outputs) and [end - 4, end) (the lock
// time); the wtxid covers [begin, end).
struct TxLayout {
  std::uint64_t begin = 0;
  std::uint64_t body_begin = 0;
  std::uint64_t body_end = 0;
  std::uint64_t end = 0;
};

// Bitcoin Core's UnserializeTransaction, step for step.
inline constexpr struct {
  void operator()(DecodingContext& ctx, Transaction& tx, witness mode, TxLayout* layout = nullptr) const {
    tx.outputs.clear();  // (decode_inputs clears the inputs)
    tx.payload.clear();
    tx.witness_items.clear();
    const std::uint64_t begin = ctx.offset();
    std::uint64_t body_begin = begin + 4;
    tx.version = decode_u32(ctx);
    std::uint8_t flags = 0;
    decode_inputs(ctx, tx);
    if (tx.inputs.empty() && mode == witness::allow && ctx.ok()) {
      flags = decode_u8(ctx);  // the "no inputs" was the marker
      if (flags != 0) {
        body_begin = ctx.offset();  // (flag 0: the stripped form is these very bytes)
        decode_inputs(ctx, tx);
        decode_outputs(ctx, tx);
      }
    } else {
      decode_outputs(ctx, tx);
    }
    const std::uint64_t body_end = ctx.offset();
    if ((flags & 1) != 0 && mode == witness::allow && ctx.ok()) {
      flags ^= 1;
      tx.witness_items.reserve(tx.inputs.size());
      for (TxIn& in : tx.inputs) decode_witness_stack(ctx, tx, in);
      if (ctx.ok() && !tx.has_witness()) ctx.fail(decode_errc::superfluous_witness);
    }
    if (flags != 0 && ctx.ok()) ctx.fail(decode_errc::unknown_witness_flag);
    tx.lock_time = decode_u32(ctx);
    if (layout != nullptr) *layout = {begin, body_begin, body_end, ctx.offset()};
  }
} decode_tx;

inline constexpr struct {
  void operator()(DecodingContext& ctx, BlockHeader& h) const {
    h.version = decode_i32(ctx);
    decode_hash(ctx, h.prev_block);
    decode_hash(ctx, h.merkle_root);
    h.time = decode_u32(ctx);
    h.bits = decode_u32(ctx);
    h.nonce = decode_u32(ctx);
  }
} decode_block_header;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Block& b, witness mode, std::vector<TxLayout>* layouts = nullptr) const {
    decode_block_header(ctx, b.header);
    const std::uint64_t n = decode_compact_size(ctx);
    b.transactions.reserve(reserve_for(ctx, n, min_tx_size));
    if (layouts != nullptr) layouts->reserve(b.transactions.capacity());
    // Each transaction is decoded into one scratch transaction whose buffers
    // grow once and are reused, then copied out: the copy allocates each
    // buffer at its exact size, once, instead of growing it step by step.
    // A block decoded into again reuses its transactions' buffers.
    Transaction scratch;
    std::size_t count = 0;
    for (; count < n && ctx.ok(); ++count) {
      decode_tx(ctx, scratch, mode, layouts != nullptr ? &layouts->emplace_back() : nullptr);
      if (count < b.transactions.size()) {
        b.transactions[count] = scratch;
      } else {
        b.transactions.push_back(scratch);
      }
    }
    b.transactions.resize(std::min(count, b.transactions.size()));
  }
} decode_full_block;

// For the span entry points: the input must hold exactly one object. Returns
// the first failure, or success.
inline result<void> finish_exact(DecodingContext& ctx, std::size_t input_size) {
  if (ctx.ok() && ctx.offset() != input_size) ctx.fail(decode_errc::trailing_bytes);
  if (!ctx.ok()) return ctx.failure();
  return success();
}

}  // namespace blockwire::detail
