#include "input.hpp"

#include "commands.hpp"
#include "text.hpp"

#include <blockwire/blockfiles/block_file_reader.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/codec/check.hpp>

#include <blockwire/io/file.hpp>
#include <blockwire/io/hex.hpp>

#include <cstdio>
#include <optional>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace blockwire::cli {

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
  // A regular file's size, when it is plausible, sizes the buffer once
  // (growing by doubling could hold twice the input).
  struct stat st;
  if (::fstat(owned->fd(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= max_input_size) {
    bytes.reserve(static_cast<std::size_t>(st.st_size));
  }
  std::byte chunk[64 * 1024];
  for (;;) {
    auto got = owned->read_some(chunk);
    if (!got) return got.error();
    if (got.value() == 0) return bytes;
    if (bytes.size() + got.value() > max_input_size) return std::make_error_code(std::errc::file_too_large);
    bytes.insert(bytes.end(), chunk, chunk + got.value());
  }
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

std::string describe_hex_problem(const error& e, const std::vector<std::byte>& raw) {
  if (e.code() == io::errc::odd_hex_length) {
    std::size_t digits = 0;
    for (std::byte b : raw) digits += is_space(b) ? 0 : 1;
    return e.code().message() + " (" + std::to_string(digits) + ")";
  }
  std::string text = e.message();
  if (e.has_offset() && e.offset() < raw.size() && raw[e.offset()] == std::byte{'x'}) text += " (hex takes no 0x prefix)";
  return text;
}

// One input's block bytes, checked: a block that decodes and that a blk file
// can hold. Prints why not and returns the exit status.
std::optional<int> read_block_input(const char* command, const std::string& input, network net, std::vector<std::byte>& out, bool warn) {
  auto raw = read_input(input);
  if (!raw) {
    if (raw.error().code() == std::errc::file_too_large) {
      std::fprintf(stderr, "blockwire %s: %s: longer than any block (over %s bytes read)\n", command, input.c_str(),
                   with_commas(max_input_size).c_str());
      return bad_data;
    }
    std::fprintf(stderr, "blockwire %s: cannot read %s: %s\n", command, input.c_str(), raw.error().message().c_str());
    return usage_or_io;
  }
  Readings readings = readings_of(std::move(raw).value());
  // Hex first (when the input is hex), then the bytes as they are.
  std::optional<error> first_failure;
  for (std::vector<std::byte>* candidate : {readings.hex ? &*readings.hex : nullptr, &readings.raw}) {
    if (candidate == nullptr) continue;
    if (candidate->size() > max_block_size) {
      if (!first_failure) first_failure = error(blockfiles::errc::block_too_large);
      continue;
    }
    auto block = decode_block(*candidate);
    if (!block) {
      if (!first_failure) first_failure = block.error();
      continue;
    }
    if (const auto other = other_network(block.value().header, net); warn && other) {
      std::fprintf(stderr, "blockwire %s: warning: %s: %s; is it another network's block? (--network)\n", command, input.c_str(),
                   other->why.c_str());
    }
    out = std::move(*candidate);
    return std::nullopt;
  }
  if (readings.hex_problem) {
    std::fprintf(stderr, "blockwire %s: %s is not a block: as hex, %s; as raw bytes, %s\n", command, input.c_str(),
                 describe_hex_problem(*readings.hex_problem, readings.raw).c_str(), first_failure->message().c_str());
  } else {
    std::fprintf(stderr, "blockwire %s: %s is not a block: %s\n", command, input.c_str(), first_failure->message().c_str());
  }
  return bad_data;
}

}  // namespace blockwire::cli
