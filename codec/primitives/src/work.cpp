// Target and Work: 256-bit arithmetic on four 64-bit limbs, enough for
// proof of work (a header's target, its work, a chain's sum).
#include <blockwire/codec/work.hpp>
#include <blockwire/io/little_endian.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace blockwire {

namespace {

// 256-bit unsigned arithmetic on four 64-bit limbs, least significant first.
using U256 = std::array<std::uint64_t, 4>;

U256 to_u256(const Hash256& h) noexcept {
  U256 v{};
  for (std::size_t i = 0; i < 32; ++i) v[i / 8] |= std::uint64_t{std::to_integer<std::uint8_t>(h.bytes()[i])} << (8 * (i % 8));
  return v;
}

Hash256 from_u256(const U256& v) noexcept {
  Hash256 h;
  for (std::size_t i = 0; i < 32; ++i) h.bytes()[i] = static_cast<std::byte>(v[i / 8] >> (8 * (i % 8)));
  return h;
}

bool less(const U256& a, const U256& b) noexcept {
  for (std::size_t i = 4; i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i];
  }
  return false;
}

U256 add(const U256& a, const U256& b) noexcept {
  U256 r{};
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint64_t partial = a[i] + b[i];
    const std::uint64_t sum = partial + carry;
    carry = (partial < a[i] || sum < partial) ? 1 : 0;
    r[i] = sum;
  }
  return r;
}

U256 subtract(const U256& a, const U256& b) noexcept {  // a >= b
  U256 r{};
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint64_t d = a[i] - b[i] - borrow;
    borrow = (a[i] < b[i] || (a[i] == b[i] && borrow != 0)) ? 1 : 0;
    r[i] = d;
  }
  return r;
}

// Long division, a bit at a time: 256 steps, fine for one header.
U256 divide(const U256& n, const U256& d) noexcept {
  U256 q{};
  U256 r{};
  for (int bit = 255; bit >= 0; --bit) {
    for (std::size_t i = 4; i-- > 1;) r[i] = (r[i] << 1) | (r[i - 1] >> 63);
    r[0] = (r[0] << 1) | ((n[static_cast<std::size_t>(bit) / 64] >> (bit % 64)) & 1);
    if (!less(r, d)) {
      r = subtract(r, d);
      q[static_cast<std::size_t>(bit) / 64] |= std::uint64_t{1} << (bit % 64);
    }
  }
  return q;
}

}  // namespace

std::strong_ordering detail::compare_numbers(const Hash256& a, const Hash256& b) noexcept {
  for (std::size_t i = 32; i-- > 0;) {
    if (a.bytes()[i] != b.bytes()[i]) return a.bytes()[i] < b.bytes()[i] ? std::strong_ordering::less : std::strong_ordering::greater;
  }
  return std::strong_ordering::equal;
}

std::optional<Target> Target::from_bits(std::uint32_t bits) noexcept {
  const unsigned exponent = bits >> 24;
  std::uint32_t mantissa = bits & 0x007fffff;
  const bool negative = mantissa != 0 && (bits & 0x00800000) != 0;
  const bool overflow = mantissa != 0 && (exponent > 34 || (mantissa > 0xff && exponent > 33) || (mantissa > 0xffff && exponent > 32));
  if (negative || overflow || mantissa == 0) return std::nullopt;
  Hash256 target;
  const auto bytes = target.bytes();
  if (exponent <= 3) {
    mantissa >>= 8 * (3 - exponent);
    for (unsigned i = 0; i < 3; ++i) bytes[i] = static_cast<std::byte>(mantissa >> (8 * i));
  } else {
    for (unsigned i = 0; i < 3; ++i) {
      const unsigned at = exponent - 3 + i;
      if (at < 32) bytes[at] = static_cast<std::byte>(mantissa >> (8 * i));
    }
  }
  if (target.is_zero()) return std::nullopt;
  return Target(target);
}

Work Work::of_bits(std::uint32_t bits) noexcept {
  const auto target = Target::from_bits(bits);
  if (!target) return Work{};
  // 2^256 / (target + 1) does not fit in 256 bits as written; Core's
  // equivalent: (~target / (target + 1)) + 1.
  const U256 t = to_u256(target->number());
  const U256 not_t{~t[0], ~t[1], ~t[2], ~t[3]};
  const U256 t_plus_one = add(t, U256{1, 0, 0, 0});
  return Work(from_u256(add(divide(not_t, t_plus_one), U256{1, 0, 0, 0})));
}

// In place, a 64-bit limb at a time: a chain's work is summed block by
// block (BlockIndex), so no conversion to and from U256 per addition.
Work& Work::operator+=(const Work& more) noexcept {
  const auto a = number_.bytes();
  const auto b = more.number_.bytes();
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < 32; i += 8) {
    const auto x = load_le<std::uint64_t>(a.data() + i);
    const std::uint64_t partial = x + load_le<std::uint64_t>(b.data() + i);
    const std::uint64_t sum = partial + carry;
    carry = (partial < x || sum < partial) ? 1 : 0;
    const auto out = to_le(sum);
    std::copy(out.begin(), out.end(), a.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return *this;
}

}  // namespace blockwire
