#include <blockwire/io/hash256.hpp>
#include <blockwire/io/hex.hpp>

#include <algorithm>

namespace blockwire {

Hash256::Hash256(std::span<const std::byte, 32> bytes) noexcept { std::copy(bytes.begin(), bytes.end(), bytes_.begin()); }

result<Hash256> Hash256::from_hex(std::string_view hex) {
  Hash256 h;
  if (auto r = blockwire::from_hex(hex, h.bytes_); !r) return r.error();
  std::reverse(h.bytes_.begin(), h.bytes_.end());  // display order is reversed
  return h;
}

std::string Hash256::to_hex() const {
  std::string text(64, '0');
  to_hex_reversed(bytes_, text.data());
  return text;
}

}  // namespace blockwire
