// Numbers as people read them in messages and logs.
#pragma once

#include <cstdint>
#include <string>

namespace blockwire {

// 1234567 -> "1,234,567"
std::string with_commas(std::uint64_t n);

}  // namespace blockwire
