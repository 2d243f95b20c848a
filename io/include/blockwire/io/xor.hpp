// XOR obfuscation by file offset, as Bitcoin Core applies its 8-byte key to
// blk*.dat and rev*.dat: the byte at offset o is XORed with key[o % 8].
// A machine word at a time over whole buffers, never byte by byte.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/reader.hpp>
#include <blockwire/io/writer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace blockwire {

using XorKey = std::array<std::byte, 8>;

inline bool is_zero(const XorKey& key) noexcept {
  std::uint64_t k;
  std::memcpy(&k, key.data(), 8);
  return k == 0;
}

namespace detail {

// The key as a word whose first byte applies at `offset`.
inline std::uint64_t key_word(const XorKey& key, std::uint64_t offset) noexcept {
  std::array<std::byte, 8> rotated;
  for (std::size_t i = 0; i < 8; ++i) rotated[i] = key[(offset + i) % 8];
  std::uint64_t word;
  std::memcpy(&word, rotated.data(), 8);
  return word;
}

}  // namespace detail

// dst = src XOR key, for bytes at file offset `offset` on; dst may be src.
inline void xor_copy(std::byte* dst, const std::byte* src, std::size_t n, const XorKey& key, std::uint64_t offset) noexcept {
  const std::uint64_t k = detail::key_word(key, offset);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {  // whole words: the compiler vectorises this loop
    std::uint64_t w;
    std::memcpy(&w, src + i, 8);
    w ^= k;
    std::memcpy(dst + i, &w, 8);
  }
  std::array<std::byte, 8> tail_key;
  std::memcpy(tail_key.data(), &k, 8);
  for (std::size_t j = 0; i < n; ++i, ++j) dst[i] = src[i] ^ tail_key[j & 7];  // j < 8 here
}

inline void xor_in_place(std::span<std::byte> data, const XorKey& key, std::uint64_t offset) noexcept {
  xor_copy(data.data(), data.data(), data.size(), key, offset);
}

// Obfuscates what it writes to W (a Writer or a reference to one).
// `offset`: the file offset of the first byte written (the file's size when
// appending). Bytes handed over as scratch are XORed in place; const bytes
// are XORed while being copied into a chunk of its own.
template <class W>
class XorWriter {
 public:
  XorWriter(W sink, const XorKey& key, std::uint64_t offset = 0) noexcept(std::is_nothrow_move_constructible_v<W>)
      : sink_(static_cast<W&&>(sink)), key_(key), offset_(offset) {}

  result<void> write_in_place(std::span<std::byte> scratch) {
    xor_in_place(scratch, key_, offset_);
    offset_ += scratch.size();
    return sink_.write(scratch);
  }

  result<void> write(std::span<const std::byte> bytes) {
    std::array<std::byte, 16 * 1024> chunk;
    while (!bytes.empty()) {
      const std::size_t n = bytes.size() < chunk.size() ? bytes.size() : chunk.size();
      xor_copy(chunk.data(), bytes.data(), n, key_, offset_);
      offset_ += n;
      if (auto r = sink_.write(std::span<const std::byte>(chunk.data(), n)); !r) return r;
      bytes = bytes.subspan(n);
    }
    return success();
  }

  std::uint64_t offset() const noexcept { return offset_; }

 private:
  W sink_;
  XorKey key_;
  std::uint64_t offset_;
};

// Removes the obfuscation from what it reads: in place, in the caller's buffer.
template <class R>
class XorReader {
 public:
  XorReader(R source, const XorKey& key, std::uint64_t offset = 0) noexcept(std::is_nothrow_move_constructible_v<R>)
      : source_(static_cast<R&&>(source)), key_(key), offset_(offset) {}

  result<std::size_t> read_some(std::span<std::byte> buffer) {
    auto got = source_.read_some(buffer);
    if (got) {
      xor_in_place(buffer.first(got.value()), key_, offset_);
      offset_ += got.value();
    }
    return got;
  }

  std::uint64_t offset() const noexcept { return offset_; }

 private:
  R source_;
  XorKey key_;
  std::uint64_t offset_;
};

}  // namespace blockwire
