#include "text.hpp"

namespace blockwire::cli {

std::string count_of(std::uint64_t n, const std::string& noun) { return with_commas(n) + " " + noun + (n == 1 ? "" : "s"); }

}  // namespace blockwire::cli
