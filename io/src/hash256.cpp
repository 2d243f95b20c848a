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
  std::array<std::byte, 32> reversed;
  std::reverse_copy(bytes_.begin(), bytes_.end(), reversed.begin());
  return blockwire::to_hex(reversed);
}

}  // namespace blockwire
