// BufferedReader: a buffer on top of any Reader's read_some, so that small
// reads do not each cost a call into the source (a syscall, for a file).
// It is a Reader itself, and it lends its buffer to a DecodingContext, which
// reads in place and gives back exactly what it used.
#pragma once

#include <blockwire/io/buffered_writer.hpp>  // default_buffer_size
#include <blockwire/io/error.hpp>
#include <blockwire/io/reader.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>

namespace blockwire {

// clang-format off
template <class R, std::size_t N = default_buffer_size>
  requires(Reader<std::remove_reference_t<R>> && N > 0)
class BufferedReader {
  // clang-format on
 public:
  explicit BufferedReader(R source) noexcept(std::is_nothrow_move_constructible_v<R>) : source_(static_cast<R&&>(source)) {}
  BufferedReader(const BufferedReader&) = delete;
  BufferedReader& operator=(const BufferedReader&) = delete;

  result<std::size_t> read_some(std::span<std::byte> out) {
    if (begin_ == end_) {
      if (out.size() >= N) return source_.read_some(out);  // nothing to gain by copying
      auto got = fill();
      if (!got) return got.error();
    }
    const std::size_t n = out.size() < end_ - begin_ ? out.size() : end_ - begin_;
    if (n != 0) std::memcpy(out.data(), storage_.data() + begin_, n);
    begin_ += n;
    return n;
  }

  // The bytes read from the source and not yet consumed.
  std::span<const std::byte> buffered() const noexcept { return {storage_.data() + begin_, end_ - begin_}; }
  void consume(std::size_t n) noexcept { begin_ += n; }

  // Moves what is buffered to the front and reads once from the source into
  // the free space. Returns how many bytes came: 0 at the end of the stream
  // (or when the buffer is already full).
  result<std::size_t> fill() {
    if (begin_ != 0) {
      std::memmove(storage_.data(), storage_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    auto got = source_.read_some(std::span<std::byte>(storage_).subspan(end_));
    if (got) end_ += got.value();
    return got;
  }

 private:
  R source_;
  std::size_t begin_ = 0;  // first unconsumed byte
  std::size_t end_ = 0;    // one past the last byte read
  std::array<std::byte, N> storage_;
};

// A buffer in front of any source: what the streaming decoders read from.
using StreamReader = BufferedReader<reader_ref>;

}  // namespace blockwire
