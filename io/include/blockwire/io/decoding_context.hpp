// DecodingContext: what decoders read from. It turns a source into exact
// reads, counts the bytes consumed (the offset errors report) and keeps the
// first failure: after it, every read fails and yields zeros, so a decoder
// can read a whole structure and check once, and a count read after a
// failure is 0, never garbage that drives a loop.
//
// The fast path is a bounds check and a copy from a window of bytes in
// memory: the whole input for a span, the buffer of a BufferedReader for a
// stream. Only an exhausted window costs a call, through one function
// pointer (the type-erased slow path).
#pragma once

#include <blockwire/io/buffered_reader.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/reader.hpp>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

namespace blockwire {

class DecodingContext {
 public:
  // All of the input is in memory.
  explicit DecodingContext(std::span<const std::byte> input) noexcept
      : window_(input.data()), pos_(input.data()), end_(input.data() + input.size()) {}

  // A stream: reads in place from `source`'s buffer, refilling it as needed.
  // What the decoder consumed is given back to `source` when the context
  // ends, so the next object starts exactly where this one ended.
  template <class R, std::size_t N>
  explicit DecodingContext(BufferedReader<R, N>& source) noexcept
      : source_(&source), refill_(&refill_from<BufferedReader<R, N>>), release_(&release_to<BufferedReader<R, N>>) {
    const auto bytes = source.buffered();
    window_ = pos_ = bytes.data();
    end_ = bytes.data() + bytes.size();
  }

  // A stream that must not be read past the object, with no buffer to keep
  // what was read ahead: each read asks `source` for exactly the bytes it
  // still needs. `source` must outlive the context.
  explicit DecodingContext(const reader_ref& source) noexcept : window_(nullptr), pos_(nullptr), end_(nullptr), direct_(&source) {}
  // The context keeps the reader_ref's address: a temporary one (or a
  // temporary reader, which would make one) would be gone before the first
  // read. Name the reader_ref instead.
  explicit DecodingContext(reader_ref&& source) = delete;

  DecodingContext(const DecodingContext&) = delete;
  DecodingContext& operator=(const DecodingContext&) = delete;
  ~DecodingContext() {
    if (release_ != nullptr) release_(*this);
  }

  // clang-format off
  template <std::size_t K>
    requires(K != std::dynamic_extent)
  bool read(std::span<std::byte, K> out) {
    // clang-format on
    if (K <= static_cast<std::size_t>(end_ - pos_)) [[likely]] {
      std::memcpy(out.data(), pos_, K);
      pos_ += K;
      return true;
    }
    return read_slow(out);
  }

  bool read(std::span<std::byte> out) {
    if (out.size() <= static_cast<std::size_t>(end_ - pos_)) [[likely]] {
      if (!out.empty()) std::memcpy(out.data(), pos_, out.size());
      pos_ += out.size();
      return true;
    }
    return read_slow(out);
  }

  // Passes over the next `n` bytes without copying them (from memory: a
  // bounds check and a bump). Fails as read() does, at the same offset.
  bool skip(std::uint64_t n) {
    if (n <= static_cast<std::size_t>(end_ - pos_)) [[likely]] {
      pos_ += n;
      return true;
    }
    return skip_slow(n);
  }

  // Appends the next `n` bytes to a byte container (a std::vector<std::byte>).
  // From the window, one insert; from a stream, in bounded chunks, so that
  // memory follows the bytes that arrive, never `n` itself.
  template <class Bytes>
  bool read_append(Bytes& out, std::uint64_t n) {
    if (n <= static_cast<std::size_t>(end_ - pos_)) [[likely]] {
      out.insert(out.end(), pos_, pos_ + n);
      pos_ += n;
      return true;
    }
    constexpr std::size_t chunk = 64 * 1024;
    while (n != 0 && ok()) {
      const std::size_t step = n < chunk ? static_cast<std::size_t>(n) : chunk;
      const std::size_t at = out.size();
      out.resize(at + step);
      read(std::span<std::byte>(out.data() + at, step));
      n -= step;
    }
    return ok();
  }

  // Bytes consumed since the context began: where the next byte comes from.
  std::uint64_t offset() const noexcept { return consumed_ + static_cast<std::size_t>(pos_ - window_); }

  // Input in memory (a span): the next byte's address, so that a decoder
  // can keep a span of the bytes it passed over instead of copying them.
  // Null for a stream, whose window moves.
  const std::byte* position() const noexcept { return streaming() ? nullptr : pos_; }

  // From here until end_capture(), every byte consumed is also copied into
  // `out`, from its first byte on (over what it held; it grows as needed
  // and is never shrunk, so a buffer reused for many objects stops
  // allocating): a decoder that must keep what it parses from a stream
  // parses as from memory (skipping), and the bytes are copied in runs,
  // when the window moves and at the end, not field by field. (From
  // memory, keep a span instead: position().) More than `limit` bytes
  // fails the context with `too_long`: memory follows the bytes that
  // arrived, up to what the decoder can use. Allocation failure propagates.
  void begin_capture(std::vector<std::byte>& out, std::size_t limit, std::error_code too_long) noexcept {
    assert(capture_ == nullptr);  // one capture at a time
    capture_ = &out;
    captured_ = 0;
    capture_limit_ = limit;
    capture_too_long_ = too_long;
    captured_to_ = pos_;
  }
  // How many bytes were captured: the first that many of `out`.
  std::size_t end_capture() {
    keep_captured();
    capture_ = nullptr;
    return captured_;
  }
  // Stops capturing without keeping the bytes since the last run kept (for
  // an unwinding decoder: cannot throw).
  void cancel_capture() noexcept { capture_ = nullptr; }

  static constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();

  // An upper bound on the bytes left: exact for a span, `unbounded` for a
  // stream. A decoder rejects a count that cannot fit in it before
  // allocating anything.
  std::uint64_t remaining_bound() const noexcept {
    if (streaming()) return unbounded;
    return static_cast<std::size_t>(end_ - pos_);
  }

  bool ok() const noexcept { return !failure_; }
  const error& failure() const noexcept { return failure_; }

  // Records a decoder's own finding (a bad value) at the current offset,
  // unless an earlier failure is already recorded.
  void fail(std::error_code what) noexcept {
    if (!failure_) failure_ = error(what, offset());
    end_ = pos_;  // every later read takes the slow path and fails
  }

 private:
  [[gnu::noinline]] bool skip_slow(std::uint64_t n) {
    if (capture_ != nullptr && direct_ != nullptr && n > 64) return skip_into_capture(n);
    std::byte scratch[4096];
    while (n != 0 && ok()) {
      const std::size_t step = n < sizeof scratch ? static_cast<std::size_t>(n) : sizeof scratch;
      read(std::span<std::byte>(scratch, step));
      n -= step;
    }
    return ok();
  }

  // Exact mode, capturing: what is skipped is read straight into the
  // capture (one copy, not two), in bounded chunks so that memory follows
  // the bytes that arrive.
  bool skip_into_capture(std::uint64_t n) {
    constexpr std::size_t chunk = 64 * 1024;
    std::vector<std::byte>* keep = capture_;
    capture_ = nullptr;  // read_direct would copy them again
    while (n != 0 && ok()) {
      const std::size_t step = n < chunk ? static_cast<std::size_t>(n) : chunk;
      if (!capture_room(*keep, step)) break;
      read_slow(std::span<std::byte>(keep->data() + captured_, step));
      captured_ += step;
      n -= step;
    }
    capture_ = keep;
    return ok();
  }

  [[gnu::noinline]] bool read_slow(std::span<std::byte> out) {
    const std::span<std::byte> whole = out;
    while (ok()) {
      const std::size_t window = static_cast<std::size_t>(end_ - pos_);
      const std::size_t n = out.size() < window ? out.size() : window;
      if (n != 0) std::memcpy(out.data(), pos_, n);
      pos_ += n;
      out = out.subspan(n);
      if (out.empty()) return true;
      if (direct_ != nullptr) {
        read_direct(out);
      } else if (refill_ == nullptr || !refill_(*this)) {
        fail(io::errc::truncated);
      }
    }
    // A failed read yields zeros, not the part that was there: a caller
    // that ignores the failure reads no half-filled value.
    if (!whole.empty()) std::memset(whole.data(), 0, whole.size());
    return false;
  }

  bool streaming() const noexcept { return refill_ != nullptr || direct_ != nullptr; }

  // Room for `n` more captured bytes in `out`, grown geometrically; false
  // (and the context failed) past the capture's limit.
  bool capture_room(std::vector<std::byte>& out, std::size_t n) {
    if (n > capture_limit_ - captured_) {
      fail(capture_too_long_);
      return false;
    }
    if (n > out.size() - captured_) [[unlikely]] {
      const std::size_t want = captured_ + n;
      out.resize(want > 2 * out.size() ? want : 2 * out.size());
    }
    return true;
  }
  bool capture(std::span<const std::byte> bytes) {
    if (!capture_room(*capture_, bytes.size())) return false;
    std::memcpy(capture_->data() + captured_, bytes.data(), bytes.size());
    captured_ += bytes.size();
    return true;
  }

  // The window's bytes consumed since the capture began or was last kept.
  bool keep_captured() {
    const bool kept = capture_ == nullptr || pos_ == captured_to_ || capture(std::span<const std::byte>(captured_to_, pos_));
    captured_to_ = pos_;
    return kept;
  }

  // Exact mode: one read_some straight into the destination; the loop in
  // read_slow asks again for whatever is still missing.
  void read_direct(std::span<std::byte>& out) {
    auto got = direct_->read_some(out);
    if (!got) {
      failure_ = error(got.error().code(), offset());
    } else if (got.value() == 0) {
      fail(io::errc::truncated);
    } else {
      consumed_ += got.value();
      if (capture_ != nullptr) capture(out.first(got.value()));
      out = out.subspan(got.value());
    }
  }

  // Gives the consumed bytes back to the source and takes a fresh window.
  // False at the end of the stream or on an I/O error (then recorded).
  template <class Source>
  static bool refill_from(DecodingContext& self) {
    auto& source = *static_cast<Source*>(self.source_);
    if (!self.keep_captured()) return false;
    release_to<Source>(self);
    auto got = source.fill();
    if (!got) {
      self.failure_ = error(got.error().code(), self.offset());
      return false;
    }
    const auto bytes = source.buffered();
    self.window_ = self.pos_ = self.captured_to_ = bytes.data();
    self.end_ = bytes.data() + bytes.size();
    return got.value() != 0;
  }

  template <class Source>
  static void release_to(DecodingContext& self) noexcept {
    const auto used = static_cast<std::size_t>(self.pos_ - self.window_);
    static_cast<Source*>(self.source_)->consume(used);
    self.consumed_ += used;
    self.window_ = self.pos_;
  }

  const std::byte* window_;  // where the current window began
  const std::byte* pos_;
  const std::byte* end_;
  std::uint64_t consumed_ = 0;  // bytes consumed before the current window
  void* source_ = nullptr;
  const reader_ref* direct_ = nullptr;
  bool (*refill_)(DecodingContext&) = nullptr;
  void (*release_)(DecodingContext&) = nullptr;
  error failure_{};
  std::vector<std::byte>* capture_ = nullptr;  // see begin_capture
  std::size_t captured_ = 0;                   // bytes of *capture_ that are the capture's
  std::size_t capture_limit_ = 0;
  std::error_code capture_too_long_;
  const std::byte* captured_to_ = nullptr;  // in the window: bytes before it are in *capture_
};

}  // namespace blockwire
