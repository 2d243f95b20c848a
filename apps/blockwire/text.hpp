// Numbers as the command prints them.
#pragma once

#include <cstdint>
#include <string>

namespace blockwire::cli {

// 1234567 -> "1,234,567"
std::string with_commas(std::uint64_t n);
// (1, "block") -> "1 block"; (2, "block") -> "2 blocks"
std::string count_of(std::uint64_t n, const std::string& noun);

}  // namespace blockwire::cli
