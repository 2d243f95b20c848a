// The floor a program's compile time is measured against: <vector>, <span>
// and <cstdint>, and one function using them (bench/compile_lean,
// bench/speed_targets).
#include <cstdint>
#include <span>
#include <vector>
std::size_t total(const std::vector<std::uint8_t>& v) {
  std::size_t n = 0;
  for (auto b : std::span(v)) n += b;
  return n;
}
