#include <blockwire/codec/hash256.hpp>

#include <algorithm>

namespace blockwire {
namespace {

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Hash256::Hash256(std::span<const std::byte, 32> bytes) noexcept {
  std::copy(bytes.begin(), bytes.end(), bytes_.begin());
}

result<Hash256> Hash256::from_hex(std::string_view hex) {
  if (hex.size() != 64) return errc::bad_argument;
  Hash256 h;
  for (std::size_t i = 0; i < 32; ++i) {
    const int hi = hex_value(hex[2 * i]);
    const int lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return errc::bad_argument;
    h.bytes_[31 - i] = static_cast<std::byte>(hi * 16 + lo);  // display order is reversed
  }
  return h;
}

std::string Hash256::to_hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(64, '0');
  for (std::size_t i = 0; i < 32; ++i) {
    const auto b = std::to_integer<unsigned>(bytes_[31 - i]);
    out[2 * i] = digits[b >> 4];
    out[2 * i + 1] = digits[b & 15];
  }
  return out;
}

}  // namespace blockwire
