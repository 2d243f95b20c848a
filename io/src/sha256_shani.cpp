// SHA-256 rounds with the SHA extensions (SHA256RNDS2, SHA256MSG1/2). The
// chaining state lives in two registers as the instructions want it:
// ABEF = {a, b, e, f} and CDGH = {c, d, g, h} (a in the top lane). Up to
// four independent messages go through the same loop so that one's rounds
// run while the others wait on their latency: the merkle level has pairs to
// spare, a block's transaction ids are many messages. Measured here (an AMD
// EPYC, family 26): four lanes hash a merkle level 1.2x faster than two;
// eight spill registers and lose. Compiled for these instructions function
// by function, so the rest of the library keeps the baseline flags;
// has_sha_ni() guards the calls.
#include "sha256_shani.hpp"

#include "sha256_block_feed.hpp"
#include "sha256_constants.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#define BLOCKWIRE_SHA_NI __attribute__((target("sha,sse4.1,ssse3")))
// The round helpers must melt into one function: a state that went to
// memory between rounds would add a store and a load to the dependency chain.
#define BLOCKWIRE_SHA_NI_INLINE __attribute__((target("sha,sse4.1,ssse3"), always_inline)) inline

namespace blockwire::detail {
namespace {

constexpr const std::uint32_t (&k)[64] = sha256_k;

// The initial state, already as ABEF / CDGH.
BLOCKWIRE_SHA_NI_INLINE __m128i initial_abef() { return _mm_set_epi32(0x6a09e667, 0xbb67ae85, 0x510e527f, 0x9b05688c); }
BLOCKWIRE_SHA_NI_INLINE __m128i initial_cdgh() { return _mm_set_epi32(0x3c6ef372, 0xa54ff53a, 0x1f83d9ab, 0x5be0cd19); }

// Big-endian words of 16 bytes into lanes W0..W3 (W0 lowest).
BLOCKWIRE_SHA_NI_INLINE __m128i load_be(const std::byte* p) {
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  return _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), swap);
}

struct Lane {
  __m128i abef, cdgh;
  __m128i w[4];  // the last four groups of four message words
};

// Four rounds of group g (words 4g..4g+3) on each of N lanes; from group 4
// on, the group's words come from the schedule of the four before it. The
// lanes' instructions alternate, so one lane's rounds fill the other's
// latency.
template <int g, int N>
BLOCKWIRE_SHA_NI_INLINE void group(Lane (&l)[N]) {
  constexpr int i = g % 4;
  if constexpr (g >= 4) {
    constexpr int prev = (g + 3) % 4, prev2 = (g + 2) % 4, next = (g + 1) % 4;
    for (Lane& x : l)
      x.w[i] = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(x.w[i], x.w[next]), _mm_alignr_epi8(x.w[prev], x.w[prev2], 4)),
                                    x.w[prev]);
  }
  const __m128i kg = _mm_load_si128(reinterpret_cast<const __m128i*>(k + 4 * g));
  __m128i m[N];
  for (int j = 0; j < N; ++j) m[j] = _mm_add_epi32(l[j].w[i], kg);
  for (int j = 0; j < N; ++j)
    l[j].cdgh = _mm_sha256rnds2_epu32(l[j].cdgh, l[j].abef, m[j]);  // rounds 4g, 4g+1: the new ABEF; the old is CDGH now
  for (int j = 0; j < N; ++j) m[j] = _mm_shuffle_epi32(m[j], 0x0e);
  for (int j = 0; j < N; ++j) l[j].abef = _mm_sha256rnds2_epu32(l[j].abef, l[j].cdgh, m[j]);  // rounds 4g+2, 4g+3
}

template <int N, int... g>
BLOCKWIRE_SHA_NI_INLINE void all_groups(Lane (&l)[N], std::integer_sequence<int, g...>) {
  (group<g>(l), ...);
}

// One compression of each lane's message (in w) into its state.
template <int N>
BLOCKWIRE_SHA_NI_INLINE void compress(Lane (&l)[N]) {
  Lane work[N];  // locals: registers
  for (int j = 0; j < N; ++j) work[j] = l[j];
  all_groups(work, std::make_integer_sequence<int, 16>{});
  for (int j = 0; j < N; ++j) {
    l[j].abef = _mm_add_epi32(work[j].abef, l[j].abef);
    l[j].cdgh = _mm_add_epi32(work[j].cdgh, l[j].cdgh);
  }
}

// The state as words a..h: {a, b, c, d} and {e, f, g, h}, a lowest.
BLOCKWIRE_SHA_NI_INLINE void state_words(const Lane& x, __m128i& abcd, __m128i& efgh) {
  const __m128i abef = _mm_shuffle_epi32(x.abef, 0x1b);  // from f, e, b, a: a, b, e, f
  const __m128i ghcd = _mm_shuffle_epi32(x.cdgh, 0xb1);  // from h, g, d, c: g, h, c, d
  abcd = _mm_blend_epi16(abef, ghcd, 0xf0);              // a, b | c, d
  efgh = _mm_alignr_epi8(ghcd, abef, 8);                 // e, f | g, h
}

BLOCKWIRE_SHA_NI_INLINE void start(Lane& x) {
  x.abef = initial_abef();
  x.cdgh = initial_cdgh();
}

// The padding block after a 64-byte message: 0x80, zeros, length 512.
BLOCKWIRE_SHA_NI_INLINE void pad_64(Lane& x) {
  x.w[0] = _mm_set_epi32(0, 0, 0, static_cast<int>(0x80000000u));
  x.w[1] = x.w[2] = _mm_setzero_si128();
  x.w[3] = _mm_set_epi32(512, 0, 0, 0);
}

// The second hash's only block: the first digest (its words are the
// state's), 0x80, zeros, length 256.
// Its padding (words 8..15) alone: the digest's words are set by the caller.
BLOCKWIRE_SHA_NI_INLINE void pad_after_digest(Lane& x) {
  x.w[2] = _mm_set_epi32(0, 0, 0, static_cast<int>(0x80000000u));
  x.w[3] = _mm_set_epi32(256, 0, 0, 0);
}

BLOCKWIRE_SHA_NI_INLINE void digest_block(Lane& x) {
  state_words(x, x.w[0], x.w[1]);
  pad_after_digest(x);
}

BLOCKWIRE_SHA_NI_INLINE void store_be(std::byte* out, const Lane& x) {
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i abcd, efgh;
  state_words(x, abcd, efgh);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_shuffle_epi8(abcd, swap));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm_shuffle_epi8(efgh, swap));
}

// SHA256d of N 64-byte blocks (in + 64 j) to out + 32 j. Every input is
// read before any output is written: out may be in.
template <int N>
BLOCKWIRE_SHA_NI void sha256d64_lanes(std::byte* out, const std::byte* in) {
  Lane l[N];
  for (int j = 0; j < N; ++j) {
    start(l[j]);
    for (int q = 0; q < 4; ++q) l[j].w[q] = load_be(in + 64 * j + 16 * q);
  }
  compress(l);
  for (Lane& x : l) pad_64(x);
  compress(l);
  for (Lane& x : l) {
    digest_block(x);
    start(x);
  }
  compress(l);
  for (int j = 0; j < N; ++j) store_be(out + 32 * j, l[j]);
}

// SHA-256 of each 32-byte digest at out[j] (the second hash of SHA256d),
// in place.
template <int N>
BLOCKWIRE_SHA_NI void sha256_of_digests(Hash256* out) {
  Lane l[N];
  for (int j = 0; j < N; ++j) {
    start(l[j]);
    l[j].w[0] = load_be(out[j].bytes().data());
    l[j].w[1] = load_be(out[j].bytes().data() + 16);
    pad_after_digest(l[j]);
  }
  compress(l);
  for (int j = 0; j < N; ++j) store_be(out[j].bytes().data(), l[j]);
}

}  // namespace

BLOCKWIRE_SHA_NI void sha256d_each_sha_ni(const SplitMessage* messages, std::size_t count, Hash256* out) noexcept {
  // Four lanes, each hashing one message a block at a time; a lane whose
  // message ends stores the first digest and takes the next message. Once
  // the messages run out, idle lanes hash a block of zeros (unused) while
  // two or more are busy; the last one left finishes alone (below).
  constexpr int N = 4;
  Lane l[N];
  BlockFeed feed[N];
  std::size_t message_of[N];
  bool busy[N];
  alignas(16) std::byte staging[N][64];
  alignas(16) static constexpr std::byte idle[64] = {};
  std::size_t next = 0;
  int busy_count = 0;
  const auto take_next = [&](int j) {  // the caller starts the lane's state: start() needs the SHA target
    busy[j] = next < count;
    if (!busy[j]) return false;
    feed[j] = BlockFeed(messages[next]);
    message_of[j] = next++;
    ++busy_count;
    return true;
  };
  for (int j = 0; j < N; ++j) {
    start(l[j]);  // every lane, the idle ones too: compress reads them all
    take_next(j);
  }
  while (busy_count > 1) {
    for (int j = 0; j < N; ++j) {
      const std::byte* block = busy[j] ? feed[j].next(staging[j]) : idle;
      for (int q = 0; q < 4; ++q) l[j].w[q] = load_be(block + 16 * q);
    }
    compress(l);
    for (int j = 0; j < N; ++j) {
      if (!busy[j] || !feed[j].done()) continue;
      store_be(out[message_of[j]].bytes().data(), l[j]);
      --busy_count;
      if (take_next(j)) start(l[j]);
    }
  }
  // One message left (lanes refill while messages remain, so this is the
  // last): one lane alone compresses in about half the time four take
  // (SHA256D64_One against four pairs of SHA256D64_1024).
  for (int j = 0; j < N && busy_count == 1; ++j) {
    if (!busy[j]) continue;
    Lane last[1] = {l[j]};
    while (!feed[j].done()) {
      const std::byte* block = feed[j].next(staging[j]);
      for (int q = 0; q < 4; ++q) last[0].w[q] = load_be(block + 16 * q);
      compress(last);
    }
    store_be(out[message_of[j]].bytes().data(), last[0]);
    busy_count = 0;
  }
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) sha256_of_digests<4>(out + i);
  for (; i < count; ++i) sha256_of_digests<1>(out + i);
}

bool has_sha_ni() noexcept {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const bool ssse3 = (c & (1u << 9)) != 0, sse41 = (c & (1u << 19)) != 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return ssse3 && sse41 && (b & (1u << 29)) != 0;
}

void sha256d64_sha_ni(std::byte* out, const std::byte* in, std::size_t blocks) noexcept {
  std::size_t i = 0;
  for (; i + 4 <= blocks; i += 4) sha256d64_lanes<4>(out + 32 * i, in + 64 * i);
  for (; i + 2 <= blocks; i += 2) sha256d64_lanes<2>(out + 32 * i, in + 64 * i);
  if (i < blocks) sha256d64_lanes<1>(out + 32 * i, in + 64 * i);  // an odd one out
}

}  // namespace blockwire::detail

#else

namespace blockwire::detail {
bool has_sha_ni() noexcept { return false; }
void sha256d64_sha_ni(std::byte*, const std::byte*, std::size_t) noexcept {}
void sha256d_each_sha_ni(const SplitMessage*, std::size_t, Hash256*) noexcept {}
}  // namespace blockwire::detail

#endif
