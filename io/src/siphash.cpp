// SipHash-2-4, on 64-bit words. Both paths share the round; the 32-byte one
// knows its four words and length, so it has no tail to keep.
#include <blockwire/io/siphash.hpp>

#include <bit>
#include <cstring>

namespace blockwire {

namespace {

struct State {
  std::uint64_t v0, v1, v2, v3;

  void round() noexcept {
    v0 += v1;
    v1 = std::rotl(v1, 13);
    v1 ^= v0;
    v0 = std::rotl(v0, 32);
    v2 += v3;
    v3 = std::rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = std::rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = std::rotl(v1, 17);
    v1 ^= v2;
    v2 = std::rotl(v2, 32);
  }
  // Two compression rounds per word ("2-4").
  void compress(std::uint64_t m) noexcept {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  // The last word carries the length's low byte at the top; four rounds.
  std::uint64_t finalize(std::uint64_t last) noexcept {
    compress(last);
    v2 ^= 0xff;
    round();
    round();
    round();
    round();
    return v0 ^ v1 ^ v2 ^ v3;
  }
};

State initial(std::uint64_t k0, std::uint64_t k1) noexcept {
  // "somepseudorandomlygeneratedbytes", as the paper defines them.
  return {0x736f6d6570736575ULL ^ k0, 0x646f72616e646f6dULL ^ k1, 0x6c7967656e657261ULL ^ k0, 0x7465646279746573ULL ^ k1};
}

std::uint64_t load_le64(const std::byte* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

}  // namespace

SipHasher::SipHasher(std::uint64_t k0, std::uint64_t k1) noexcept {
  const State s = initial(k0, k1);
  v_[0] = s.v0;
  v_[1] = s.v1;
  v_[2] = s.v2;
  v_[3] = s.v3;
}

void SipHasher::update(std::span<const std::byte> bytes) noexcept {
  State s{v_[0], v_[1], v_[2], v_[3]};
  const std::byte* p = bytes.data();
  std::size_t n = bytes.size();
  unsigned pending = static_cast<unsigned>(count_ % 8);
  count_ += n;
  // Complete the pending word first.
  while (pending != 0 && n != 0) {
    tail_ |= std::uint64_t{std::to_integer<std::uint8_t>(*p++)} << (8 * pending);
    --n;
    if (++pending == 8) {
      s.compress(tail_);
      tail_ = 0;
      pending = 0;
    }
  }
  for (; n >= 8; n -= 8, p += 8) s.compress(load_le64(p));
  for (unsigned i = 0; i < n; ++i) tail_ |= std::uint64_t{std::to_integer<std::uint8_t>(p[i])} << (8 * i);
  v_[0] = s.v0;
  v_[1] = s.v1;
  v_[2] = s.v2;
  v_[3] = s.v3;
}

void SipHasher::update_word(std::uint64_t word) noexcept {
  State s{v_[0], v_[1], v_[2], v_[3]};
  s.compress(word);
  count_ += 8;
  v_[0] = s.v0;
  v_[1] = s.v1;
  v_[2] = s.v2;
  v_[3] = s.v3;
}

std::uint64_t SipHasher::finish() const noexcept {
  State s{v_[0], v_[1], v_[2], v_[3]};
  return s.finalize(tail_ | (count_ << 56));
}

std::uint64_t siphash(std::uint64_t k0, std::uint64_t k1, const Hash256& hash) noexcept {
  State s = initial(k0, k1);
  const std::byte* p = hash.bytes().data();
  s.compress(load_le64(p));
  s.compress(load_le64(p + 8));
  s.compress(load_le64(p + 16));
  s.compress(load_le64(p + 24));
  return s.finalize(std::uint64_t{32} << 56);
}

}  // namespace blockwire
