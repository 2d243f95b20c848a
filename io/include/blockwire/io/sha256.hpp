// SHA-256 as a Writer, so that any encoder can stream into it, SHA256d of
// 64-byte blocks (merkle levels), and SHA256d of many messages side by side
// (a block's transaction ids). Backed by OpenSSL's libcrypto, which
// picks the CPU's SHA extensions (or AVX2) at run time; its headers stay in
// the .cpp file.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>

#include <array>
#include <cstddef>
#include <span>

namespace blockwire {

class Sha256 {
 public:
  Sha256() noexcept { reset(); }

  void update(std::span<const std::byte> bytes) noexcept;
  // The Writer interface: hashing cannot fail.
  result<void> write(std::span<const std::byte> bytes) noexcept {
    update(bytes);
    return success();
  }
  // The digest of everything written since the last reset; then resets.
  Hash256 finish() noexcept;
  void reset() noexcept;

 private:
  alignas(8) std::array<std::byte, 112> state_;  // OpenSSL's SHA256_CTX
};

Hash256 sha256(std::span<const std::byte> bytes) noexcept;
// SHA-256 of the SHA-256: Bitcoin's hash for txids, block hashes, merkle trees.
Hash256 sha256d(std::span<const std::byte> bytes) noexcept;
// SHA256d of everything written to `hasher`, which is then reset.
Hash256 sha256d_of(Sha256& hasher) noexcept;
// SHA256d of each 64-byte block of `in`, written as 32 bytes each to `out`
// (in.size() == 2 * out.size(), a multiple of 64). `out` may start where
// `in` does (a merkle level computed in place). Skips the per-message setup
// and padding logic of the general path: a 64-byte message always takes the
// same padding block.
void sha256d64(std::span<std::byte> out, std::span<const std::byte> in) noexcept;
// A message in up to three runs of bytes, hashed as if back to back: a
// segwit transaction's txid covers its version, its inputs and outputs, and
// its lock time, skipping the marker, flag and witnesses between them.
struct SplitMessage {
  std::array<std::span<const std::byte>, 3> parts;
};
// SHA256d of each message to out[i]: out.size() == messages.size(), and
// out must not overlap the messages' bytes (unlike sha256d64). Several
// messages go through the rounds side by side, a block of each at a time,
// a finished one's lane taking the next message: one message's rounds
// cannot be run in parallel, many messages' can. A block's transaction ids
// are this case. Sixteen lanes of AVX-512 where sha256d64 uses them, else
// four of the SHA extensions.
void sha256d_each(std::span<const SplitMessage> messages, std::span<Hash256> out) noexcept;

// Which code sha256d64 runs: "avx512-16way, sha-ni-4way" (sixteen blocks at a time with
// AVX-512, the rest four at a time with the x86 SHA extensions), "avx512-16way, openssl",
// "sha-ni-4way" or "openssl" (other CPUs); BLOCKWIRE_NO_AVX512 and BLOCKWIRE_NO_SHA_NI in
// the environment turn either off. sha256d_each runs AVX-512 where this names it, else the
// SHA extensions where it names them, else OpenSSL.
const char* sha256d64_implementation() noexcept;

}  // namespace blockwire
