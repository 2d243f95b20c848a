// SHA-256 in plain vector arithmetic, sixteen messages side by side: word i
// of every message's state in one 512-bit register, so that each of the 64
// rounds is a few instructions for all sixteen. AVX-512's rotates and its
// three-input logic (VPTERNLOGD: Ch, Maj and the three-way XORs of the
// sigmas in one instruction each) make a round about sixteen instructions.
// Which is faster depends on the CPU: on an AMD EPYC of family 26 (Zen 5,
// full-width AVX-512) SHA256D64_1024 measured 43 ns a merkle pair against
// 50 with the SHA extensions four lanes at a time; on one of family 25
// (Zen 4, AVX-512 in two halves) 61 ns against 48. So sha256d64 times both
// once where both are there (sha256.cpp). Two groups of sixteen
// interleaved gained 5% more in a trial, for twice the registers; not kept. Compiled for
// AVX-512 function by function; has_avx512() guards the calls.
#include "sha256_avx512.hpp"

#include "sha256_block_feed.hpp"
#include "sha256_constants.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
// GCC 12's AVX-512 header reads a deliberately undefined register in its
// _mm512_undefined_* helpers, which -Wuninitialized and (at other
// optimisation levels) -Wmaybe-uninitialized report in the header.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cstdint>
#include <cstring>

#define BLOCKWIRE_AVX512 __attribute__((target("avx512f,avx512bw")))
#define BLOCKWIRE_AVX512_INLINE __attribute__((target("avx512f,avx512bw"), always_inline)) inline

namespace blockwire::detail {
namespace {

constexpr const std::uint32_t (&k)[64] = sha256_k;
constexpr const std::uint32_t (&initial_state)[8] = sha256_initial_state;

// The padding block after a 64-byte message (0x80, zeros, length 512) is
// the same in every lane: its whole schedule, round constants added, is
// computed once here, so that its compression is the rounds alone.
constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
struct Schedule {
  std::uint32_t wk[64];
};
constexpr Schedule padding_64_schedule() {
  std::uint32_t w[64] = {0x80000000u, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512};
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  Schedule s{};
  for (int i = 0; i < 64; ++i) s.wk[i] = w[i] + k[i];
  return s;
}
constexpr Schedule padding_64 = padding_64_schedule();

using V = __m512i;

// VPTERNLOGD truth tables: 0x96 is x ^ y ^ z, 0xca is Ch (x ? y : z),
// 0xe8 is Maj (the majority of x, y, z).
BLOCKWIRE_AVX512_INLINE V add(V a, V b) { return _mm512_add_epi32(a, b); }
BLOCKWIRE_AVX512_INLINE V splat(std::uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
BLOCKWIRE_AVX512_INLINE V big_sigma0(V a) {
  return _mm512_ternarylogic_epi32(_mm512_ror_epi32(a, 2), _mm512_ror_epi32(a, 13), _mm512_ror_epi32(a, 22), 0x96);
}
BLOCKWIRE_AVX512_INLINE V big_sigma1(V e) {
  return _mm512_ternarylogic_epi32(_mm512_ror_epi32(e, 6), _mm512_ror_epi32(e, 11), _mm512_ror_epi32(e, 25), 0x96);
}
BLOCKWIRE_AVX512_INLINE V small_sigma0(V x) {
  return _mm512_ternarylogic_epi32(_mm512_ror_epi32(x, 7), _mm512_ror_epi32(x, 18), _mm512_srli_epi32(x, 3), 0x96);
}
BLOCKWIRE_AVX512_INLINE V small_sigma1(V x) {
  return _mm512_ternarylogic_epi32(_mm512_ror_epi32(x, 17), _mm512_ror_epi32(x, 19), _mm512_srli_epi32(x, 10), 0x96);
}

// One round. The caller passes the eight words in rotated order each round,
// so they change roles by name instead of being moved.
BLOCKWIRE_AVX512_INLINE void round(V a, V b, V c, V& d, V e, V f, V g, V& h, V wk) {
  const V t1 = add(add(h, big_sigma1(e)), add(_mm512_ternarylogic_epi32(e, f, g, 0xca), wk));
  const V t2 = add(big_sigma0(a), _mm512_ternarylogic_epi32(a, b, c, 0xe8));
  d = add(d, t1);
  h = add(t1, t2);
}

// The 64 rounds of one block into `s`; `source.wk(i)` gives round i's
// message word plus its constant.
template <class Source>
BLOCKWIRE_AVX512_INLINE void compress(V (&s)[8], Source& source) {
  V a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
#pragma GCC unroll 8
  for (int i = 0; i < 64; i += 8) {
    round(a, b, c, d, e, f, g, h, source.wk(i));
    round(h, a, b, c, d, e, f, g, source.wk(i + 1));
    round(g, h, a, b, c, d, e, f, source.wk(i + 2));
    round(f, g, h, a, b, c, d, e, source.wk(i + 3));
    round(e, f, g, h, a, b, c, d, source.wk(i + 4));
    round(d, e, f, g, h, a, b, c, source.wk(i + 5));
    round(c, d, e, f, g, h, a, b, source.wk(i + 6));
    round(b, c, d, e, f, g, h, a, source.wk(i + 7));
  }
  const V after[8] = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) s[i] = add(s[i], after[i]);
}

// A block's own words, the schedule expanded in place sixteen at a time.
struct Expanded {
  V (&w)[16];
  BLOCKWIRE_AVX512_INLINE V wk(int i) {
    if (i >= 16) {
      w[i & 15] = add(add(w[i & 15], small_sigma0(w[(i + 1) & 15])), add(w[(i + 9) & 15], small_sigma1(w[(i + 14) & 15])));
    }
    return add(w[i & 15], splat(k[i]));
  }
};

// The padding block after a 64-byte message.
struct Padding64 {
  BLOCKWIRE_AVX512_INLINE V wk(int i) { return splat(padding_64.wk[i]); }
};

BLOCKWIRE_AVX512_INLINE void start(V (&s)[8]) {
  for (int i = 0; i < 8; ++i) s[i] = splat(initial_state[i]);
}

}  // namespace

BLOCKWIRE_AVX512 void sha256d64_avx512_16(std::byte* out, const std::byte* in) noexcept {
  // Word t of lane j is the big-endian word at in + 64 j + 4 t: gathered,
  // then byte-swapped. Every block is read here, before any output.
  const V byte_swap = _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3));
  const V lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const V block_at = _mm512_slli_epi32(lanes, 6);   // 64 j
  const V digest_at = _mm512_slli_epi32(lanes, 5);  // 32 j
  V w[16];
  for (int t = 0; t < 16; ++t) w[t] = _mm512_shuffle_epi8(_mm512_i32gather_epi32(block_at, in + 4 * t, 1), byte_swap);

  V s[8];
  start(s);
  Expanded message{w};
  compress(s, message);
  Padding64 padding;
  compress(s, padding);

  // The second hash's one block: the digest, 0x80, zeros, length 256 bits.
  for (int t = 0; t < 8; ++t) w[t] = s[t];
  w[8] = splat(0x80000000u);
  for (int t = 9; t < 15; ++t) w[t] = _mm512_setzero_si512();
  w[15] = splat(256);
  start(s);
  Expanded digest{w};
  compress(s, digest);
  for (int t = 0; t < 8; ++t) _mm512_i32scatter_epi32(out + 4 * t, digest_at, _mm512_shuffle_epi8(s[t], byte_swap), 1);
}

namespace {

// Rows to columns: w[j] holds lane j's sixteen words on entry, and word t
// of every lane on return. Four rounds of sixteen shuffles: 32-bit and
// 64-bit interleaves make 4x4 transposes inside each 128-bit quarter, then
// the quarters are exchanged between registers.
BLOCKWIRE_AVX512_INLINE void transpose(V (&w)[16]) {
  V t[16], q[16];
  for (int j = 0; j < 16; j += 2) {
    t[j] = _mm512_unpacklo_epi32(w[j], w[j + 1]);
    t[j + 1] = _mm512_unpackhi_epi32(w[j], w[j + 1]);
  }
  // q[4 g + c]: in quarter L, rows 4g..4g+3 of word 4L + c.
  for (int g = 0; g < 4; ++g) {
    q[4 * g + 0] = _mm512_unpacklo_epi64(t[4 * g], t[4 * g + 2]);
    q[4 * g + 1] = _mm512_unpackhi_epi64(t[4 * g], t[4 * g + 2]);
    q[4 * g + 2] = _mm512_unpacklo_epi64(t[4 * g + 1], t[4 * g + 3]);
    q[4 * g + 3] = _mm512_unpackhi_epi64(t[4 * g + 1], t[4 * g + 3]);
  }
  for (int c = 0; c < 4; ++c) {
    const V x0 = _mm512_shuffle_i32x4(q[c], q[4 + c], 0x44);  // quarters 0, 1 of row groups 0 and 1
    const V x1 = _mm512_shuffle_i32x4(q[c], q[4 + c], 0xee);  // quarters 2, 3
    const V x2 = _mm512_shuffle_i32x4(q[8 + c], q[12 + c], 0x44);
    const V x3 = _mm512_shuffle_i32x4(q[8 + c], q[12 + c], 0xee);
    w[c] = _mm512_shuffle_i32x4(x0, x2, 0x88);
    w[4 + c] = _mm512_shuffle_i32x4(x0, x2, 0xdd);
    w[8 + c] = _mm512_shuffle_i32x4(x1, x3, 0x88);
    w[12 + c] = _mm512_shuffle_i32x4(x1, x3, 0xdd);
  }
}

// SHA-256 of the 32-byte digests at out[0..16), in place: the second hash
// of SHA256d, sixteen at a time. The first digests are there as the lanes
// left them, eight native 32-bit words each (no byte order to undo); the
// results are written as bytes.
BLOCKWIRE_AVX512_INLINE void sha256_of_digests_16(Hash256* out, V byte_swap) {
  const V lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const V digest_at = _mm512_slli_epi32(lanes, 5);  // 32 j
  std::byte* base = out[0].bytes().data();
  static_assert(sizeof(Hash256) == 32);
  V w[16];
  for (int t = 0; t < 8; ++t) w[t] = _mm512_i32gather_epi32(digest_at, base + 4 * t, 1);
  w[8] = splat(0x80000000u);
  for (int t = 9; t < 15; ++t) w[t] = _mm512_setzero_si512();
  w[15] = splat(256);
  V s[8];
  start(s);
  Expanded digest{w};
  compress(s, digest);
  for (int t = 0; t < 8; ++t) _mm512_i32scatter_epi32(base + 4 * t, digest_at, _mm512_shuffle_epi8(s[t], byte_swap), 1);
}

void store_words(Hash256& out, const std::uint32_t (&words)[8]) noexcept { std::memcpy(out.bytes().data(), words, 32); }

}  // namespace

namespace {

using FinishAlone = void (*)(std::uint32_t (&state)[8], BlockFeed& feed);

// At most lpt_batch messages.
BLOCKWIRE_AVX512 void sha256d_each_batch(const SplitMessage* messages, std::size_t count, Hash256* out, FinishAlone finish_alone) noexcept {
  std::uint32_t order[lpt_batch];
  longest_first(messages, count, order);
  // Sixteen lanes, each hashing one message a block at a time; a lane whose
  // message ends stores its first digest and takes the next message, so
  // the lanes stay full while messages remain. Once they run out, the few
  // messages still going are finished one at a time by `finish_alone`:
  // with four or fewer busy lanes, sixteen-lane rounds cost more than the
  // busy lanes' blocks alone.
  constexpr int N = 16;
  constexpr int few = 4;
  const V byte_swap = _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3));
  alignas(64) static constexpr std::byte idle[64] = {};
  BlockFeed feed[N];
  std::size_t message_of[N];
  bool busy[N];
  // Most blocks lie whole in a message's bytes: read in place, a pointer
  // and a count a lane, the feed called only for the rest.
  const std::byte* whole_at[N];
  std::size_t whole_left[N];
  alignas(64) std::byte staging[N][64];         // a block a feed assembles
  alignas(64) std::uint32_t state[8][N];        // the lanes' states, at the end
  alignas(64) std::uint32_t digest_at[N] = {};  // where each lane's digest goes: bytes from out
  std::byte* const out_bytes = reinterpret_cast<std::byte*>(out);
  static_assert(sizeof(Hash256) == 32 && 32 * lpt_batch <= UINT32_MAX);
  std::size_t next = 0;
  int busy_count = 0;
  const auto take_whole = [&](int j) {
    whole_left[j] = feed[j].whole_blocks();
    if (whole_left[j] == 0) return;
    whole_at[j] = feed[j].whole_at();
    feed[j].skip_whole(whole_left[j]);
  };
  const auto take_next = [&](int j) {
    busy[j] = next < count;
    whole_left[j] = 0;
    if (!busy[j]) return;
    message_of[j] = order[next++];
    digest_at[j] = static_cast<std::uint32_t>(32 * message_of[j]);
    feed[j] = BlockFeed(messages[message_of[j]]);
    ++busy_count;
    take_whole(j);
  };
  for (int j = 0; j < N; ++j) take_next(j);
  V s[8];
  start(s);
  while (busy_count > few) {
    V w[16];
    unsigned fed = 0;  // lanes whose block came from their feed: only those can have ended
    for (int j = 0; j < N; ++j) {
      const std::byte* block = idle;  // an idle lane's: hashed, never read
      if (whole_left[j] != 0) {
        block = whole_at[j];
        whole_at[j] += 64;
        --whole_left[j];
      } else if (busy[j]) {
        block = feed[j].next(staging[j]);
        fed |= 1u << j;
      }
      w[j] = _mm512_shuffle_epi8(_mm512_loadu_si512(block), byte_swap);
    }
    transpose(w);
    Expanded message{w};
    compress(s, message);
    __mmask16 done = 0;
    for (unsigned m = fed; m != 0; m &= m - 1) {
      const int j = __builtin_ctz(m);
      if (feed[j].done()) {
        done = static_cast<__mmask16>(done | (1u << j));
      } else {
        take_whole(j);  // the next run's whole blocks, if any
      }
    }
    if (done == 0) continue;
    // The finished lanes' digests straight from the registers to their
    // messages' places, and those lanes started again.
    const V at = _mm512_load_si512(digest_at);
    for (int t = 0; t < 8; ++t) {
      _mm512_mask_i32scatter_epi32(out_bytes + 4 * t, done, at, s[t], 1);
      s[t] = _mm512_mask_mov_epi32(s[t], done, splat(initial_state[t]));
    }
    for (unsigned m = done; m != 0; m &= m - 1) {
      --busy_count;
      take_next(__builtin_ctz(m));
    }
  }
  for (int t = 0; t < 8; ++t) _mm512_store_si512(state[t], s[t]);
  for (int j = 0; j < N; ++j) {
    if (!busy[j]) continue;
    std::uint32_t words[8];
    for (int t = 0; t < 8; ++t) words[t] = state[t][j];
    feed[j].unskip_whole(whole_left[j]);  // whole blocks taken but not yet read go back to the feed
    finish_alone(words, feed[j]);
    store_words(out[message_of[j]], words);
  }
  std::size_t i = 0;
  for (; i + N <= count; i += N) sha256_of_digests_16(out + i, byte_swap);
  if (i < count) {  // the rest in sixteen lanes too, some idle
    Hash256 rest[N]{};
    std::copy(out + i, out + count, rest);
    sha256_of_digests_16(rest, byte_swap);
    std::copy(rest, rest + (count - i), out + i);
  }
}

}  // namespace

void sha256d_each_avx512(const SplitMessage* messages, std::size_t count, Hash256* out, FinishAlone finish_alone) noexcept {
  // A batch at a time, one after another: each schedules its own messages
  // (and keeps its order on the stack, 40 KiB, once).
  for (std::size_t first = 0; first < count; first += lpt_batch) {
    sha256d_each_batch(messages + first, std::min(lpt_batch, count - first), out + first, finish_alone);
  }
}

bool has_avx512() noexcept {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 27)) == 0) return false;  // OSXSAVE
  // The OS must save the opmask and all 512 bits of the 32 registers (XCR0
  // bits 1, 2, 5, 6, 7), or using them would corrupt other threads' state.
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0xe6u) != 0xe6u) return false;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return (b & (1u << 16)) != 0 && (b & (1u << 30)) != 0;  // AVX512F, AVX512BW
}

}  // namespace blockwire::detail

#else

namespace blockwire::detail {
bool has_avx512() noexcept { return false; }
void sha256d64_avx512_16(std::byte*, const std::byte*) noexcept {}
void sha256d_each_avx512(const SplitMessage*, std::size_t, Hash256*, void (*)(std::uint32_t (&)[8], BlockFeed&)) noexcept {}
}  // namespace blockwire::detail

#endif
