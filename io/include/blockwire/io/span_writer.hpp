// SpanWriter: writes into a fixed buffer; running out of room is an error.
#pragma once

#include <blockwire/io/error.hpp>

#include <cstddef>
#include <cstring>
#include <span>

namespace blockwire {

class SpanWriter {
 public:
  explicit SpanWriter(std::span<std::byte> out) noexcept : out_(out) {}

  // Writes what fits; reports io::errc::no_room if that is not all of `bytes`.
  result<void> write(std::span<const std::byte> bytes) noexcept {
    const std::size_t room = out_.size() - used_;
    const std::size_t n = bytes.size() < room ? bytes.size() : room;
    if (n != 0) std::memcpy(out_.data() + used_, bytes.data(), n);
    used_ += n;
    if (n != bytes.size()) return io::errc::no_room;
    return success();
  }

  std::span<std::byte> written() const noexcept { return out_.first(used_); }

 private:
  std::span<std::byte> out_;
  std::size_t used_ = 0;
};

}  // namespace blockwire
