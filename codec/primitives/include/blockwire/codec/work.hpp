// Proof of work's two 256-bit numbers, each a type of its own: the Target
// a block's hash must not exceed (its header's bits, Bitcoin's compact
// form), and the Work a block took (Core's GetBlockProof), summed along a
// chain. Neither is a hash, nor the other: a chain's work is never
// compared with a target, nor a txid added to a chain's work. Each holds
// its number as four 64-bit limbs, the least significant first, so that
// comparing and summing are integer operations; to_hex() prints the
// number as Core does.
#pragma once

#include <blockwire/codec/ids.hpp>

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace blockwire {

namespace detail {
using Limbs256 = std::array<std::uint64_t, 4>;  // least significant first

constexpr std::strong_ordering compare_numbers(const Limbs256& a, const Limbs256& b) noexcept {
  for (std::size_t i = 4; i-- > 0;) {
    if (a[i] != b[i]) return a[i] <=> b[i];
  }
  return std::strong_ordering::equal;
}

std::string number_to_hex(const Limbs256& number);
}  // namespace detail

class Target {
 public:
  // The target `bits` encodes, or nothing when `bits` is negative, zero
  // or overflows 256 bits (Core's arith_uint256::SetCompact refusals).
  static std::optional<Target> from_bits(std::uint32_t bits) noexcept;

  // Whether a block whose hash is `hash` meets it: hash <= target, the
  // hash read as a number (its bytes little-endian).
  bool met_by(const BlockHash& hash) const noexcept;

  // Ordered as numbers: a lower target is harder.
  friend constexpr std::strong_ordering operator<=>(const Target& a, const Target& b) noexcept {
    return detail::compare_numbers(a.number_, b.number_);
  }
  friend constexpr bool operator==(const Target&, const Target&) = default;

  std::string to_hex() const { return detail::number_to_hex(number_); }

 private:
  friend class Work;  // (of_bits)
  constexpr explicit Target(const detail::Limbs256& number) noexcept : number_(number) {}

  detail::Limbs256 number_;
};

class Work {
 public:
  constexpr Work() noexcept = default;  // none: where a chain's sum starts

  // The expected number of hashes a block of `bits` took: 2^256 /
  // (target + 1), Core's GetBlockProof. Nothing for bits that are no
  // target (Target::from_bits's refusals).
  static std::optional<Work> of_bits(std::uint32_t bits) noexcept;

  // Sums saturate at 2^256 - 1 rather than wrap: no real chain comes near
  // it (mainnet's work is about 2^95), but a directory's bits are
  // untrusted, and a sum that wrapped would make the most work look like
  // the least.
  Work& operator+=(const Work& more) noexcept;
  friend Work operator+(Work a, const Work& b) noexcept { return a += b; }
  friend constexpr std::strong_ordering operator<=>(const Work& a, const Work& b) noexcept {
    return detail::compare_numbers(a.number_, b.number_);
  }
  friend constexpr bool operator==(const Work&, const Work&) = default;

  constexpr bool is_zero() const noexcept { return number_ == detail::Limbs256{}; }
  // The number's four 64-bit limbs, the least significant first.
  constexpr const detail::Limbs256& limbs() const noexcept { return number_; }
  std::string to_hex() const { return detail::number_to_hex(number_); }

 private:
  constexpr explicit Work(const detail::Limbs256& number) noexcept : number_(number) {}

  detail::Limbs256 number_{};
};

}  // namespace blockwire
