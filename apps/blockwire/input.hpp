// What the user points at: a file or standard input, raw bytes or hex.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace blockwire::cli {

// No block or transaction is longer than 4,000,000 bytes, 8,000,000 hex
// digits; this leaves room for white space in hex and stops reading there
// (/dev/zero, a huge sparse file). Longer input: std::errc::file_too_large.
inline constexpr std::size_t max_input_size = 9'000'000;

// All bytes of a file, or of standard input for "-", up to max_input_size.
result<std::vector<std::byte>> read_input(const std::string& path);

// The ways to read an input: its bytes as they are, and, when they are text
// (printable ASCII and white space), the value of its hex digits (white
// space anywhere is allowed), or why they are not hex.
struct Readings {
  std::vector<std::byte> raw;
  std::optional<std::vector<std::byte>> hex;
  std::optional<error> hex_problem;  // text that is not hex: what, and at which byte of the input
};
Readings readings_of(std::vector<std::byte> bytes);

// "not a hex digit at byte 1 (hex takes no 0x prefix)", "an odd number of hex digits (301)"
std::string describe_hex_problem(const error& e, const std::vector<std::byte>& raw);

// One input's block bytes for `command` ("pack"), checked: a block that
// decodes and that a blk file can hold; hex first when the input is hex.
// With `warn`, a block that looks like another network's than `net` is
// said. Prints why not and returns the exit status.
std::optional<int> read_block_input(const char* command, const std::string& input, network net, std::vector<std::byte>& out, bool warn);

}  // namespace blockwire::cli
