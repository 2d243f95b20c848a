#include "text.hpp"

namespace blockwire::cli {

std::string with_commas(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string count_of(std::uint64_t n, const std::string& noun) { return with_commas(n) + " " + noun + (n == 1 ? "" : "s"); }

}  // namespace blockwire::cli
