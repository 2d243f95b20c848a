// Real mainnet data for the codec tests (tests/data, facts from its README)
// and small helpers to build hostile inputs.
#pragma once

#include <blockwire/codec.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace test {

inline std::vector<std::byte> read_file(const std::string& name) {
  std::ifstream in(std::string(BLOCKWIRE_TEST_DATA) + "/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot open test data " << name);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

inline const std::vector<std::byte>& block413567() {
  static const auto bytes = read_file("block413567.raw");
  return bytes;
}

inline const std::vector<std::byte>& segwit_block() {
  static const auto bytes =
      read_file("block_000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae.raw");
  return bytes;
}

inline std::vector<std::byte> from_hex(std::string_view hex) {
  REQUIRE(hex.size() % 2 == 0);
  std::vector<std::byte> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::byte>(std::stoi(std::string(hex.substr(2 * i, 2)), nullptr, 16));
  }
  return out;
}

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

}  // namespace test
