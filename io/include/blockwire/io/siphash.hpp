// SipHash-2-4 (Aumasson and Bernstein), the keyed hash of BIP152's short
// transaction ids and of hash tables that face attacker-chosen keys. A
// Writer, so any encoder can stream into it; it compresses whole 8-byte
// words, keeping at most 7 bytes between writes (a byte-at-a-time loop is
// what made the seed change proposed to Core slower). One 32-byte hash, the
// short-id case, has its own fixed-length path.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace blockwire {

class SipHasher {
 public:
  SipHasher(std::uint64_t k0, std::uint64_t k1) noexcept;

  // Any bytes; whole words go straight to the compression function.
  void update(std::span<const std::byte> bytes) noexcept;
  // The Writer interface: hashing cannot fail.
  result<void> write(std::span<const std::byte> bytes) noexcept {
    update(bytes);
    return success();
  }
  // One little-endian 64-bit word; only while the length so far is a
  // multiple of 8 (what Core's CSipHasher::Write(uint64_t) requires too).
  void update_word(std::uint64_t word) noexcept;
  // The 64-bit hash of everything written; the hasher is left unchanged.
  std::uint64_t finish() const noexcept;

 private:
  std::uint64_t v_[4];
  std::uint64_t tail_ = 0;   // the pending bytes of an incomplete word, little-endian
  std::uint64_t count_ = 0;  // bytes written
};

// SipHash-2-4 of the 32 bytes of `hash`, as SipHasher would give.
std::uint64_t siphash(std::uint64_t k0, std::uint64_t k1, const Hash256& hash) noexcept;

}  // namespace blockwire
