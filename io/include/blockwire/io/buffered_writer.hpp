// BufferedWriter: where the many 1-, 4- and 8-byte writes of the wire format
// land. The fast path is a compare and a copy, inline; only a full buffer
// costs a call to the sink. The first sink error is kept, later writes are
// dropped, and flush() reports it: nothing is lost silently.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/writer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace blockwire {

// 64 KiB: a syscall per 16 KiB made appending a block to a blk file twice as
// slow here (WriteBlockBench_Append, 16 vs 64 KiB); encoding and decoding
// from memory do not notice the difference.
inline constexpr std::size_t default_buffer_size = 64 * 1024;

// A sink that owns memory can lend it to the buffer, so that bytes are
// written once, in place (the idea of {fmt}'s container_buffer).
// lend(n) returns writable storage of at least n bytes at the sink's end;
// commit(n) keeps the first n bytes of the storage last lent, drops the rest.
template <class W>
concept LendingWriter = Writer<W> && requires(W& w, std::size_t n) {
  { w.lend(n) } -> std::same_as<std::span<std::byte>>;
  w.commit(n);
};

// W is a Writer or a reference to one (BufferedWriter<FileWriter&> writes to
// a file it does not own). N = 0 gives an unbuffered writer with the same
// error handling: every write goes straight to the sink.
// clang-format off
template <class W, std::size_t N = default_buffer_size>
  requires Writer<std::remove_reference_t<W>>
class BufferedWriter {
  // clang-format on
  static constexpr bool lending = LendingWriter<std::remove_reference_t<W>> && N > 0;
  static constexpr bool unbuffered = N == 0;

 public:
  explicit BufferedWriter(W sink) noexcept(std::is_nothrow_move_constructible_v<W>) : sink_(static_cast<W&&>(sink)) {
    if constexpr (!lending) {
      begin_ = pos_ = storage_.data();
      end_ = storage_.data() + N;
    }
  }
  // The buffer points into itself (or into lent storage): not copyable.
  BufferedWriter(const BufferedWriter&) = delete;
  BufferedWriter& operator=(const BufferedWriter&) = delete;
  // No flush here: an error in a destructor would have nowhere to go.
  ~BufferedWriter() = default;

  // Fixed-size writes (a byte, an integer): the size is a constant, so the
  // copy compiles to a store or two.
  // clang-format off
  template <std::size_t K>
    requires(K != std::dynamic_extent)
  void write(std::span<const std::byte, K> bytes) {
    // clang-format on
    if constexpr (unbuffered) {
      write_through(bytes);
    } else if (K <= static_cast<std::size_t>(end_ - pos_)) [[likely]] {
      std::memcpy(pos_, bytes.data(), K);
      pos_ += K;
    } else {
      write_slow(bytes);
    }
  }

  void write(std::span<const std::byte> bytes) {
    if constexpr (unbuffered) {
      write_through(bytes);
    } else if (bytes.size() <= static_cast<std::size_t>(end_ - pos_)) [[likely]] {
      if (!bytes.empty()) std::memcpy(pos_, bytes.data(), bytes.size());
      pos_ += bytes.size();
    } else {
      write_slow(bytes);
    }
  }

  // Hands everything buffered to the sink. Returns the first error any write
  // met, now or before; after an error the writer accepts and drops bytes.
  result<void> flush() {
    if (!error_) {
      if constexpr (lending) {
        commit_lent();
      } else if (pos_ != begin_) {
        drain();
      }
    }
    if (error_) return error_;
    return success();
  }

  bool failed() const noexcept { return static_cast<bool>(error_); }
  // Bytes accepted so far, buffered or not (the position in the output).
  std::uint64_t bytes_written() const noexcept { return flushed_ + static_cast<std::size_t>(pos_ - begin_); }

 private:
  // Unbuffered: straight to the sink, inline, with the same error rules.
  void write_through(std::span<const std::byte> bytes) {
    if (error_) return;
    flushed_ += bytes.size();
    if (auto r = sink_.write(bytes); !r) error_ = r.error();
  }

  [[gnu::noinline]] void write_slow(std::span<const std::byte> bytes) {
    if (error_) return;
    if constexpr (lending) {
      commit_lent();
      const std::span<std::byte> room = sink_.lend(bytes.size() > N ? bytes.size() : N);
      begin_ = pos_ = room.data();
      end_ = room.data() + room.size();
      std::memcpy(pos_, bytes.data(), bytes.size());
      pos_ += bytes.size();
    } else {
      if (pos_ != begin_) {  // top up the buffer, then hand it over whole
        const std::size_t room = static_cast<std::size_t>(end_ - pos_);
        std::memcpy(pos_, bytes.data(), room);
        pos_ = end_;
        bytes = bytes.subspan(room);
        if (!drain()) return;
      }
      if (bytes.size() >= N) {  // too large to be worth buffering
        write_through(bytes);
      } else {
        std::memcpy(pos_, bytes.data(), bytes.size());
        pos_ += bytes.size();
      }
    }
  }

  bool drain() {
    const std::span<std::byte> full{begin_, pos_};
    flushed_ += full.size();
    pos_ = begin_;
    if (auto r = hand_over(full); !r) {
      error_ = r.error();
      return false;
    }
    return true;
  }

  // The buffer is scratch once handed over: a sink that transforms bytes
  // (XOR obfuscation) may do it in place.
  result<void> hand_over(std::span<std::byte> full) {
    if constexpr (InPlaceWriter<std::remove_reference_t<W>>) {
      return sink_.write_in_place(full);
    } else {
      return sink_.write(full);
    }
  }

  void commit_lent() {
    if (begin_ == nullptr) return;
    flushed_ += static_cast<std::size_t>(pos_ - begin_);
    sink_.commit(static_cast<std::size_t>(pos_ - begin_));
    begin_ = pos_ = end_ = nullptr;
  }

  W sink_;
  std::byte* begin_ = nullptr;
  std::byte* pos_ = nullptr;
  std::byte* end_ = nullptr;
  std::uint64_t flushed_ = 0;
  error error_{};
  // Uninitialised on purpose: every byte is written before it is read.
  std::array<std::byte, lending ? 0 : N> storage_;
};

// What compiled code takes to write into the caller's buffer (as {fmt}'s
// vformat_to takes a buffer): a buffer in front of any sink.
using StreamWriter = BufferedWriter<writer_ref>;

}  // namespace blockwire
