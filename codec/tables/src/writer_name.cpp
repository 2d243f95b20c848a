#include "writer_name.hpp"

#include <cstdint>
#include <cstdio>
#include <random>

namespace blockwire::tables {

std::string writer_name() {
  std::random_device random;
  const std::uint64_t n = (std::uint64_t{random()} << 32) | random();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(n));
  return text;
}

}  // namespace blockwire::tables
