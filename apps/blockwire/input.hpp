// What the user points at: a file or standard input, raw bytes or hex.
#pragma once

#include <blockwire/io/error.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace blockwire::cli {

// All bytes of a file, or of standard input for "-".
result<std::vector<std::byte>> read_input(const std::string& path);

// If `bytes` are hex digits (white space around them allowed), their value;
// otherwise the bytes unchanged.
std::vector<std::byte> decode_if_hex(std::vector<std::byte> bytes);

}  // namespace blockwire::cli
