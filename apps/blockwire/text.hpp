// Numbers as the command prints them.
#pragma once

#include <blockwire/io/number_text.hpp>

#include <cstdint>
#include <string>

namespace blockwire::cli {

using blockwire::count_of;     // (1, "block") -> "1 block"; (2, "block") -> "2 blocks"
using blockwire::with_commas;  // 1234567 -> "1,234,567"

}  // namespace blockwire::cli
