// Target and Work: 256-bit arithmetic on four 64-bit limbs, enough for
// proof of work (a header's target, its work, a chain's sum).
#include <blockwire/codec/work.hpp>
#include <blockwire/io/little_endian.hpp>

#include <cstddef>
#include <cstdint>

namespace blockwire {

namespace {

using detail::Limbs256;

Limbs256 from_le_bytes(std::span<const std::byte, 32> bytes) noexcept {
  Limbs256 v{};
  for (std::size_t i = 0; i < 4; ++i) v[i] = load_le<std::uint64_t>(bytes.data() + 8 * i);
  return v;
}

// a + b, and whether it carried out of the top limb.
bool add(Limbs256& a, const Limbs256& b) noexcept {
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint64_t partial = a[i] + b[i];
    const std::uint64_t sum = partial + carry;
    carry = (partial < a[i] || sum < partial) ? 1 : 0;
    a[i] = sum;
  }
  return carry != 0;
}

Limbs256 subtract(const Limbs256& a, const Limbs256& b) noexcept {  // a >= b
  Limbs256 r{};
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    r[i] = a[i] - b[i] - borrow;
    borrow = (a[i] < b[i] || (a[i] == b[i] && borrow != 0)) ? 1 : 0;
  }
  return r;
}

// Long division, a bit at a time: 256 steps, fine for one header (and
// block_index keeps the last bits' work: a chain's bits change rarely).
Limbs256 divide(const Limbs256& n, const Limbs256& d) noexcept {
  Limbs256 q{};
  Limbs256 r{};
  for (int bit = 255; bit >= 0; --bit) {
    for (std::size_t i = 4; i-- > 1;) r[i] = (r[i] << 1) | (r[i - 1] >> 63);
    r[0] = (r[0] << 1) | ((n[static_cast<std::size_t>(bit) / 64] >> (bit % 64)) & 1);
    if (detail::compare_numbers(r, d) >= 0) {
      r = subtract(r, d);
      q[static_cast<std::size_t>(bit) / 64] |= std::uint64_t{1} << (bit % 64);
    }
  }
  return q;
}

}  // namespace

std::string detail::number_to_hex(const Limbs256& number) {
  Hash256 bytes;  // Hash256 prints its bytes reversed: the number's hex
  auto out = bytes.bytes();
  for (std::size_t i = 0; i < 4; ++i) {
    const auto limb = to_le(number[i]);
    std::copy(limb.begin(), limb.end(), out.begin() + static_cast<std::ptrdiff_t>(8 * i));
  }
  return bytes.to_hex();
}

std::optional<Target> Target::from_bits(std::uint32_t bits) noexcept {
  const unsigned exponent = bits >> 24;
  std::uint32_t mantissa = bits & 0x007fffff;
  const bool negative = mantissa != 0 && (bits & 0x00800000) != 0;
  const bool overflow = mantissa != 0 && (exponent > 34 || (mantissa > 0xff && exponent > 33) || (mantissa > 0xffff && exponent > 32));
  if (negative || overflow || mantissa == 0) return std::nullopt;
  // The mantissa shifted left by 8 * (exponent - 3) bits (right, when the
  // exponent is under 3); the overflow rules above keep it within 256.
  Limbs256 number{};
  if (exponent <= 3) {
    number[0] = mantissa >> (8 * (3 - exponent));
  } else {
    const unsigned shift = 8 * (exponent - 3);
    number[shift / 64] = std::uint64_t{mantissa} << (shift % 64);
    if (shift % 64 > 40 && shift / 64 < 3) number[shift / 64 + 1] = std::uint64_t{mantissa} >> (64 - shift % 64);
  }
  if (number == Limbs256{}) return std::nullopt;
  return Target(number);
}

bool Target::met_by(const BlockHash& hash) const noexcept { return detail::compare_numbers(from_le_bytes(hash.bytes()), number_) <= 0; }

std::optional<Work> Work::of_bits(std::uint32_t bits) noexcept {
  const auto target = Target::from_bits(bits);
  if (!target) return std::nullopt;
  // 2^256 / (target + 1) does not fit in 256 bits as written; Core's
  // equivalent: (~target / (target + 1)) + 1.
  const Limbs256& t = target->number_;
  const Limbs256 not_t{~t[0], ~t[1], ~t[2], ~t[3]};
  Limbs256 t_plus_one = t;
  add(t_plus_one, Limbs256{1, 0, 0, 0});  // target < 2^256 - 1: no carry
  Limbs256 work = divide(not_t, t_plus_one);
  add(work, Limbs256{1, 0, 0, 0});  // (at most 2^255: target >= 1)
  return Work(work);
}

Work& Work::operator+=(const Work& more) noexcept {
  if (add(number_, more.number_)) number_ = {~std::uint64_t{0}, ~std::uint64_t{0}, ~std::uint64_t{0}, ~std::uint64_t{0}};
  return *this;
}

}  // namespace blockwire
