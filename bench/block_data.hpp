// The two real blocks of tests/data for the benchmarks, through the tests'
// own loader (tests/support/test_data.hpp).
#pragma once

#include "../tests/support/test_data.hpp"

// Registers `fn(state, const std::vector<std::byte>* block)` for both blocks,
// as fn/413567 and fn/segwit.
#define BLOCKWIRE_BENCH_BOTH(fn)                                                      \
  BENCHMARK_CAPTURE(fn, 413567, &test::block413567())->Unit(benchmark::kMicrosecond); \
  BENCHMARK_CAPTURE(fn, segwit, &test::segwit_block())->Unit(benchmark::kMicrosecond)
