// Height: a block's place on its chain (the genesis block's is 0); and
// BlockCount: how many blocks, a chain's length or a range's.
//
// Core keeps a height in an int (CBlockIndex::nHeight), its coins and undo
// data in 31 bits; the wire's fields that carry one (a version message's
// start height, BIP34's coinbase) in 32. So a height is 0 to 2^31 - 1, and
// every one of those places holds it: to_wire() and to_core() cannot fail.
// An integer becomes a height only through checked(); a count and a height
// are told apart, so that "one past the last height" is a count and says so.
#pragma once

#include <cassert>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace blockwire {

class Height {
 public:
  static constexpr std::uint32_t max_value = 0x7fff'ffff;  // Core's int; undo's 31 bits

  static constexpr Height genesis() noexcept { return Height(0); }
  // The integer as a height, or nothing when it is negative or past
  // max_value (a hostile field, a -1 of "none").
  template <std::integral T>
  [[nodiscard]] static constexpr std::optional<Height> checked(T value) noexcept {
    if constexpr (std::signed_integral<T>)
      if (value < 0) return std::nullopt;
    if (static_cast<std::uint64_t>(value) > max_value) return std::nullopt;
    return Height(static_cast<std::uint32_t>(value));
  }

  constexpr std::uint32_t to_wire() const noexcept { return value_; }
  constexpr int to_core() const noexcept { return static_cast<int>(value_); }

  // The next block's. A chain of 2^31 blocks would not fit in memory:
  // nothing counts that far (precondition: below max_value).
  constexpr Height next() const noexcept {
    assert(value_ < max_value);
    return Height(value_ + 1);
  }
  constexpr Height& operator++() noexcept { return *this = next(); }
  // The parent's: nothing for the genesis block's.
  constexpr std::optional<Height> previous() const noexcept {
    if (value_ == 0) return std::nullopt;
    return Height(value_ - 1);
  }
  // How many blocks `a` is above `b` (negative: below).
  friend constexpr std::int64_t operator-(Height a, Height b) noexcept {
    return static_cast<std::int64_t>(a.value_) - static_cast<std::int64_t>(b.value_);
  }

  friend constexpr bool operator==(Height, Height) noexcept = default;
  friend constexpr auto operator<=>(Height, Height) noexcept = default;
  friend class BlockCount;  // (its heights are in range: it saturates at max_value + 1)

 private:
  constexpr explicit Height(std::uint32_t value) noexcept : value_(value) {}
  std::uint32_t value_;
};

class BlockCount {
 public:
  static constexpr std::uint64_t max_value = std::uint64_t{Height::max_value} + 1;  // every height once

  constexpr BlockCount() noexcept = default;  // none
  // More than max_value blocks is max_value: a count past every height
  // (a request's "to the end") has them all, and no more.
  constexpr explicit BlockCount(std::uint64_t blocks) noexcept : blocks_(blocks < max_value ? blocks : max_value) {}
  // The blocks from the genesis block's up to `last`, both in.
  static constexpr BlockCount through(Height last) noexcept { return BlockCount(std::uint64_t{last.to_wire()} + 1); }

  constexpr std::uint64_t value() const noexcept { return blocks_; }
  constexpr bool empty() const noexcept { return blocks_ == 0; }
  // Whether a chain of this many blocks has one at `height`.
  constexpr bool contains(Height height) const noexcept { return height.to_wire() < blocks_; }
  // The height of the last of them (a chain's tip): nothing when empty.
  constexpr std::optional<Height> last() const noexcept { return empty() ? std::nullopt : std::optional(at(blocks_ - 1)); }
  // The heights of these blocks, from `from` on, in order.
  class Heights;
  constexpr Heights heights(Height from = Height::genesis()) const noexcept;

  friend constexpr bool operator==(BlockCount, BlockCount) noexcept = default;
  friend constexpr auto operator<=>(BlockCount, BlockCount) noexcept = default;

 private:
  // The height of block n of a count (below max_value + 1, where a count saturates).
  static constexpr Height at(std::uint64_t n) noexcept {
    assert(n <= Height::max_value);
    return Height(static_cast<std::uint32_t>(n));
  }
  std::uint64_t blocks_ = 0;
};

inline std::string to_string(Height height) { return std::to_string(height.to_wire()); }
// A height that may be none, as Core's JSON and blockwire's lines say it:
// -1 for none (no block yet, a block not linked to a genesis block).
constexpr std::int64_t signed_height(std::optional<Height> height) noexcept { return height ? std::int64_t{height->to_wire()} : -1; }

class BlockCount::Heights {
 public:
  class iterator {
   public:
    using value_type = Height;
    using difference_type = std::ptrdiff_t;
    constexpr iterator() noexcept = default;
    constexpr explicit iterator(std::uint64_t at) noexcept : at_(at) {}
    constexpr Height operator*() const noexcept { return BlockCount::at(at_); }
    constexpr iterator& operator++() noexcept {
      ++at_;
      return *this;
    }
    constexpr iterator operator++(int) noexcept {
      iterator was = *this;
      ++at_;
      return was;
    }
    friend constexpr bool operator==(iterator, iterator) noexcept = default;

   private:
    std::uint64_t at_ = 0;
  };
  constexpr iterator begin() const noexcept { return iterator(from_); }
  constexpr iterator end() const noexcept { return iterator(end_); }
  constexpr std::uint64_t size() const noexcept { return end_ - from_; }

 private:
  friend class BlockCount;
  // (`end` at most BlockCount::max_value: every place a height)
  constexpr Heights(std::uint64_t from, std::uint64_t end) noexcept : from_(from < end ? from : end), end_(end) {}
  std::uint64_t from_, end_;
};

constexpr BlockCount::Heights BlockCount::heights(Height from) const noexcept { return Heights(from.to_wire(), blocks_); }

}  // namespace blockwire
