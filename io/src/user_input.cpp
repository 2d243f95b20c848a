#include <blockwire/io/file.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/user_input.hpp>

#include <cstdint>
#include <sys/stat.h>
#include <unistd.h>

namespace blockwire {

namespace {

bool is_space(std::byte b) {
  const auto c = std::to_integer<unsigned char>(b);
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool is_text(std::byte b) {
  const auto c = std::to_integer<unsigned char>(b);
  return is_space(b) || (c >= 0x20 && c < 0x7f);
}

}  // namespace

result<std::vector<std::byte>> read_user_input(const std::string& path, std::size_t limit) {
  std::optional<FileReader> owned;
  if (path == "-") {
    owned.emplace(STDIN_FILENO, ownership::borrow);
  } else {
    auto file = FileReader::open(path.c_str());
    if (!file) return file.error();
    owned.emplace(std::move(file).value());
  }
  std::vector<std::byte> bytes;
  // A regular file's size, when it is within the bound, sizes the buffer
  // once (growing by doubling could hold twice the input).
  struct stat st;
  if (::fstat(owned->fd(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= limit) {
    bytes.reserve(static_cast<std::size_t>(st.st_size));
  }
  std::byte chunk[64 * 1024];
  for (;;) {
    auto got = owned->read_some(chunk);
    if (!got) return got.error();
    if (got.value() == 0) return bytes;
    if (bytes.size() + got.value() > limit) return std::make_error_code(std::errc::file_too_large);
    bytes.insert(bytes.end(), chunk, chunk + got.value());
  }
}

std::vector<const std::vector<std::byte>*> Readings::in_order() const {
  if (hex) return {&*hex, &raw};
  return {&raw};
}

Readings readings_of(std::vector<std::byte> bytes) {
  Readings r;
  bool text = !bytes.empty();
  std::string digits;
  for (std::byte b : bytes) {
    if (!is_text(b)) {
      text = false;
      break;
    }
    if (!is_space(b)) digits += static_cast<char>(b);
  }
  if (text) {
    auto value = from_hex(digits);
    if (value) {
      r.hex = std::move(value).value();
    } else {
      error e = value.error();
      if (e.has_offset()) {  // the offset among the digits; the user wants the input's
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < bytes.size(); ++i) {
          if (is_space(bytes[i])) continue;
          if (seen++ == e.offset()) {
            e = error(e.code(), i);
            break;
          }
        }
      }
      r.hex_problem = e;
    }
  }
  r.raw = std::move(bytes);
  return r;
}

std::string describe_hex_problem(const error& e, std::span<const std::byte> raw) {
  if (e.code() == io::errc::odd_hex_length) {
    std::size_t digits = 0;
    for (std::byte b : raw) digits += is_space(b) ? 0 : 1;
    return e.code().message() + " (" + std::to_string(digits) + ")";
  }
  std::string text = e.message();
  if (e.has_offset() && e.offset() < raw.size() && raw[e.offset()] == std::byte{'x'}) text += " (hex takes no 0x prefix)";
  return text;
}

}  // namespace blockwire
