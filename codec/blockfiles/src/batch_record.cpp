#include "batch_record.hpp"

#include <blockwire/blockfiles/error.hpp>
#include <blockwire/io/file.hpp>

#include <array>
#include <cstdio>
#include <system_error>

namespace blockwire::detail {

std::string batch_record(BlockPosition at) { return "blockwire batch " + std::to_string(at.file) + " " + std::to_string(at.offset) + "\n"; }

std::optional<BlockPosition> parse_batch_record(const std::string& text) {
  unsigned file = 0;
  unsigned long long offset = 0;
  char end = 0;
  if (std::sscanf(text.c_str(), "blockwire batch %u %llu%c", &file, &offset, &end) != 3 || end != '\n') return std::nullopt;
  return BlockPosition{file, offset};
}

result<std::optional<BlockPosition>> read_batch_start(const std::filesystem::path& blocks_dir) {
  const std::filesystem::path path = blocks_dir / batch_file_name;
  auto file = FileReader::open(path.c_str());
  if (!file) {
    if (file.error().code() == std::errc::no_such_file_or_directory) return std::optional<BlockPosition>{};
    return file.error();
  }
  std::array<std::byte, 128> buffer{};
  std::size_t have = 0;
  for (;;) {
    auto got = file.value().read_some(std::span(buffer).subspan(have));
    if (!got) return got.error();
    if (got.value() == 0 || (have += got.value()) == buffer.size()) break;
  }
  const auto at = parse_batch_record(std::string(reinterpret_cast<const char*>(buffer.data()), have));
  if (!at) return error(blockfiles::errc::bad_batch_file);
  return at;
}

}  // namespace blockwire::detail
