// Bitcoin Core's VARINT (serialize.h), as a wire-toolkit field: base 128,
// most significant group first, the high bit set on every byte but the
// last, and one subtracted from each group before a continuation (so that
// every number has exactly one encoding). Not CompactSize, not LEB128.
// Undo data and the chainstate use it.
#pragma once

#include <blockwire/codec/wire.hpp>
#include <blockwire/undo/error.hpp>

#include <array>
#include <cstdint>

namespace blockwire::undo {

inline constexpr struct {
  void operator()(wire::ByteSink auto& w, std::uint64_t n) const {
    std::array<std::byte, 10> groups;  // at most 10 for 64 bits, written backwards
    std::size_t len = 0;
    for (;;) {
      groups[len] = static_cast<std::byte>((n & 0x7f) | (len != 0 ? 0x80 : 0x00));
      if (n <= 0x7f) break;
      n = (n >> 7) - 1;
      ++len;
    }
    std::array<std::byte, 10> out;
    for (std::size_t i = 0; i <= len; ++i) out[i] = groups[len - i];
    w.write(std::span<const std::byte>(out.data(), len + 1));
  }
} encode_varint;

// A VARINT of at most `max` (a 32-bit field takes 0xffffffff); past it, or
// past 64 bits, undo::errc::varint_overflow (the offset: just past the byte
// that overflows, where decoding stopped, as for every decoding error).
inline constexpr struct {
  std::uint64_t operator()(DecodingContext& ctx, std::uint64_t max = ~std::uint64_t{0}) const {
    std::uint64_t n = 0;
    for (;;) {
      const std::uint8_t b = wire::decode_u8(ctx);
      if (!ctx.ok()) return 0;
      if (n > (max >> 7)) {
        ctx.fail(undo::errc::varint_overflow);
        return 0;
      }
      n = (n << 7) | (b & 0x7f);
      if ((b & 0x80) == 0) return n;
      if (n == max) {
        ctx.fail(undo::errc::varint_overflow);
        return 0;
      }
      ++n;
    }
  }
} decode_varint;

}  // namespace blockwire::undo
