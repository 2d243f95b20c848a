// Replaces the global operator new and delete to count heap bytes: the bytes
// live now, the peak since the last reset, and the number of allocations.
// Include it in exactly one source file of a binary.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace counting {

inline std::atomic<std::size_t> live{0};
inline std::atomic<std::size_t> peak{0};
inline std::atomic<std::size_t> allocations{0};

// Starts measuring a peak from what is live now; returns that baseline.
inline std::size_t reset_peak() {
  const std::size_t now = live.load();
  peak = now;
  return now;
}

// Each block carries its size in front, so that delete knows what it frees.
inline constexpr std::size_t header = alignof(std::max_align_t);

inline void* allocate(std::size_t n) {
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

inline void release(void* p) noexcept {
  if (p == nullptr) return;
  void* base = static_cast<char*>(p) - header;
  live.fetch_sub(*static_cast<std::size_t*>(base));
  std::free(base);
}

}  // namespace counting

void* operator new(std::size_t n) { return counting::allocate(n); }
void* operator new[](std::size_t n) { return counting::allocate(n); }
void operator delete(void* p) noexcept { counting::release(p); }
void operator delete[](void* p) noexcept { counting::release(p); }
void operator delete(void* p, std::size_t) noexcept { counting::release(p); }
void operator delete[](void* p, std::size_t) noexcept { counting::release(p); }
