#include "export_text.hpp"

#include <blockwire/io/hex.hpp>

#include <array>

namespace blockwire::cli {

namespace {

// Each byte's two digits, looked up at once.
constexpr std::array<char, 512> hex_pairs = [] {
  std::array<char, 512> t{};
  constexpr char digits[] = "0123456789abcdef";
  for (int b = 0; b < 256; ++b) {
    t[2 * b] = digits[b >> 4];
    t[2 * b + 1] = digits[b & 15];
  }
  return t;
}();

}  // namespace

void TextOut::hex(std::span<const std::byte> bytes) {
  // A chunk at a time through a stack buffer: one copy into the writer each.
  char chunk[1024];
  while (!bytes.empty()) {
    const std::size_t n = bytes.size() < sizeof chunk / 2 ? bytes.size() : sizeof chunk / 2;
    to_hex(bytes.first(n), chunk);
    raw({chunk, 2 * n});
    bytes = bytes.subspan(n);
  }
}

void TextOut::hash(const Hash256& h) {
  char text[64];
  const auto bytes = h.bytes();
  for (std::size_t i = 0; i < 32; ++i) {
    const unsigned b = std::to_integer<unsigned>(bytes[31 - i]);
    text[2 * i] = hex_pairs[2 * b];
    text[2 * i + 1] = hex_pairs[2 * b + 1];
  }
  fixed<64>(text);
}

void TextOut::json_string(std::string_view s) {
  put('"');
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    raw(s.substr(start, i - start));
    if (c == '"' || c == '\\') {
      put('\\');
      put(static_cast<char>(c));
    } else {
      char escaped[6] = {'\\', 'u', '0', '0', hex_pairs[2 * c], hex_pairs[2 * c + 1]};
      raw({escaped, sizeof escaped});
    }
    start = i + 1;
  }
  raw(s.substr(start));
  put('"');
}

void TextOut::csv_text(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return raw(s);
  put('"');
  std::size_t start = 0;
  for (std::size_t quote; (quote = s.find('"', start)) != std::string_view::npos; start = quote + 1) {
    raw(s.substr(start, quote + 1 - start));
    put('"');  // a quote inside is doubled
  }
  raw(s.substr(start));
  put('"');
}

result<void> TextOut::finish() {
  auto flushed = out_.flush();
  if (!flushed) return flushed;
  return file_.finish();
}

}  // namespace blockwire::cli
