// BIP158 filters. GCSFilterConstruct is Bitcoin Core's benchmark of the
// same name (src/bench/gcs_filter.cpp) as it defines it: elements i =
// 0..99,999 of 32 bytes, the first two bytes i (little-endian), the rest
// zero, put in a set (Core's ElementSet) before the timing, which leaves
// 65,536 distinct ones; a new SipHash key each iteration. BasicFilter_413567: the basic
// filter of a real block, its spent scripts stood in for by its own output
// scripts (one per input, as a block's undo data gives one per input).
#include <blockwire/codec.hpp>
#include <blockwire/filters.hpp>

#include <benchmark/benchmark.h>

#include "block_data.hpp"

#include <array>
#include <vector>

namespace {

using namespace blockwire;

// Core's set: two bytes of i repeat after 65,536, so that many are distinct.
std::vector<std::array<std::byte, 32>> core_test_elements() {
  std::vector<std::array<std::byte, 32>> elements(65'536);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    elements[i].fill(std::byte{0});
    elements[i][0] = static_cast<std::byte>(i);
    elements[i][1] = static_cast<std::byte>(i >> 8);
  }
  return elements;
}

void GCSFilterConstruct(benchmark::State& state) {
  const auto elements = core_test_elements();
  const std::vector<std::span<const std::byte>> spans(elements.begin(), elements.end());
  std::uint64_t k0 = 0;
  for (auto _ : state) {
    const auto filter = filters::GcsFilter::build({k0++, 0, 19, 784931}, spans);
    benchmark::DoNotOptimize(filter.encoded().data());
  }
  state.counters["ns_per_element"] =
      benchmark::Counter(static_cast<double>(elements.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(GCSFilterConstruct)->Unit(benchmark::kMillisecond);

void GCSFilterMatch(benchmark::State& state) {
  const auto elements = core_test_elements();
  const std::vector<std::span<const std::byte>> spans(elements.begin(), elements.end());
  const auto filter = filters::GcsFilter::build({0, 0, 19, 784931}, spans);
  std::array<std::byte, 32> absent{};
  absent[5] = std::byte{1};
  for (auto _ : state) benchmark::DoNotOptimize(filter.match(absent));
}
BENCHMARK(GCSFilterMatch)->Unit(benchmark::kMicrosecond);

void BasicFilter_413567(benchmark::State& state) {
  const auto& bytes = test::block413567();
  const BlockView view = BlockView::parse(bytes).value();
  std::vector<std::span<const std::byte>> spent;
  std::vector<std::span<const std::byte>> outputs;
  for (std::size_t t = 0; t < view.transaction_count(); ++t) {
    for (const OutputView o : view.transaction(t).outputs()) outputs.push_back(o.script_pubkey());
  }
  for (std::size_t t = 1; t < view.transaction_count(); ++t) {
    for (std::size_t i = 0; i < view.transaction(t).input_count(); ++i) spent.push_back(outputs[spent.size() % outputs.size()]);
  }
  for (auto _ : state) {
    const auto filter = filters::basic_filter(view, spent);
    benchmark::DoNotOptimize(filter.encoded().data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BasicFilter_413567)->Unit(benchmark::kMicrosecond);

}  // namespace
