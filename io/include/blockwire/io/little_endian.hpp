// Integers as the wire (and every Bitcoin file) stores them: little-endian
// bytes. One definition for the wire toolkit's fields and the views' loads.
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <utility>

namespace blockwire {

template <std::integral T>
constexpr T byteswap(T v) noexcept {
  auto bytes = std::bit_cast<std::array<std::byte, sizeof(T)>>(v);
  for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(bytes[i], bytes[sizeof(T) - 1 - i]);
  return std::bit_cast<T>(bytes);
}

template <std::integral T>
std::array<std::byte, sizeof(T)> to_le(T v) noexcept {
  if constexpr (std::endian::native == std::endian::big) v = byteswap(v);
  std::array<std::byte, sizeof(T)> out;
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

// The integer in the sizeof(T) bytes at `p` (no alignment needed).
template <std::integral T>
T load_le(const std::byte* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) v = byteswap(v);
  return v;
}

template <std::integral T>
T from_le(const std::array<std::byte, sizeof(T)>& bytes) noexcept {
  return load_le<T>(bytes.data());
}

}  // namespace blockwire
