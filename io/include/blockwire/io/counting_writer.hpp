// CountingWriter: counts bytes and stores none (a size without the bytes).
#pragma once

#include <blockwire/io/error.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace blockwire {

class CountingWriter {
 public:
  result<void> write(std::span<const std::byte> bytes) noexcept {
    count_ += bytes.size();
    return success();
  }
  std::uint64_t count() const noexcept { return count_; }

 private:
  std::uint64_t count_ = 0;
};

}  // namespace blockwire
