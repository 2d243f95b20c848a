#include <blockwire/tables/text_out.hpp>

#include <blockwire/io/hex.hpp>

namespace blockwire::tables {

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
  to_hex_reversed(h.bytes(), text);
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
      char escaped[6] = {'\\', 'u', '0', '0'};
      const std::byte b{c};
      to_hex(std::span(&b, 1), escaped + 4);
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

}  // namespace blockwire::tables
