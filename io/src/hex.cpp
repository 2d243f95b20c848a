#include <blockwire/io/hex.hpp>

namespace blockwire {
namespace {

int digit_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// hex.size() == 2 * out.size() here.
result<void> decode_digits(std::string_view hex, std::byte* out) {
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit_value(hex[i]);
    const int lo = digit_value(hex[i + 1]);
    if (hi < 0) return error(io::errc::not_hex, i);
    if (lo < 0) return error(io::errc::not_hex, i + 1);
    out[i / 2] = static_cast<std::byte>(hi * 16 + lo);
  }
  return success();
}

}  // namespace

std::string to_hex(std::span<const std::byte> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(2 * bytes.size(), '0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto b = std::to_integer<unsigned>(bytes[i]);
    out[2 * i] = digits[b >> 4];
    out[2 * i + 1] = digits[b & 15];
  }
  return out;
}

result<void> from_hex(std::string_view hex, std::span<std::byte> out) {
  if (hex.size() != 2 * out.size()) return io::errc::wrong_hex_length;
  return decode_digits(hex, out.data());
}

result<std::vector<std::byte>> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return io::errc::odd_hex_length;
  std::vector<std::byte> out(hex.size() / 2);
  if (auto r = decode_digits(hex, out.data()); !r) return r.error();
  return out;
}

}  // namespace blockwire
