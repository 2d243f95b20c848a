#include "input.hpp"

#include <blockwire/io/file.hpp>
#include <blockwire/io/hex.hpp>

#include <cctype>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace blockwire::cli {

result<std::vector<std::byte>> read_input(const std::string& path) {
  std::optional<FileReader> owned;
  if (path == "-") {
    owned.emplace(STDIN_FILENO, ownership::borrow);
  } else {
    auto file = FileReader::open(path.c_str());
    if (!file) return file.error();
    owned.emplace(std::move(file).value());
  }
  std::vector<std::byte> bytes;
  std::byte chunk[64 * 1024];
  for (;;) {
    auto got = owned->read_some(chunk);
    if (!got) return got.error();
    if (got.value() == 0) return bytes;
    bytes.insert(bytes.end(), chunk, chunk + got.value());
  }
}

std::vector<std::byte> decode_if_hex(std::vector<std::byte> bytes) {
  const auto is_space = [](std::byte b) { return std::isspace(std::to_integer<unsigned char>(b)) != 0; };
  std::size_t begin = 0;
  std::size_t end = bytes.size();
  while (begin < end && is_space(bytes[begin])) ++begin;
  while (end > begin && is_space(bytes[end - 1])) --end;
  if (begin == end) return bytes;
  auto value = from_hex(std::string_view(reinterpret_cast<const char*>(bytes.data()) + begin, end - begin));
  if (!value) return bytes;  // not hex: raw bytes
  return std::move(value).value();
}

}  // namespace blockwire::cli
