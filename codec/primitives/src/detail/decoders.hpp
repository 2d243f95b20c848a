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

// The parser reads through a cursor. Over a DecodingContext it is the
// reference: every check, and the error with its byte (a stream always
// reads so).
struct ContextCursor {
  static constexpr bool in_memory = false;
  DecodingContext* context;
  DecodingContext& ctx_() const noexcept { return *context; }
  bool ok() const noexcept { return ctx_().ok(); }
  std::uint64_t offset() const noexcept { return ctx_().offset(); }
  void skip(std::uint64_t n) { ctx_().skip(n); }
  std::uint8_t u8() { return decode_u8(ctx_()); }
  std::uint64_t compact_size() { return decode_compact_size(ctx_()); }
  void fail(std::error_code what) { ctx_().fail(what); }
};

// Over bytes in memory, the position is a local the compiler keeps in a
// register: through the context's members, every field was a store and a
// load on the chain of lengths that is the parse. A failure of any kind
// only stops it: the caller parses the same bytes again through a
// ContextCursor, which finds the error and its byte. So it needs the same
// checks only to accept exactly what the reference accepts. With the
// record written through a RecordOut and one cursor over a whole block,
// BlockView::visit of block 413567 went from 42.9 to 37.5 us (and on Zen 4
// the cursor alone, over a transaction at a time, had measured the same as
// the context).
struct MemoryCursor {
  static constexpr bool in_memory = true;
  const std::byte* pos;
  const std::byte* end;
  const std::byte* first;      // a byte of the input (the transaction's or the block's first)
  std::uint64_t first_offset;  // ... and its offset in the context
  bool good = true;

  bool ok() const noexcept { return good; }
  std::uint64_t offset() const noexcept { return first_offset + static_cast<std::uint64_t>(pos - first); }
  [[gnu::always_inline]] void stop() noexcept {
    good = false;
    end = pos;  // every later read fails at once
  }
  [[gnu::always_inline]] void skip(std::uint64_t n) noexcept {
    if (n <= static_cast<std::uint64_t>(end - pos)) [[likely]] {
      pos += n;
    } else {
      stop();
    }
  }
  [[gnu::always_inline]] std::uint8_t u8() noexcept {
    if (pos < end) [[likely]]
      return std::to_integer<std::uint8_t>(*pos++);
    stop();
    return 0;
  }
  [[gnu::always_inline]] std::uint64_t compact_size() noexcept {
    if (pos < end && std::to_integer<std::uint8_t>(*pos) < 0xfd) [[likely]]
      return std::to_integer<std::uint8_t>(*pos++);
    const Wide w = wide(pos, end);
    if (w.width == 0) {
      stop();
      return 0;
    }
    pos += w.width;
    return w.value;
  }
  void fail(std::error_code) noexcept { stop(); }
  // Room for `n` items of at least `min_size` bytes each: false (stopped)
  // when the bytes left cannot hold them, which the reference then fails
  // on.
  [[gnu::always_inline]] bool room_for(std::uint64_t n, std::uint64_t min_size) noexcept {
    if (n <= static_cast<std::uint64_t>(end - pos) / min_size) [[likely]]
      return true;
    stop();
    return false;
  }

 private:
  struct Wide {
    std::uint64_t value;
    std::size_t width;  // 0: not a valid CompactSize here
  };
  // The 3-, 5- and 9-byte forms, the shortest and at most max_size, as
  // decode_compact_size checks them. Its arguments by value: the position
  // never leaves its register.
  [[gnu::noinline]] static Wide wide(const std::byte* p, const std::byte* end) noexcept {
    if (p == end) return {0, 0};
    const std::uint8_t first = std::to_integer<std::uint8_t>(*p);
    const std::size_t bytes = first == 0xfd ? 2 : first == 0xfe ? 4 : 8;
    if (static_cast<std::size_t>(end - p) < 1 + bytes) return {0, 0};
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < bytes; ++i) n |= std::uint64_t{std::to_integer<std::uint8_t>(p[1 + i])} << (8 * i);
    const std::uint64_t shortest = first == 0xfd ? 0xfd : first == 0xfe ? 0x10000 : 0x100000000;
    if (n < shortest || n > max_size) return {0, 0};
    return {n, 1 + bytes};
  }
};

// The record's room: record[used...] is written, record.size() is how far
// it may go, grown geometrically out of line (zeros written once per
// growth, not per transaction). The caller trims the vector to `used`.
[[gnu::noinline]] inline std::uint32_t* grow_record(std::vector<std::uint32_t>& record, std::size_t used, std::uint64_t more) {
  const std::size_t wanted = used + static_cast<std::size_t>(more);
  record.resize(wanted > 2 * record.size() + 64 ? wanted : 2 * record.size() + 64);
  return record.data();
}

// Where the parser writes a record: a pointer into a vector whose size is
// its room. Locals whose addresses never leave the parser stay in
// registers (a push_back's end pointer goes through memory, on the chain
// of loads that is the parse).
struct RecordOut {
  std::vector<std::uint32_t>* record;
  std::uint32_t* base;
  std::uint32_t* out;
  std::uint32_t* limit;

  RecordOut(std::vector<std::uint32_t>& r, std::size_t used) noexcept
      : record(&r), base(r.data()), out(r.data() + used), limit(r.data() + r.size()) {}
  std::size_t used() const noexcept { return static_cast<std::size_t>(out - base); }
  [[gnu::always_inline]] void room(std::uint64_t n) {
    if (static_cast<std::uint64_t>(limit - out) < n) [[unlikely]] {
      const std::size_t at = used();
      base = grow_record(*record, at, n);
      out = base + at;
      limit = base + record->size();
    }
  }
};

// One transaction, Bitcoin Core's UnserializeTransaction step for step,
// written through `rec` (see tx_record): its begin (the cursor's offset),
// its counts, then the offset of each input, output and witness stack from
// its first byte. False (the cursor stopped or failed) on failure.
template <class Cursor>
[[gnu::always_inline]] inline bool parse_transaction_with(Cursor& c, RecordOut& rec, witness mode) {
  const std::size_t at = rec.used();
  rec.room(tx_record::fields);
  rec.out += tx_record::fields;
  const std::uint64_t begin = c.offset();
  // Offsets are 32 bits: a longer transaction fails at its end (from a
  // stream, the capture stops it at 4 GiB: see decode_transaction).
  const auto here = [&]() __attribute__((always_inline)) { return static_cast<std::uint32_t>(c.offset() - begin); };
  // Room for a list's offsets: in memory, for the whole list up front once
  // the bytes left can hold it (else the reference fails on it); from the
  // context, an item at a time, so that a count read from a stream never
  // reserves what its bytes have not shown.
  const auto list = [&](std::uint64_t n, std::uint64_t min_size) __attribute__((always_inline)) {
    if constexpr (Cursor::in_memory) {
      if (c.room_for(n, min_size)) rec.room(n);
    }
  };
  const auto item = [&]() __attribute__((always_inline)) {
    if constexpr (!Cursor::in_memory) rec.room(1);
    *rec.out++ = here();
  };
  const auto inputs = [&]() __attribute__((always_inline)) {
    const std::uint64_t n = c.compact_size();
    list(n, 32 + 4 + 1 + 4);
    for (std::uint64_t i = 0; i < n && c.ok(); ++i) {
      item();
      c.skip(32 + 4);            // prevout
      c.skip(c.compact_size());  // script_sig
      c.skip(4);                 // sequence
    }
    return n;
  };
  const auto outputs = [&]() __attribute__((always_inline)) {
    const std::uint64_t n = c.compact_size();
    list(n, 8 + 1);
    for (std::uint64_t i = 0; i < n && c.ok(); ++i) {
      item();
      c.skip(8);                 // value
      c.skip(c.compact_size());  // script_pubkey
    }
    return n;
  };
  c.skip(4);  // version
  std::uint64_t n_in = inputs();
  std::uint64_t n_out = 0;
  std::uint8_t flags = 0;
  if (n_in == 0 && mode == witness::allow && c.ok()) {
    flags = c.u8();  // the "no inputs" was the marker
    if (flags != 0) {
      n_in = inputs();
      n_out = outputs();
    }
  } else {
    n_out = outputs();
  }
  bool segwit = false;
  if ((flags & 1) != 0 && mode == witness::allow && c.ok()) {
    flags ^= 1;
    segwit = true;
    bool any_item = false;
    list(n_in, 1);
    for (std::uint64_t i = 0; i < n_in && c.ok(); ++i) {
      item();
      const std::uint64_t items = c.compact_size();
      any_item = any_item || items != 0;
      for (std::uint64_t k = 0; k < items && c.ok(); ++k) c.skip(c.compact_size());
    }
    if (c.ok() && !any_item) c.fail(codec::errc::superfluous_witness);
  }
  if (flags != 0 && c.ok()) c.fail(codec::errc::unknown_witness_flag);
  c.skip(4);  // lock time
  if (c.ok() && c.offset() - begin > UINT32_MAX) c.fail(codec::errc::size_too_large);
  std::uint32_t* r = rec.base + at;
  r[tx_record::begin] = static_cast<std::uint32_t>(begin);
  r[tx_record::inputs] = static_cast<std::uint32_t>(n_in) | (segwit ? tx_record::segwit_bit : 0);
  r[tx_record::outputs] = static_cast<std::uint32_t>(n_out);
  return c.ok();
}

// One transaction from the context, its record written to `record` from
// `used` on; record.size() is room, kept from one call to the next (the
// caller trims). `used` moves past the record. On failure the context
// holds the error. From memory the fast cursor parses first, and only a
// failure is parsed again, through the context, for its error and byte.
inline void parse_transaction(DecodingContext& ctx, std::vector<std::uint32_t>& record, std::size_t& used, witness mode) {
  if (const std::byte* first = ctx.position(); first != nullptr && ctx.ok()) {
    MemoryCursor c{first, first + ctx.remaining_bound(), first, ctx.offset()};
    RecordOut out(record, used);
    if (parse_transaction_with(c, out, mode)) [[likely]] {
      used = out.used();
      ctx.skip(static_cast<std::uint64_t>(c.pos - first));
      return;
    }
  }
  ContextCursor c{&ctx};
  RecordOut out(record, used);
  parse_transaction_with(c, out, mode);
  used = out.used();
}

// The same, appended to `record` (its size is what it holds).
inline void parse_transaction(DecodingContext& ctx, std::vector<std::uint32_t>& record, witness mode) {
  std::size_t used = record.size();
  parse_transaction(ctx, record, used, mode);
  record.resize(used);
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
  std::size_t used = 0;  // scratch.record's size is room kept from one transaction to the next
  const auto record = [&] { return std::span<const std::uint32_t>(scratch.record).first(used); };
  if (const std::byte* first = ctx.position(); first != nullptr) {
    parse_transaction(ctx, scratch.record, used, mode);
    if (ctx.ok()) out = TransactionAccess::make(record(), {first, ctx.position()});
  } else {
    // Ended whatever happens: an allocation failure mid-parse must not
    // leave the context appending to a buffer the caller may free.
    struct Capture {
      DecodingContext& ctx;
      ~Capture() { ctx.cancel_capture(); }
    } capture{ctx};
    ctx.begin_capture(scratch.bytes, UINT32_MAX, codec::errc::size_too_large);  // never more than the offsets can say
    parse_transaction(ctx, scratch.record, used, mode);
    const std::size_t size = ctx.end_capture();
    if (ctx.ok()) out = TransactionAccess::make(record(), std::span<const std::byte>(scratch.bytes).first(size));
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
