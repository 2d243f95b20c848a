#include <blockwire/io/sha256.hpp>

// The low-level SHA256_* functions are deprecated in OpenSSL 3 in favour of
// EVP, whose per-message setup costs more than hashing a 64-byte message.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <cassert>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "sha256_avx512.hpp"
#include "sha256_shani.hpp"

namespace blockwire {
namespace {

static_assert(sizeof(SHA256_CTX) <= 112 && alignof(SHA256_CTX) <= 8);

SHA256_CTX* ctx(std::array<std::byte, 112>& state) noexcept { return reinterpret_cast<SHA256_CTX*>(state.data()); }

// The chaining state h[0..7], big-endian: the digest after the last block.
void store_state(const SHA256_CTX& c, std::byte* out) noexcept {
  for (int i = 0; i < 8; ++i) {
    out[4 * i + 0] = static_cast<std::byte>(c.h[i] >> 24);
    out[4 * i + 1] = static_cast<std::byte>(c.h[i] >> 16);
    out[4 * i + 2] = static_cast<std::byte>(c.h[i] >> 8);
    out[4 * i + 3] = static_cast<std::byte>(c.h[i]);
  }
}

// The padding block of a 64-byte message: 0x80, zeros, length 512 bits.
constexpr unsigned char pad_after_64[64] = {0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,    0,   0, 0,
                                            0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,    0,   0, 0,
                                            0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00};

}  // namespace

void Sha256::reset() noexcept { SHA256_Init(ctx(state_)); }

void Sha256::update(std::span<const std::byte> bytes) noexcept { SHA256_Update(ctx(state_), bytes.data(), bytes.size()); }

Hash256 Sha256::finish() noexcept {
  Hash256 out;
  SHA256_Final(reinterpret_cast<unsigned char*>(out.bytes().data()), ctx(state_));
  reset();
  return out;
}

// Not OpenSSL 3's one-shot SHA256(): it goes through EVP and costs about
// 300 ns of setup per message here, more than hashing a transaction.
Hash256 sha256(std::span<const std::byte> bytes) noexcept {
  SHA256_CTX c;
  SHA256_Init(&c);
  SHA256_Update(&c, bytes.data(), bytes.size());
  Hash256 out;
  SHA256_Final(reinterpret_cast<unsigned char*>(out.bytes().data()), &c);
  return out;
}

namespace {

// SHA-256 of a 32-byte message (the second half of SHA256d): one block,
// the digest followed by a constant padding.
Hash256 sha256_of_digest(const Hash256& once) noexcept {
  unsigned char block[64] = {};
  std::memcpy(block, once.bytes().data(), 32);
  block[32] = 0x80;
  block[62] = 0x01;  // length: 256 bits
  SHA256_CTX c;
  SHA256_Init(&c);
  SHA256_Transform(&c, block);
  Hash256 out;
  store_state(c, out.bytes().data());
  return out;
}

}  // namespace

Hash256 sha256d(std::span<const std::byte> bytes) noexcept { return sha256_of_digest(sha256(bytes)); }

Hash256 sha256d_of(Sha256& hasher) noexcept { return sha256_of_digest(hasher.finish()); }

namespace {

// The SHA extensions where the CPU has them, unless BLOCKWIRE_NO_SHA_NI is
// set; AVX-512 for sixteen merkle pairs at a time likewise, unless
// BLOCKWIRE_NO_AVX512 is set. (The tests run every combination that way.)
bool use_sha_ni() noexcept {
  static const bool use = detail::has_sha_ni() && std::getenv("BLOCKWIRE_NO_SHA_NI") == nullptr;
  return use;
}
// AVX-512's sixteen lanes against the SHA extensions' four: which is
// faster depends on the CPU (on the AMD EPYC of docs/benchmarks.md, 1,024
// pairs take 63 us with AVX-512 and 50 us with SHA-NI), so where both are
// there, each hashes the same 128 pairs three times, once, and the faster
// is kept.
bool avx512_faster_than_sha_ni() noexcept {
  using clock = std::chrono::steady_clock;
  static std::byte in[128 * 64], out[128 * 32];
  for (std::size_t i = 0; i < sizeof in; ++i) in[i] = static_cast<std::byte>(i * 131);
  auto best = [&](auto hash) {
    auto fastest = clock::duration::max();
    for (int round = 0; round < 3; ++round) {
      const auto t0 = clock::now();
      hash();
      fastest = std::min(fastest, clock::now() - t0);
    }
    return fastest;
  };
  const auto avx512 = best([&] {
    for (std::size_t i = 0; i < 128; i += 16) detail::sha256d64_avx512_16(out + 32 * i, in + 64 * i);
  });
  const auto sha_ni = best([&] { detail::sha256d64_sha_ni(out, in, 128); });
  return avx512 < sha_ni;
}

bool use_avx512() noexcept {
  static const bool use =
      detail::has_avx512() && std::getenv("BLOCKWIRE_NO_AVX512") == nullptr && (!use_sha_ni() || avx512_faster_than_sha_ni());
  return use;
}

// The pairs left after the sixteens, or all of them.
void sha256d64_few(std::byte* out, const std::byte* in, std::size_t blocks) noexcept {
  if (use_sha_ni()) return detail::sha256d64_sha_ni(out, in, blocks);
  SHA256_CTX c;
  // The second hash's only block: the 32-byte digest, 0x80, length 256 bits.
  unsigned char second[64] = {};
  second[32] = 0x80;
  second[62] = 0x01;
  for (std::size_t i = 0; i < blocks; ++i) {
    SHA256_Init(&c);
    SHA256_Transform(&c, reinterpret_cast<const unsigned char*>(in + 64 * i));
    SHA256_Transform(&c, pad_after_64);
    store_state(c, reinterpret_cast<std::byte*>(second));
    SHA256_Init(&c);
    SHA256_Transform(&c, second);
    store_state(c, out + 32 * i);  // after the input block was read: in place is safe
  }
}

}  // namespace

const char* sha256d64_implementation() noexcept {
  if (use_avx512()) return use_sha_ni() ? "avx512-16way, sha-ni-4way" : "avx512-16way, openssl";
  return use_sha_ni() ? "sha-ni-4way" : "openssl";
}

void sha256d64(std::span<std::byte> out, std::span<const std::byte> in) noexcept {
  const std::size_t blocks = in.size() / 64;
  std::size_t i = 0;
  if (use_avx512()) {
    for (; i + 16 <= blocks; i += 16) detail::sha256d64_avx512_16(out.data() + 32 * i, in.data() + 64 * i);
    // Eight or more left: sixteen lanes with some idle take less time than
    // the SHA extensions' four lanes where AVX-512 was timed faster (a
    // merkle level's last pairs; 413567's root has eleven levels).
    if (const std::size_t left = blocks - i; left >= 8) {
      alignas(64) std::byte rest_in[16 * 64] = {};
      alignas(64) std::byte rest_out[16 * 32];
      std::memcpy(rest_in, in.data() + 64 * i, 64 * left);
      detail::sha256d64_avx512_16(rest_out, rest_in);
      std::memcpy(out.data() + 32 * i, rest_out, 32 * left);
      return;
    }
  }
  sha256d64_few(out.data() + 32 * i, in.data() + 64 * i, blocks - i);
}

namespace {

// A message's last blocks, one at a time (OpenSSL's own SHA-NI or SSE
// code), from the chaining state the sixteen lanes left.
void finish_alone(std::uint32_t (&state)[8], detail::BlockFeed& feed) noexcept {
  SHA256_CTX c;
  SHA256_Init(&c);
  for (int t = 0; t < 8; ++t) c.h[t] = state[t];
  alignas(16) std::byte staging[64];
  while (!feed.done()) SHA256_Transform(&c, reinterpret_cast<const unsigned char*>(feed.next(staging)));
  for (int t = 0; t < 8; ++t) state[t] = c.h[t];
}

}  // namespace

void sha256d_each(std::span<const SplitMessage> messages, std::span<Hash256> out) noexcept {
  assert(out.size() == messages.size());
  if (use_avx512()) return detail::sha256d_each_avx512(messages.data(), messages.size(), out.data(), finish_alone);
  if (use_sha_ni()) return detail::sha256d_each_sha_ni(messages.data(), messages.size(), out.data());
  Sha256 sha;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    for (const auto& part : messages[i].parts) sha.update(part);
    out[i] = sha256d_of(sha);
  }
}

}  // namespace blockwire
