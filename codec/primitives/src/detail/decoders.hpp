// The parser of transactions, and the decoders built on it: one description
// of the wire layout, written with the public wire toolkit
// (<blockwire/codec/wire.hpp>), which checks every CompactSize. The views
// keep the record it makes over bytes in memory; the decoders keep the same
// record and a copy of the transaction's bytes in one allocation
// (Transaction). A span and a stream of the same bytes fail with the same
// error at the same offset.
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
#include <span>
#include <vector>

namespace blockwire::detail {

using namespace blockwire::wire;

// The fewest bytes one transaction can take on the wire.
inline constexpr std::uint64_t min_tx_size = 4 + 1 + 1 + 4;

// One transaction, Bitcoin Core's UnserializeTransaction step for step,
// appended to `record` (see tx_record): its begin (the context's offset),
// its counts, then the offset of each input, output and witness stack from
// its first byte. On failure the context holds the error.
inline void parse_transaction(DecodingContext& ctx, std::vector<std::uint32_t>& record, witness mode) {
  const std::size_t rec = record.size();
  record.resize(rec + tx_record::fields);
  const std::uint64_t begin = ctx.offset();
  // Offsets are 32 bits: a longer transaction fails at its end (from a
  // stream, the capture stops it at 4 GiB: see decode_transaction).
  const auto here = [&]() __attribute__((always_inline)) { return static_cast<std::uint32_t>(ctx.offset() - begin); };
  // (Inlined: called twice, the compiler would rather not, and a call per
  // transaction costs the view's pass half again.)
  const auto inputs = [&]() __attribute__((always_inline)) {
    const std::uint64_t n = decode_compact_size(ctx);
    for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) {
      record.push_back(here());
      ctx.skip(32 + 4);                    // prevout
      ctx.skip(decode_compact_size(ctx));  // script_sig
      ctx.skip(4);                         // sequence
    }
    return n;
  };
  const auto outputs = [&]() __attribute__((always_inline)) {
    const std::uint64_t n = decode_compact_size(ctx);
    for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) {
      record.push_back(here());
      ctx.skip(8);                         // value
      ctx.skip(decode_compact_size(ctx));  // script_pubkey
    }
    return n;
  };
  ctx.skip(4);  // version
  std::uint64_t n_in = inputs();
  std::uint64_t n_out = 0;
  std::uint8_t flags = 0;
  if (n_in == 0 && mode == witness::allow && ctx.ok()) {
    flags = decode_u8(ctx);  // the "no inputs" was the marker
    if (flags != 0) {
      n_in = inputs();
      n_out = outputs();
    }
  } else {
    n_out = outputs();
  }
  bool segwit = false;
  if ((flags & 1) != 0 && mode == witness::allow && ctx.ok()) {
    flags ^= 1;
    segwit = true;
    bool any_item = false;
    for (std::uint64_t i = 0; i < n_in && ctx.ok(); ++i) {
      record.push_back(here());
      const std::uint64_t items = decode_compact_size(ctx);
      any_item = any_item || items != 0;
      for (std::uint64_t k = 0; k < items && ctx.ok(); ++k) ctx.skip(decode_compact_size(ctx));
    }
    if (ctx.ok() && !any_item) ctx.fail(codec::errc::superfluous_witness);
  }
  if (flags != 0 && ctx.ok()) ctx.fail(codec::errc::unknown_witness_flag);
  ctx.skip(4);  // lock time
  if (ctx.ok() && ctx.offset() - begin > UINT32_MAX) ctx.fail(codec::errc::size_too_large);
  std::uint32_t* r = record.data() + rec;
  r[tx_record::begin] = static_cast<std::uint32_t>(begin);
  r[tx_record::inputs] = static_cast<std::uint32_t>(n_in) | (segwit ? tx_record::segwit_bit : 0);
  r[tx_record::outputs] = static_cast<std::uint32_t>(n_out);
}

// Makes Transactions: the library's parser and builder are its only source.
struct TransactionAccess {
  // A transaction of `bytes`, read as `record` says (a record the parser
  // made of these very bytes).
  static Transaction make(std::span<const std::uint32_t> record, std::span<const std::byte> bytes);
};

// One transaction from the context, parsed in place and copied once: from
// memory as one run at the end, from a stream in runs as its window moves.
inline void decode_transaction(DecodingContext& ctx, Transaction& out, TransactionScratch& scratch, witness mode) {
  scratch.record.clear();
  if (const std::byte* first = ctx.position(); first != nullptr) {
    parse_transaction(ctx, scratch.record, mode);
    if (ctx.ok()) out = TransactionAccess::make(scratch.record, {first, ctx.position()});
  } else {
    // Ended whatever happens: an allocation failure mid-parse must not
    // leave the context appending to a buffer the caller may free.
    struct Capture {
      DecodingContext& ctx;
      ~Capture() { ctx.cancel_capture(); }
    } capture{ctx};
    ctx.begin_capture(scratch.bytes, UINT32_MAX, codec::errc::size_too_large);  // never more than the offsets can say
    parse_transaction(ctx, scratch.record, mode);
    const std::size_t size = ctx.end_capture();
    if (ctx.ok()) out = TransactionAccess::make(scratch.record, std::span<const std::byte>(scratch.bytes).first(size));
  }
}

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
  void operator()(DecodingContext& ctx, Block& b, witness mode) const {
    decode_header(ctx, b.header);
    const std::uint64_t n = decode_compact_size(ctx);
    // A Transaction is 16 bytes against at least 10 on the wire: room for
    // as many as the bytes left could hold is at most 1.6x those bytes,
    // less than growing the vector costs at its peak (old and new: 3x).
    b.transactions.reserve(reserve_for(ctx, n, min_tx_size));
    TransactionScratch scratch;  // reused: one allocation a transaction
    std::size_t count = 0;
    for (; count < n; ++count) {
      if (count < b.transactions.size()) {
        blockwire::detail::decode_transaction(ctx, b.transactions[count], scratch, mode);
      } else {
        blockwire::detail::decode_transaction(ctx, b.transactions.emplace_back(), scratch, mode);
      }
      if (!ctx.ok()) break;
    }
    b.transactions.resize(count);
  }
} decode_block;

}  // namespace blockwire::detail
