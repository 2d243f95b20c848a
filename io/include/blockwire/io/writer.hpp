// Writer: anything that takes bytes. writer_ref: a non-owning, type-erased
// reference to one, two words wide, so that compiled entry points can write to
// any sink without being templates.
#pragma once

#include <blockwire/io/error.hpp>

#include <concepts>
#include <cstddef>
#include <span>
#include <type_traits>

namespace blockwire {

// A sink writes all of `bytes` or reports why it could not.
template <class W>
concept Writer = requires(W& w, std::span<const std::byte> bytes) {
  { w.write(bytes) } -> std::same_as<result<void>>;
};

// A sink that may scramble the bytes it is handed when they are the
// caller's scratch (a BufferedWriter's full buffer): an XOR writer then
// works in place instead of copying.
template <class W>
concept InPlaceWriter = Writer<W> && requires(W& w, std::span<std::byte> scratch) {
  { w.write_in_place(scratch) } -> std::same_as<result<void>>;
};

class writer_ref {
 public:
  // From any Writer but writer_ref itself: copying a writer_ref copies it,
  // it never wraps one writer_ref inside another.
  // clang-format off
  template <class W>
    requires(Writer<W> && !std::same_as<std::remove_cv_t<W>, writer_ref>)
  writer_ref(W& sink) noexcept  // NOLINT: implicit, like std::function_ref
      // clang-format on
      : object_(const_cast<void*>(static_cast<const void*>(__builtin_addressof(sink)))), write_(&write_to<W>) {}

  result<void> write(std::span<const std::byte> bytes) const { return write_(object_, bytes, false); }
  // Scratch bytes reach the sink's write_in_place when it has one, through
  // the same pointer: the in-place path survives type erasure.
  result<void> write_in_place(std::span<std::byte> scratch) const { return write_(object_, scratch, true); }

 private:
  template <class W>
  static result<void> write_to(void* object, std::span<const std::byte> bytes, bool scratch) {
    if constexpr (InPlaceWriter<W>) {
      if (scratch) return static_cast<W*>(object)->write_in_place({const_cast<std::byte*>(bytes.data()), bytes.size()});
    }
    return static_cast<W*>(object)->write(bytes);
  }

  void* object_;
  result<void> (*write_)(void*, std::span<const std::byte>, bool scratch);
};

static_assert(InPlaceWriter<writer_ref>);
static_assert(std::is_trivially_copyable_v<writer_ref>);
static_assert(sizeof(writer_ref) == 2 * sizeof(void*));

}  // namespace blockwire
