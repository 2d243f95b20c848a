// The two real blocks of tests/data, loaded once, for the benchmarks.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace bench {

inline std::vector<std::byte> load(const char* name) {
  std::ifstream in(std::string(BLOCKWIRE_TEST_DATA) + "/" + name, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot open %s/%s\n", BLOCKWIRE_TEST_DATA, name);
    std::exit(2);
  }
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

inline const std::vector<std::byte>& block413567() {
  static const auto bytes = load("block413567.raw");
  return bytes;
}

inline const std::vector<std::byte>& segwit_block() {
  static const auto bytes = load("block_000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae.raw");
  return bytes;
}

}  // namespace bench

// Registers `fn(state, const std::vector<std::byte>* block)` for both blocks,
// as fn/413567 and fn/segwit.
#define BLOCKWIRE_BENCH_BOTH(fn)                                                       \
  BENCHMARK_CAPTURE(fn, 413567, &bench::block413567())->Unit(benchmark::kMicrosecond); \
  BENCHMARK_CAPTURE(fn, segwit, &bench::segwit_block())->Unit(benchmark::kMicrosecond)
