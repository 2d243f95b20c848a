// Building byte strings in tests: hostile inputs, hand-made records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace test {

inline std::vector<std::byte> bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

inline std::vector<std::byte> concat(std::initializer_list<std::vector<std::byte>> parts) {
  std::vector<std::byte> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline std::vector<std::byte> le32(std::uint32_t v) {
  return {std::byte(v & 0xff), std::byte((v >> 8) & 0xff), std::byte((v >> 16) & 0xff), std::byte(v >> 24)};
}

// `levels` mainnet records nested in one another: level k's block has one
// transaction whose output script is level k+1 (the innermost a MB of
// zeros), then a trailing byte, so each decodes to its end and fails.
// Looking inside each for the next magic would decode every inner level
// again: the input of the resync budget's tests.
inline std::vector<std::byte> nested_failing_records(int levels) {
  std::vector<std::byte> inner(1'000'000, std::byte{0});
  for (int level = 0; level < levels; ++level) {
    const auto script_size = static_cast<std::uint32_t>(inner.size());
    const auto block = concat({std::vector<std::byte>(80, std::byte{0x01}), bytes({1}),           // header, 1 tx
                               le32(1), bytes({1}), std::vector<std::byte>(36, std::byte{0x02}),  // version, 1 input
                               bytes({0}), le32(0xffffffff), bytes({1}),                          // script, sequence, 1 output
                               std::vector<std::byte>(8, std::byte{0}), bytes({0xfe}), le32(script_size), inner, le32(0),
                               bytes({0x42})});  // lock time, then a trailing byte
    inner = concat({bytes({0xf9, 0xbe, 0xb4, 0xd9}), le32(static_cast<std::uint32_t>(block.size())), block});
  }
  return inner;
}

}  // namespace test
