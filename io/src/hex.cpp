#include <blockwire/io/hex.hpp>

#include <array>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Each byte's two digits, looked up at once.
constexpr std::array<char, 512> digit_pairs = [] {
  std::array<char, 512> t{};
  constexpr char digits[] = "0123456789abcdef";
  for (int b = 0; b < 256; ++b) {
    t[2 * b] = digits[b >> 4];
    t[2 * b + 1] = digits[b & 15];
  }
  return t;
}();

void put_pair(std::byte b, char* out) noexcept {
  const auto i = 2 * std::to_integer<unsigned>(b);
  out[0] = digit_pairs[i];
  out[1] = digit_pairs[i + 1];
}

}  // namespace

void to_hex_reversed(std::span<const std::byte> bytes, char* out) noexcept {
  for (std::size_t i = 0; i < bytes.size(); ++i) put_pair(bytes[bytes.size() - 1 - i], out + 2 * i);
}

void to_hex(std::span<const std::byte> bytes, char* out) noexcept {
  std::size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time: their high and low nibbles interleaved, then
  // '0' added, and 'a' - '0' - 10 more where a nibble is over 9.
  const __m128i low_nibbles = _mm_set1_epi8(0x0f);
  const __m128i nine = _mm_set1_epi8(9);
  const __m128i zero_char = _mm_set1_epi8('0');
  const __m128i letter_gap = _mm_set1_epi8('a' - '0' - 10);
  const auto ascii = [&](__m128i n) {
    return _mm_add_epi8(_mm_add_epi8(n, zero_char), _mm_and_si128(_mm_cmpgt_epi8(n, nine), letter_gap));
  };
  for (; i + 16 <= bytes.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes.data() + i));
    const __m128i high = _mm_and_si128(_mm_srli_epi16(v, 4), low_nibbles);
    const __m128i low = _mm_and_si128(v, low_nibbles);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), ascii(_mm_unpacklo_epi8(high, low)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i + 16), ascii(_mm_unpackhi_epi8(high, low)));
  }
#endif
  for (; i < bytes.size(); ++i) put_pair(bytes[i], out + 2 * i);
}

std::string to_hex(std::span<const std::byte> bytes) {
  std::string out(2 * bytes.size(), '0');
  to_hex(bytes, out.data());
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
