// Hash256: 32 bytes as SHA-256 produces them (the digest's own order).
// Shown the way Bitcoin shows hashes: the bytes reversed, as hex.
#pragma once

#include <blockwire/io/error.hpp>

#include <array>
#include <compare>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace blockwire {

class Hash256 {
 public:
  constexpr Hash256() noexcept = default;  // all zero
  explicit Hash256(std::span<const std::byte, 32> bytes) noexcept;

  // From 64 hex digits in display order (as block explorers and Bitcoin
  // Core print hashes). Errors as from_hex's (hex.hpp).
  static result<Hash256> from_hex(std::string_view hex);
  // 64 lower-case hex digits in display order.
  std::string to_hex() const;

  std::span<const std::byte, 32> bytes() const noexcept { return bytes_; }
  std::span<std::byte, 32> bytes() noexcept { return bytes_; }
  bool is_zero() const noexcept { return *this == Hash256{}; }

  friend bool operator==(const Hash256&, const Hash256&) = default;
  friend auto operator<=>(const Hash256&, const Hash256&) = default;

 private:
  std::array<std::byte, 32> bytes_{};
};

}  // namespace blockwire
