#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/error.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/io/hex.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
#include <filesystem>
#include <random>
#include <system_error>

namespace blockwire {

namespace fs = std::filesystem;

result<XorKey> read_xor_key(const std::string& blocks_dir) {
  const fs::path path = fs::path(blocks_dir) / "xor.dat";
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (ec) return ec;             // not "no file": an error we must not mistake for no key
  if (!exists) return XorKey{};  // no file: not obfuscated
  const auto size = fs::file_size(path, ec);
  if (ec) return ec;
  if (size != 8) return blockfiles::errc::bad_key_file;
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  XorKey key;
  std::size_t have = 0;
  while (have < key.size()) {
    auto got = file.value().read_some(std::span(key).subspan(have));
    if (!got) return got.error();
    if (got.value() == 0) return blockfiles::errc::bad_key_file;  // shrank since it was measured
    have += got.value();
  }
  return key;
}

result<void> write_xor_key(const std::string& blocks_dir, const XorKey& key) {
  // Whole or not at all: a short xor.dat (a full disk) would make the
  // directory unreadable, and unwritable, for good.
  const fs::path path = fs::path(blocks_dir) / "xor.dat";
  return write_file_atomically(path.c_str(), key);
}

result<XorKey> xor_key_for(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return read_xor_key(path);
  const fs::path parent = fs::path(path).parent_path();
  return read_xor_key(parent.empty() ? std::string(".") : parent.string());
}

std::optional<network> network_of(const std::string& path, const XorKey& key) {
  std::error_code ec;
  std::string file = path;
  if (fs::is_directory(path, ec)) {
    // An empty first file (a writer that created it and stopped) says
    // nothing; the first with a record does.
    auto files = block_files(path);
    if (!files) return std::nullopt;
    const auto first = std::find_if(files.value().begin(), files.value().end(), [](const std::string& f) {
      std::error_code size_ec;
      return fs::file_size(f, size_ec) >= 4 && !size_ec;
    });
    if (first == files.value().end()) return std::nullopt;
    file = *first;
  }
  auto reader = FileReader::open(file.c_str());
  if (!reader) return std::nullopt;
  std::array<std::byte, 4> head{};
  std::size_t have = 0;
  while (have < head.size()) {
    auto got = reader.value().read_some(std::span(head).subspan(have));
    if (!got || got.value() == 0) return std::nullopt;
    have += got.value();
  }
  for (std::size_t i = 0; i < head.size(); ++i) head[i] ^= key[i];  // the record starts at offset 0
  return network_from_magic(head);
}

namespace {

// Whether someone holds a write lock on `path` (an open-file-description
// lock, as BlockFileWriter takes, or Core's classic one: they conflict).
bool locked(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  FileDescriptor owned(fd, ownership::own);
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  return ::fcntl(fd, F_OFD_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
}

}  // namespace

bool being_written(const std::string& blocks_dir) {
  fs::path dir = fs::absolute(blocks_dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  return locked(dir / ".lock") || locked(dir.parent_path() / ".lock");
}

result<XorKey> xor_key_from_hex(std::string_view hex) {
  XorKey key;
  if (auto r = from_hex(hex, key); !r) return r.error();
  return key;
}

XorKey random_xor_key() {
  std::random_device rd;
  XorKey key;
  for (auto& b : key) b = static_cast<std::byte>(rd());
  return key;
}

namespace {

// Core's numbered files: PREFIX%05u.dat (blk for blocks, rev for undo data).
std::string numbered_file_name(std::string_view prefix, unsigned number) {
  char name[32];
  std::snprintf(name, sizeof name, "%.*s%05u.dat", static_cast<int>(prefix.size()), prefix.data(), number);
  return name;
}

std::optional<unsigned> numbered_file_number(std::string_view prefix, std::string_view name) {
  if (name.size() < prefix.size() + 9 || !name.starts_with(prefix) || !name.ends_with(".dat")) return std::nullopt;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size() - 4;
  if (!std::all_of(first, last, [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  unsigned number = 0;
  const auto [end, err] = std::from_chars(first, last, number);
  if (err != std::errc() || end != last) return std::nullopt;
  return number;
}

result<std::vector<std::string>> numbered_files(const std::string& blocks_dir, std::string_view prefix) {
  std::error_code ec;
  std::vector<std::pair<unsigned, std::string>> found;
  for (fs::directory_iterator it(blocks_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (const auto number = numbered_file_number(prefix, it->path().filename().string())) found.emplace_back(*number, it->path().string());
  }
  if (ec) return ec;
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& f : found) paths.push_back(std::move(f.second));
  return paths;
}

}  // namespace

std::string block_file_name(unsigned number) { return numbered_file_name("blk", number); }
std::optional<unsigned> block_file_number(std::string_view name) { return numbered_file_number("blk", name); }
result<std::vector<std::string>> block_files(const std::string& blocks_dir) { return numbered_files(blocks_dir, "blk"); }

bool holds_records(const std::string& blocks_dir) {
  std::error_code ec;
  if (!fs::is_directory(blocks_dir, ec)) return false;
  auto files = block_files(blocks_dir);
  if (!files) return true;
  return std::any_of(files.value().begin(), files.value().end(), [](const std::string& f) {
    std::error_code size_ec;
    return fs::file_size(f, size_ec) >= 8 || size_ec;
  });
}

std::string undo_file_name(unsigned number) { return numbered_file_name("rev", number); }
std::optional<unsigned> undo_file_number(std::string_view name) { return numbered_file_number("rev", name); }
result<std::vector<std::string>> undo_files(const std::string& blocks_dir) { return numbered_files(blocks_dir, "rev"); }

result<RecordFormat> record_format(const std::string& path, const std::optional<XorKey>& key, const std::optional<network>& net) {
  RecordFormat f;
  if (key) {
    f.key = *key;
  } else {
    auto read = xor_key_for(path);
    if (!read) return read.error();
    f.key = read.value();
  }
  f.net = net ? *net : network_of(path, f.key).value_or(network::mainnet);
  return f;
}

std::string xor_key_error_message(const std::string& path, const error& e) {
  std::error_code ec;
  const fs::path dir = fs::is_directory(path, ec) ? fs::path(path) : fs::path(path).parent_path();
  return (dir / "xor.dat").string() + ": " + e.code().message();
}

result<XorKey> key_for_writing(const std::string& blocks_dir) {
  std::error_code ec;
  if (fs::exists(fs::path(blocks_dir) / "xor.dat", ec)) return read_xor_key(blocks_dir);
  if (fs::exists(blocks_dir, ec)) {
    auto files = block_files(blocks_dir);
    if (!files) return files.error();
    if (!files.value().empty()) return XorKey{};
  }
  return random_xor_key();
}

}  // namespace blockwire
