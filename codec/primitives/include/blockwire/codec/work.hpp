// Proof of work's two 256-bit numbers, each a type of its own: the Target
// a block's hash must not exceed (its header's bits, Bitcoin's compact
// form), and the Work a block took (Core's GetBlockProof), summed along a
// chain. Neither is a hash, nor the other: a chain's work is never
// compared with a target, nor a txid added to a chain's work. Stored like
// a hash (little-endian); to_hex() prints the number as Core does.
#pragma once

#include <blockwire/codec/ids.hpp>
#include <blockwire/io/hash256.hpp>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>

namespace blockwire {

namespace detail {
// a <=> b as 256-bit numbers stored little-endian.
std::strong_ordering compare_numbers(const Hash256& a, const Hash256& b) noexcept;
}  // namespace detail

class Target {
 public:
  // The target `bits` encodes, or nothing when `bits` is negative, zero
  // or overflows 256 bits (Core's arith_uint256::SetCompact refusals).
  static std::optional<Target> from_bits(std::uint32_t bits) noexcept;
  explicit Target(const Hash256& number) noexcept : number_(number) {}

  // Whether a block whose hash is `hash` meets it: hash <= target.
  bool met_by(const BlockHash& hash) const noexcept { return detail::compare_numbers(hash, number_) <= 0; }

  // Ordered as numbers: a lower target is harder.
  friend std::strong_ordering operator<=>(const Target& a, const Target& b) noexcept {
    return detail::compare_numbers(a.number_, b.number_);
  }
  friend bool operator==(const Target&, const Target&) = default;

  const Hash256& number() const noexcept { return number_; }
  std::string to_hex() const { return number_.to_hex(); }

 private:
  Hash256 number_;
};

class Work {
 public:
  Work() noexcept = default;  // none
  // The expected number of hashes a block of `bits` took: 2^256 /
  // (target + 1), Core's GetBlockProof. None for bits that are no target.
  static Work of_bits(std::uint32_t bits) noexcept;
  explicit Work(const Hash256& number) noexcept : number_(number) {}

  Work& operator+=(const Work& more) noexcept;
  friend Work operator+(Work a, const Work& b) noexcept { return a += b; }
  friend std::strong_ordering operator<=>(const Work& a, const Work& b) noexcept { return detail::compare_numbers(a.number_, b.number_); }
  friend bool operator==(const Work&, const Work&) = default;

  bool is_zero() const noexcept { return number_.is_zero(); }
  const Hash256& number() const noexcept { return number_; }
  std::string to_hex() const { return number_.to_hex(); }

 private:
  Hash256 number_;
};

}  // namespace blockwire
