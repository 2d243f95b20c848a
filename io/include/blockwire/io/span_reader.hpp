// SpanReader: reads from bytes in memory that the caller owns.
#pragma once

#include <blockwire/io/error.hpp>

#include <cstddef>
#include <cstring>
#include <span>

namespace blockwire {

class SpanReader {
 public:
  explicit SpanReader(std::span<const std::byte> in) noexcept : in_(in) {}

  result<std::size_t> read_some(std::span<std::byte> buffer) noexcept {
    const std::size_t n = buffer.size() < in_.size() ? buffer.size() : in_.size();
    if (n != 0) std::memcpy(buffer.data(), in_.data(), n);
    in_ = in_.subspan(n);
    return n;
  }

  std::span<const std::byte> remaining() const noexcept { return in_; }

 private:
  std::span<const std::byte> in_;
};

}  // namespace blockwire
