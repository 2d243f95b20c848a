// A REST request read (its path's format suffix, its query, hashes and
// counts as Core takes them) and an answer built (errors, .bin/.hex, JSON).
#pragma once

#include <blockwire/codec/ids.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/rest/rest_service.hpp>
#include <blockwire/tables/json_writer.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace blockwire::rest::detail {

enum class format : unsigned char { undefined, binary, hex, json };

// A path's last part and its format: "HASH.json" -> HASH, json. No known
// suffix: the part as it is (its query cut off), format undefined.
format split_format(std::string_view part, std::string& param);

// The first value of `name` in the target's query, %-decoded.
std::optional<std::string> query_parameter(std::string_view target, std::string_view name);

std::vector<std::string> split(const std::string& s, char by);

// A whole number in digits alone, as Core's ToIntegral takes it.
template <class T>
std::optional<T> whole(std::string_view text) {
  T v{};
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (err != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

// 64 hex digits, either case: a hash as Core prints it.
template <class Id = BlockHash>
std::optional<Id> parse_hash(std::string_view text) {
  if (text.size() != 64) return std::nullopt;
  auto h = Id::from_hex(text);
  if (!h) return std::nullopt;
  return h.value();
}

Response error(unsigned status, std::string message);

Response no_format(std::string_view available = ".bin, .hex, .json");

// A count and a block hash where /rest/headers and /rest/blockfilterheaders
// take them: the path's last two parts in the old form (`old_parts` parts
// in all), else its last part and ?count= (5 by default). Core's texts
// for a bad count and a bad hash; `invalid` for a path of another shape.
struct CountedHash {
  std::uint64_t count = 0;
  BlockHash hash = BlockHash::all_zeros();
  std::optional<Response> failed;
};

CountedHash counted_hash(const std::vector<std::string>& path, std::string_view target, std::size_t old_parts, std::string_view invalid);

Response bytes_in(format f, std::span<const std::byte> bytes);

using Sink = BufferedWriter<VectorWriter&, 0>;

// An answer in .bin or .hex, its fields written by `encode` with the wire
// toolkit.
template <class Encode>
Response encoded_in(format f, Encode&& encode) {
  std::vector<std::byte> bytes;
  VectorWriter grows(bytes);
  Sink out(grows);
  encode(out);
  return bytes_in(f, bytes);
}

// JSON written by `write` (Core's UniValue::write: compact), then a newline.
Response json_of(const std::function<void(tables::JsonWriter&)>& write);

}  // namespace blockwire::rest::detail
