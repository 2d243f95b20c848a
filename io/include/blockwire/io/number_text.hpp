// Numbers as people read them in messages and logs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace blockwire {

// 1234567 -> "1,234,567"
std::string with_commas(std::uint64_t n);
// (1, "block") -> "1 block"; (1234, "block") -> "1,234 blocks"
std::string count_of(std::uint64_t n, std::string_view noun);

}  // namespace blockwire
