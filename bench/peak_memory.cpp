// Peak heap bytes while decoding each real block (the Block alive at the
// end included), next to the block's size: a replaced operator new counts.
// Prints JSON: [{"block": ..., "bytes": ..., "peak_heap": ..., "allocations": ...}].
#include <blockwire/codec.hpp>

#include "block_data.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::size_t> live{0}, peak{0}, allocations{0};
constexpr std::size_t header = alignof(std::max_align_t);

void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n + header);
  if (p == nullptr) throw std::bad_alloc();
  *static_cast<std::size_t*>(p) = n;
  allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t now = live.fetch_add(n) + n;
  std::size_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
  return static_cast<char*>(p) + header;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  void* base = static_cast<char*>(p) - header;
  live.fetch_sub(*static_cast<std::size_t*>(base));
  std::free(base);
}

}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }

int main() {
  struct Case {
    const char* name;
    const std::vector<std::byte>& bytes;
  };
  const Case cases[] = {{"413567", bench::block413567()}, {"segwit", bench::segwit_block()}};
  std::printf("[\n");
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& bytes = cases[i].bytes;
    const std::size_t before = live.load();
    peak = before;
    const std::size_t allocations_before = allocations.load();
    auto block = blockwire::decode_block(bytes);
    if (!block) return 1;
    const std::size_t peak_heap = peak.load() - before;
    const std::size_t held = live.load() - before;
    std::printf("  {\"block\": \"%s\", \"bytes\": %zu, \"peak_heap\": %zu, \"held_after\": %zu, \"allocations\": %zu}%s\n",
                cases[i].name, bytes.size(), peak_heap, held, allocations.load() - allocations_before, i == 0 ? "," : "");
  }
  std::printf("]\n");
  return 0;
}
