// What a user points a command at: a file, or standard input for "-", read
// whole up to a bound; and the two ways to read its bytes: as they are,
// and as hex digits when they are text.
#pragma once

#include <blockwire/io/error.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace blockwire {

// All bytes of the file at `path`, or of standard input for "-", up to
// `limit` bytes. Reading stops at the bound (/dev/zero, a huge sparse
// file): longer input is std::errc::file_too_large.
result<std::vector<std::byte>> read_user_input(const std::string& path, std::size_t limit);

// The ways to read an input: its bytes as they are and, when they are
// text (printable ASCII and white space), the value of its hex digits
// (white space anywhere is allowed), or why they are not hex.
struct Readings {
  std::vector<std::byte> raw;
  std::optional<std::vector<std::byte>> hex;
  // Text that is not hex: io::errc::odd_hex_length, or io::errc::not_hex
  // at the offset of the first character that is not a digit, counted in
  // the input (white space included), not among the digits.
  std::optional<error> hex_problem;

  // The readings to try, hex first: a text of hex digits meant as bytes
  // is far likelier than bytes that happen to be hex digits.
  std::vector<const std::vector<std::byte>*> in_order() const;
};
Readings readings_of(std::vector<std::byte> bytes);

// hex_problem in words: "not a hex digit at byte 1 (hex takes no 0x
// prefix)", "an odd number of hex digits (301)".
std::string describe_hex_problem(const error& e, std::span<const std::byte> raw);

}  // namespace blockwire
