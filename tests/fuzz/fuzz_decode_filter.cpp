// Hostile BIP158 filters: decode() never reads past the bytes or allocates
// beyond them (ASan), what it accepts is its input, and matching against
// it stays inside its stream.
#include <blockwire/filters.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace blockwire;
  const auto input = std::as_bytes(std::span(data, size));
  const filters::Params params{0x0123456789abcdef, 0xfedcba9876543210, 19, 784931};
  const auto filter = filters::GcsFilter::decode(params, input);
  if (!filter) return 0;
  if (filter.value().encoded().size() != input.size()) {
    std::fputs("fuzz_decode_filter: an accepted filter is not its input\n", stderr);
    std::abort();
  }
  // Matching walks the whole stream: it must stay inside it.
  const std::byte probe[4]{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};
  (void)filter.value().match(probe);
  const std::span<const std::byte> probes[2]{std::span(probe).first(2), std::span(probe)};
  (void)filter.value().match_any(probes);
  return 0;
}
