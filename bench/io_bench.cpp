// Writing 1 MiB as 250,000 4-byte fields into a vector, four ways:
//   Templated       VectorWriter called directly, one insert per field
//   WriterRef       through writer_ref, no buffer: an indirect call per field
//   Buffered        BufferedWriter<writer_ref>: an inline copy per field,
//                   one indirect call per 64 KiB
//   Lending         BufferedWriter<VectorWriter&>: the vector lends its own
//                   storage, bytes are written in place once
#include <blockwire/io.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstring>
#include <random>
#include <vector>

using namespace blockwire;

namespace {

constexpr std::size_t field_count = 250'000;

const std::vector<std::array<std::byte, 4>>& fields() {
  static const auto values = [] {
    std::vector<std::array<std::byte, 4>> v(field_count);
    std::mt19937 rng(42);
    for (auto& f : v) {
      const std::uint32_t x = rng();
      std::memcpy(f.data(), &x, 4);
    }
    return v;
  }();
  return values;
}

// The entry points of the library see a writer_ref whose target they cannot
// know; hide it from the optimiser here too, or it calls the sink directly.
writer_ref opaque(writer_ref ref) {
  benchmark::DoNotOptimize(ref);
  return ref;
}

void report(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * field_count * 4));
  state.counters["ns_per_field"] = benchmark::Counter(static_cast<double>(field_count) * 1e-9,  // inverted rate: ns per field
                                                      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void WriteFields_Templated(benchmark::State& state) {
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    VectorWriter w(out);
    for (const auto& f : fields()) {
      if (!w.write(f)) state.SkipWithError("write failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  report(state);
}

void WriteFields_WriterRef(benchmark::State& state) {
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    VectorWriter sink(out);
    const writer_ref w = opaque(writer_ref(sink));
    for (const auto& f : fields()) {
      if (!w.write(f)) state.SkipWithError("write failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  report(state);
}

void WriteFields_Buffered(benchmark::State& state) {
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    VectorWriter sink(out);
    BufferedWriter<writer_ref> w{opaque(writer_ref(sink))};
    for (const auto& f : fields()) w.write(std::span(f));
    if (!w.flush()) state.SkipWithError("flush failed");
    benchmark::DoNotOptimize(out.data());
  }
  report(state);
}

void WriteFields_Lending(benchmark::State& state) {
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    VectorWriter sink(out);
    BufferedWriter<VectorWriter&> w(sink);
    for (const auto& f : fields()) w.write(std::span(f));
    if (!w.flush()) state.SkipWithError("flush failed");
    benchmark::DoNotOptimize(out.data());
  }
  report(state);
}

// The physical limit: one memcpy of the same megabyte.
void WriteFields_Memcpy(benchmark::State& state) {
  std::vector<std::byte> out(field_count * 4);
  for (auto _ : state) {
    std::memcpy(out.data(), fields().data(), out.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  report(state);
}

}  // namespace

BENCHMARK(WriteFields_Templated);
BENCHMARK(WriteFields_WriterRef);
BENCHMARK(WriteFields_Buffered);
BENCHMARK(WriteFields_Lending);
BENCHMARK(WriteFields_Memcpy);
