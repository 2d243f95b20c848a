// The request reading and answer building of request.hpp that are no
// templates.
#include "request.hpp"

#include <blockwire/io/hex.hpp>

namespace blockwire::rest::detail {

namespace {

// Core's cap on headers and filter headers in one answer.
constexpr std::uint64_t max_headers = 2000;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

format split_format(std::string_view part, std::string& param) {
  param = std::string(part.substr(0, part.rfind('?')));
  const auto dot = param.rfind('.');
  if (dot == std::string::npos) return format::undefined;
  const std::string_view suffix = std::string_view(param).substr(dot + 1);
  const format f = suffix == "bin" ? format::binary : suffix == "hex" ? format::hex : suffix == "json" ? format::json : format::undefined;
  if (f != format::undefined) param.erase(dot);
  return f;
}

std::optional<std::string> query_parameter(std::string_view target, std::string_view name) {
  const auto mark = target.find('?');
  if (mark == std::string_view::npos) return std::nullopt;
  std::string_view query = target.substr(mark + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      const std::string_view raw = eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
      std::string value;
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '%' && i + 2 < raw.size() && hex_value(raw[i + 1]) >= 0 && hex_value(raw[i + 2]) >= 0) {
          value.push_back(static_cast<char>(hex_value(raw[i + 1]) * 16 + hex_value(raw[i + 2])));
          i += 2;
        } else {
          value.push_back(raw[i]);
        }
      }
      return value;
    }
    if (amp == std::string_view::npos) break;
    query = query.substr(amp + 1);
  }
  return std::nullopt;
}

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const auto at = s.find(by, from);
    out.push_back(s.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) return out;
    from = at + 1;
  }
}

Response error(unsigned status, std::string message) { return {status, "text/plain", std::move(message) + "\r\n"}; }

Response no_format(std::string_view available) { return error(404, "output format not found (available: " + std::string(available) + ")"); }

CountedHash counted_hash(const std::vector<std::string>& path, std::string_view target, std::size_t old_parts, std::string_view invalid) {
  CountedHash out;
  const auto failed = [&out](std::string message) {
    out.failed = error(400, std::move(message));
    return out;
  };
  std::string raw_count, hash_text;
  if (path.size() == old_parts) {
    raw_count = path[old_parts - 2];
    hash_text = path[old_parts - 1];
  } else if (path.size() == old_parts - 1) {
    hash_text = path[old_parts - 2];
    raw_count = query_parameter(target, "count").value_or("5");
  } else {
    return failed(std::string(invalid));
  }
  const auto count = whole<std::uint64_t>(raw_count);
  if (!count || *count < 1 || *count > max_headers)
    return failed("Header count is invalid or out of acceptable range (1-2000): " + raw_count);
  const auto hash = parse_hash(hash_text);
  if (!hash) return failed("Invalid hash: " + hash_text);
  out.count = *count;
  out.hash = *hash;
  return out;
}

Response bytes_in(format f, std::span<const std::byte> bytes) {
  if (f == format::binary) return {200, "application/octet-stream", std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())};
  return {200, "text/plain", to_hex(bytes) + "\n"};
}

Response json_of(const std::function<void(tables::JsonWriter&)>& write) {
  std::string text = tables::json_text(write);
  if (text.empty()) return error(500, "out of memory");
  return {200, "application/json", std::move(text)};
}

}  // namespace blockwire::rest::detail
