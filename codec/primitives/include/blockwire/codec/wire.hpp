// The wire toolkit: the field encoders and decoders every blockwire format
// is written with (blocks, transactions, block files, and the formats that
// follow), public so that you write yours the same way. See docs/api.md,
// "Your own format".
//
// Opt-in: <blockwire/codec.hpp> does not include it, so a program that only
// calls the compiled entry points compiles none of these templates.
//
// Encoders are stateless function objects, one call per wire field, on any
// ByteSink: a BufferedWriter (errors are kept inside it and reported by its
// flush()), or a SizeCounter (the size without the bytes). Decoders read one
// field per call from a DecodingContext, which keeps the first failure with
// its byte offset and yields zeros after it: decode a whole structure, check
// once. Nothing here allocates what a length prefix merely claims.
#pragma once

#include <blockwire/codec/amount.hpp>
#include <blockwire/codec/decode_error.hpp>
#include <blockwire/codec/ids.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/io/little_endian.hpp>

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <utility>

namespace blockwire::wire {

// Integers and the wire's little-endian bytes (<blockwire/io/little_endian.hpp>)
using blockwire::byteswap;
using blockwire::from_le;
using blockwire::load_le;
using blockwire::to_le;

// Sinks ----------------------------------------------------------------------

// What encoders write to. write() returns nothing: the sink keeps errors.
template <class S>
concept ByteSink = requires(S& s, std::span<const std::byte> bytes, std::span<const std::byte, 4> four) {
  { s.write(bytes) } -> std::same_as<void>;
  { s.write(four) } -> std::same_as<void>;
};

// Counts what would be written and writes nothing: a size computed by the
// very encoders that write, so the two cannot disagree.
class SizeCounter {
 public:
  template <std::size_t K>
  void write(std::span<const std::byte, K> bytes) noexcept {
    size_ += bytes.size();
  }
  std::size_t size() const noexcept { return size_; }

 private:
  std::size_t size_ = 0;
};

// Encoders ---------------------------------------------------------------------

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

// An output's value: 8 bytes, any signed number (whether it is money is a
// check, not the wire's).
inline constexpr struct {
  void operator()(ByteSink auto& w, Amount value) const { encode_i64(w, value.to_sat()); }
} encode_amount;

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
  template <class Kind>
  void operator()(ByteSink auto& w, const HashId<Kind>& h) const {
    w.write(h.bytes());
  }
} encode_hash;

// A length-prefixed byte string (a script, a witness item).
inline constexpr struct {
  void operator()(ByteSink auto& w, std::span<const std::byte> bytes) const {
    encode_compact_size(w, bytes.size());
    w.write(bytes);
  }
} encode_bytes;

// A counted sequence: the CompactSize count, then encode_item(w, item,
// extra...) for each item.
inline constexpr struct {
  template <class Range, class EncodeItem, class... Extra>
  void operator()(ByteSink auto& w, const Range& items, const EncodeItem& encode_item, const Extra&... extra) const {
    encode_compact_size(w, std::size(items));
    for (const auto& item : items) encode_item(w, item, extra...);
  }
} encode_range;

// Decoders ---------------------------------------------------------------------

// Bitcoin Core's MAX_SIZE: no CompactSize is larger.
inline constexpr std::uint64_t max_size = 0x02000000;

// Reserving for a stream: never more than this many items up front; the
// container then grows with what actually decodes.
inline constexpr std::uint64_t stream_reserve_limit = 1024;

// decode_u32(ctx) returns the value; decode_u32(ctx, field) stores it, the
// shape decode_range takes for an item.
template <std::integral T>
struct decode_int_fn {
  T operator()(DecodingContext& ctx) const {
    std::array<std::byte, sizeof(T)> bytes;
    ctx.read(std::span<std::byte, sizeof(T)>(bytes));
    return from_le<T>(bytes);
  }
  void operator()(DecodingContext& ctx, T& out) const { out = (*this)(ctx); }
};
inline constexpr decode_int_fn<std::uint8_t> decode_u8;
inline constexpr decode_int_fn<std::uint16_t> decode_u16;
inline constexpr decode_int_fn<std::uint32_t> decode_u32;
inline constexpr decode_int_fn<std::int32_t> decode_i32;
inline constexpr decode_int_fn<std::uint64_t> decode_u64;
inline constexpr decode_int_fn<std::int64_t> decode_i64;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Amount& value) const { value = Amount::from_sat(decode_i64(ctx)); }
} decode_amount;

// CompactSize, checked as Bitcoin Core checks it: the shortest form, then
// at most max_size, in every branch. A failure yields 0. The one-byte form
// (nearly every count and length) is inline; the wider ones are a call.
inline constexpr struct {
  std::uint64_t operator()(DecodingContext& ctx) const {
    const std::uint8_t first = decode_u8(ctx);
    if (first < 0xfd) [[likely]]
      return first;  // 0 after a failure, too
    return wide(ctx, first);
  }

 private:
  [[gnu::noinline]] static std::uint64_t wide(DecodingContext& ctx, std::uint8_t first) {
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
      ctx.fail(codec::errc::non_canonical_size);
      return 0;
    }
    if (n > max_size) {
      ctx.fail(codec::errc::size_too_large);
      return 0;
    }
    return n;
  }
} decode_compact_size;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Hash256& h) const { ctx.read(h.bytes()); }
  template <class Kind>
  void operator()(DecodingContext& ctx, HashId<Kind>& h) const {
    Hash256 raw;
    ctx.read(raw.bytes());
    h = HashId<Kind>::from_raw_hash(raw);
  }
} decode_hash;

// How many of `n` items, each at least `min_item_size` bytes on the wire, to
// reserve room for: no more than the bytes left can hold (a span), or a
// bounded batch (a stream). Past that a container grows only as items
// actually decode, so memory follows the bytes present, never the count.
// (A min_item_size of 0 counts as 1.)
inline std::size_t reserve_for(const DecodingContext& ctx, std::uint64_t n, std::uint64_t min_item_size) {
  const std::uint64_t bound = ctx.remaining_bound();
  const std::uint64_t per_item = min_item_size != 0 ? min_item_size : 1;
  const std::uint64_t fits = bound == DecodingContext::unbounded ? stream_reserve_limit : bound / per_item;
  return static_cast<std::size_t>(n < fits ? n : fits);
}

// A length-prefixed byte string, appended to `out` (a byte vector). From a
// stream the bytes arrive in bounded chunks, never allocated up front.
inline constexpr struct {
  template <class Bytes>
  void operator()(DecodingContext& ctx, Bytes& out) const {
    ctx.read_append(out, decode_compact_size(ctx));
  }
} decode_bytes;

namespace detail {

// `n` items, decoded into new items appended to `out`: reserved for no more
// bytes of items than bytes are left, growing geometrically.
template <class Container, class DecodeItem, class... Extra>
void decode_items(DecodingContext& ctx, std::uint64_t n, Container& out, std::uint64_t min_item_size, const DecodeItem& decode_item,
                  Extra&... extra) {
  constexpr std::uint64_t item_bytes = sizeof(typename Container::value_type);
  const std::size_t wanted = out.size() + reserve_for(ctx, n, min_item_size > item_bytes ? min_item_size : item_bytes);
  // Geometric growth: a container appended to again and again (the
  // witness items of input after input) stays linear.
  if (wanted > out.capacity()) out.reserve(wanted > 2 * out.capacity() ? wanted : 2 * out.capacity());
  for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) {
    using Item = typename Container::value_type;
    if constexpr (std::is_default_constructible_v<Item>) {
      decode_item(ctx, out.emplace_back(), extra...);
    } else {
      decode_item(ctx, out.emplace_back(Item::all_zeros()), extra...);  // an id: no default, zeros until read
    }
  }
}

}  // namespace detail

// A counted sequence: the CompactSize count, then decode_item(ctx, item,
// extra...) into each new item appended to `out` (never cleared: clear it
// first where that is meant). `min_item_size`, the fewest bytes one item
// takes on the wire, bounds the reservation (see reserve_for), and so does
// the item's own size: room is never reserved for more bytes of items than
// bytes are left in the input (an 8-byte item of 1 wire byte would
// otherwise reserve 8 bytes of heap per input byte). Stops at the first
// failure.
inline constexpr struct {
  template <class Container, class DecodeItem, class... Extra>
  void operator()(DecodingContext& ctx, Container& out, std::uint64_t min_item_size, const DecodeItem& decode_item, Extra&... extra) const {
    detail::decode_items(ctx, decode_compact_size(ctx), out, min_item_size, decode_item, extra...);
  }
} decode_range;

// The same with a format's own limit: a count over `max` fails with
// `too_many` before anything is reserved (P2P messages' inventories,
// locators, headers).
inline constexpr struct {
  template <class Container, class DecodeItem, class... Extra>
  void operator()(DecodingContext& ctx, Container& out, std::uint64_t max, std::error_code too_many, std::uint64_t min_item_size,
                  const DecodeItem& decode_item, Extra&... extra) const {
    const std::uint64_t n = decode_compact_size(ctx);
    if (n > max) return ctx.fail(too_many);
    detail::decode_items(ctx, n, out, min_item_size, decode_item, extra...);
  }
} decode_range_at_most;

// For input that must hold exactly one object (a span): bytes left after
// it are an error. Returns the first failure, or success.
inline result<void> finish_exact(DecodingContext& ctx, std::uint64_t input_size) {
  if (ctx.ok() && ctx.offset() != input_size) ctx.fail(codec::errc::trailing_bytes);
  if (!ctx.ok()) return ctx.failure();
  return success();
}

}  // namespace blockwire::wire
