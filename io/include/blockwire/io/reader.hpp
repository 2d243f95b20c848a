// Reader: anything that gives bytes. reader_ref: a non-owning, type-erased
// reference to one, two words wide.
#pragma once

#include <blockwire/io/error.hpp>

#include <concepts>
#include <cstddef>
#include <span>
#include <type_traits>

namespace blockwire {

// read_some fills a prefix of `buffer` and says how long it is. Fewer bytes
// than asked for is normal (sockets, pipes); 0 means the end of the stream.
template <class R>
concept Reader = requires(R& r, std::span<std::byte> buffer) {
  { r.read_some(buffer) } -> std::same_as<result<std::size_t>>;
};

class reader_ref {
 public:
  // clang-format off
  template <class R>
    requires(Reader<R> && !std::same_as<std::remove_cv_t<R>, reader_ref>)
  reader_ref(R& source) noexcept  // NOLINT: implicit, like std::function_ref
      // clang-format on
      : object_(const_cast<void*>(static_cast<const void*>(__builtin_addressof(source)))), read_some_(&read_from<R>) {}

  result<std::size_t> read_some(std::span<std::byte> buffer) const { return read_some_(object_, buffer); }

 private:
  template <class R>
  static result<std::size_t> read_from(void* object, std::span<std::byte> buffer) {
    return static_cast<R*>(object)->read_some(buffer);
  }

  void* object_;
  result<std::size_t> (*read_some_)(void*, std::span<std::byte>);
};

static_assert(Reader<reader_ref>);
static_assert(std::is_trivially_copyable_v<reader_ref>);
static_assert(sizeof(reader_ref) == 2 * sizeof(void*));

}  // namespace blockwire
