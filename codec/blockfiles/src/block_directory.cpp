#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/io/file.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <random>
#include <system_error>

namespace blockwire {

namespace fs = std::filesystem;

result<XorKey> read_xor_key(const std::string& blocks_dir) {
  const fs::path path = fs::path(blocks_dir) / "xor.dat";
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (ec) return ec;  // not "no file": an error we must not mistake for no key
  if (!exists) return XorKey{};  // no file: not obfuscated
  const auto size = fs::file_size(path, ec);
  if (ec) return ec;
  if (size != 8) return errc::bad_argument;
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  XorKey key;
  std::size_t have = 0;
  while (have < key.size()) {
    auto got = file.value().read_some(std::span(key).subspan(have));
    if (!got) return got.error();
    if (got.value() == 0) return errc::truncated;
    have += got.value();
  }
  return key;
}

result<void> write_xor_key(const std::string& blocks_dir, const XorKey& key) {
  const fs::path path = fs::path(blocks_dir) / "xor.dat";
  auto file = FileWriter::create(path.c_str());
  if (!file) return file.error();
  if (auto r = file.value().write(key); !r) return r;
  return file.value().close();
}

result<XorKey> xor_key_from_hex(std::string_view hex) {
  if (hex.size() != 16) return errc::bad_argument;
  XorKey key;
  for (std::size_t i = 0; i < 8; ++i) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, value, 16);
    if (ec != std::errc() || end != hex.data() + 2 * i + 2) return errc::bad_argument;
    key[i] = static_cast<std::byte>(value);
  }
  return key;
}

std::string to_hex(const XorKey& key) {
  std::string out;
  char two[3];
  for (std::byte b : key) {
    std::snprintf(two, sizeof two, "%02x", std::to_integer<unsigned>(b));
    out += two;
  }
  return out;
}

XorKey random_xor_key() {
  std::random_device rd;
  XorKey key;
  for (auto& b : key) b = static_cast<std::byte>(rd());
  return key;
}

std::string block_file_name(unsigned number) {
  char name[32];
  std::snprintf(name, sizeof name, "blk%05u.dat", number);
  return name;
}

result<std::vector<std::string>> block_files(const std::string& blocks_dir) {
  std::error_code ec;
  std::vector<std::pair<unsigned, std::string>> found;
  for (fs::directory_iterator it(blocks_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    unsigned number = 0;
    // blkNNNNN.dat: at least five digits, as Bitcoin Core names them
    if (name.size() < 12 || name.compare(0, 3, "blk") != 0 || name.compare(name.size() - 4, 4, ".dat") != 0) continue;
    const auto [p, err] = std::from_chars(name.data() + 3, name.data() + name.size() - 4, number);
    if (err != std::errc() || p != name.data() + name.size() - 4) continue;
    found.emplace_back(number, it->path().string());
  }
  if (ec) return ec;
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& f : found) paths.push_back(std::move(f.second));
  return paths;
}

}  // namespace blockwire
