// The decoders of blocks, headers and transactions: one line per wire
// field, written with the public wire toolkit (<blockwire/codec/wire.hpp>),
// which checks every CompactSize and bounds every reservation by the bytes
// present (see decode_range). A span and a stream of the same bytes
// therefore fail with the same error at the same offset. Each mirrors the
// public entry point of the same name.
//
// Private: never included by a public header or another library (tests
// check both).
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/decode_error.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/codec/wire.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace blockwire::detail {

using namespace blockwire::wire;

// The fewest bytes one item can take on the wire.
inline constexpr std::uint64_t min_txin_size = 32 + 4 + 1 + 4;
inline constexpr std::uint64_t min_txout_size = 8 + 1;
inline constexpr std::uint64_t min_witness_item_size = 1;
inline constexpr std::uint64_t min_tx_size = 4 + 1 + 1 + 4;

// The decoders fill a TransactionBuilder, the scratch space a Transaction
// is then built from at its exact size (see decode_block).

// A length-prefixed byte string, appended to the transaction's payload.
inline constexpr struct {
  void operator()(DecodingContext& ctx, ByteRange& range, TransactionBuilder& tx) const {
    const std::uint64_t n = decode_compact_size(ctx);
    if (tx.payload.size() + n > UINT32_MAX) {  // ByteRange offsets are 32-bit (a stream could get there)
      ctx.fail(decode_errc::size_too_large);
      return;
    }
    const auto offset = static_cast<std::uint32_t>(tx.payload.size());
    ctx.read_append(tx.payload, n);
    range = {offset, static_cast<std::uint32_t>(tx.payload.size() - offset)};
  }
} decode_payload_bytes;

inline constexpr struct {
  void operator()(DecodingContext& ctx, OutPoint& p) const {
    decode_hash(ctx, p.txid);
    p.index = decode_u32(ctx);
  }
} decode_outpoint;

inline constexpr struct {
  void operator()(DecodingContext& ctx, TxIn& in, TransactionBuilder& tx) const {
    decode_outpoint(ctx, in.prevout);
    decode_payload_bytes(ctx, in.script_sig, tx);
    in.sequence = decode_u32(ctx);
  }
} decode_txin;

inline constexpr struct {
  void operator()(DecodingContext& ctx, TxOut& out, TransactionBuilder& tx) const {
    out.value = decode_i64(ctx);
    decode_payload_bytes(ctx, out.script_pubkey, tx);
  }
} decode_txout;

inline constexpr struct {
  void operator()(DecodingContext& ctx, TxIn& in, TransactionBuilder& tx) const {
    in.witness_begin = static_cast<std::uint32_t>(tx.witness_items.size());
    decode_range(ctx, tx.witness_items, min_witness_item_size, decode_payload_bytes, tx);
    // Counts are 32-bit like offsets: 128 stacks of 2^25 empty items (a
    // stream of 4 GB could hold them) would overflow the transaction's.
    if (tx.witness_items.size() > UINT32_MAX) {
      ctx.fail(decode_errc::size_too_large);
      return;
    }
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
  void operator()(DecodingContext& ctx, TransactionBuilder& tx, witness mode, TxLayout* layout = nullptr) const {
    tx.clear();
    const std::uint64_t begin = ctx.offset();
    std::uint64_t body_begin = begin + 4;
    tx.version = decode_u32(ctx);
    std::uint8_t flags = 0;
    decode_range(ctx, tx.inputs, min_txin_size, decode_txin, tx);
    if (tx.inputs.empty() && mode == witness::allow && ctx.ok()) {
      flags = decode_u8(ctx);  // the "no inputs" was the marker
      if (flags != 0) {
        body_begin = ctx.offset();  // (flag 0: the stripped form is these very bytes)
        decode_range(ctx, tx.inputs, min_txin_size, decode_txin, tx);
        decode_range(ctx, tx.outputs, min_txout_size, decode_txout, tx);
      }
    } else {
      decode_range(ctx, tx.outputs, min_txout_size, decode_txout, tx);
    }
    const std::uint64_t body_end = ctx.offset();
    if ((flags & 1) != 0 && mode == witness::allow && ctx.ok()) {
      flags ^= 1;
      for (TxIn& in : tx.inputs) decode_witness_stack(ctx, in, tx);
      if (ctx.ok() && tx.witness_items.empty()) ctx.fail(decode_errc::superfluous_witness);
    }
    if (flags != 0 && ctx.ok()) ctx.fail(decode_errc::unknown_witness_flag);
    tx.lock_time = decode_u32(ctx);
    if (layout != nullptr) *layout = {begin, body_begin, body_end, ctx.offset()};
  }
} decode_transaction;

inline constexpr struct {
  void operator()(DecodingContext& ctx, BlockHeader& h) const {
    h.version = decode_i32(ctx);
    decode_hash(ctx, h.prev_block);
    decode_hash(ctx, h.merkle_root);
    h.time = decode_u32(ctx);
    h.bits = decode_u32(ctx);
    h.nonce = decode_u32(ctx);
  }
} decode_header;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Block& b, witness mode, std::vector<TxLayout>* layouts = nullptr) const {
    decode_header(ctx, b.header);
    const std::uint64_t n = decode_compact_size(ctx);
    // A Transaction is 16 bytes against at least 10 on the wire: room for
    // as many as the bytes left could hold is at most 1.6x those bytes,
    // less than growing the vector costs at its peak (old and new: 3x).
    b.transactions.reserve(reserve_for(ctx, n, min_tx_size));
    if (layouts != nullptr) layouts->reserve(b.transactions.capacity());
    // Each transaction is decoded into one scratch builder whose parts grow
    // once and are reused, then built at its exact size: one allocation a
    // transaction.
    TransactionBuilder scratch;
    std::size_t count = 0;
    for (; count < n; ++count) {
      decode_transaction(ctx, scratch, mode, layouts != nullptr ? &layouts->emplace_back() : nullptr);
      if (!ctx.ok()) break;
      if (count < b.transactions.size()) {
        b.transactions[count] = scratch.build();
      } else {
        b.transactions.push_back(scratch.build());
      }
    }
    b.transactions.resize(count);
  }
} decode_block;

}  // namespace blockwire::detail
