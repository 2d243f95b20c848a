#include "input.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/io.hpp>

#include <cctype>
#include <filesystem>
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
  if (begin == end || (end - begin) % 2 != 0) return bytes;
  std::vector<std::byte> value((end - begin) / 2);
  for (std::size_t i = 0; i < value.size(); ++i) {
    int digits[2];
    for (int k = 0; k < 2; ++k) {
      const int c = std::tolower(std::to_integer<unsigned char>(bytes[begin + 2 * i + static_cast<std::size_t>(k)]));
      digits[k] = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (digits[k] < 0) return bytes;  // not hex: raw bytes
    }
    value[i] = static_cast<std::byte>(digits[0] * 16 + digits[1]);
  }
  return value;
}

result<XorKey> key_for(const std::string& blk_path, const std::string& hex) {
  if (!hex.empty()) return xor_key_from_hex(hex);
  return read_xor_key(std::filesystem::path(blk_path).parent_path().string());
}

result<std::vector<std::byte>> read_record(const std::string& path, std::uint64_t offset, const XorKey& key,
                                           network net, std::string& what) {
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  if (::lseek(file.value().fd(), static_cast<off_t>(offset), SEEK_SET) < 0) {
    return std::error_code(errno, std::system_category());
  }
  BlockFileReader reader(file.value(), key, net, offset);
  auto event = reader.next();
  if (!event) return event.error();
  if (!event.value()) {
    what = "no record at offset " + std::to_string(offset) + ": the file ends there";
    return errc::end_of_stream;
  }
  if (const auto* record = std::get_if<BlockRecord>(&*event.value()); record != nullptr && record->offset == offset) {
    return std::vector<std::byte>(record->bytes.begin(), record->bytes.end());
  }
  const auto& skipped = std::get<SkippedBytes>(*event.value());
  what = "no record at offset " + std::to_string(offset) + ": " + skipped.reason +
         (skipped.reason == "bad magic" ? " (is the XOR key right? see xor.dat or --xor-key)" : "");
  return errc::bad_argument;
}

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace blockwire::cli
