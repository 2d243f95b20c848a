// A 64-bit nonce from the system's random source: version messages, pings,
// compact blocks. Private to the net library.
#pragma once

#include <cstdint>
#include <random>

namespace blockwire::net::detail {

inline std::uint64_t random_nonce() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) | device();
}

}  // namespace blockwire::net::detail
