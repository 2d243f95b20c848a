// The real mainnet data in tests/data (facts in its README), loaded once:
// the one loader of the tests and the benchmarks. BLOCKWIRE_TEST_DATA is
// the folder, set by the build.
#pragma once

#include <blockwire/io/hex.hpp>

#include <cstddef>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace test {

inline std::vector<std::byte> read_file(const std::string& name) {
  const std::string path = std::string(BLOCKWIRE_TEST_DATA) + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open test data " + path);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

inline const std::vector<std::byte>& block413567() {
  static const auto bytes = read_file("block413567.raw");
  return bytes;
}

// Its hash, as the block explorers and the test data's README give it.
inline constexpr const char* segwit_block_hash = "000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae";

inline const std::vector<std::byte>& segwit_block() {
  static const auto bytes = read_file("block_000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae.raw");
  return bytes;
}

// Hex that the test itself wrote: a mistake in it is a bug in the test.
inline std::vector<std::byte> from_hex(std::string_view hex) {
  auto bytes = blockwire::from_hex(hex);
  if (!bytes) throw std::runtime_error("bad hex in a test: " + bytes.error().message());
  return std::move(bytes).value();
}

}  // namespace test
