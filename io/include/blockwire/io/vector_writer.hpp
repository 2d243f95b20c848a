// VectorWriter: appends to a std::vector<std::byte> the caller owns.
#pragma once

#include <blockwire/io/error.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace blockwire {

class VectorWriter {
 public:
  explicit VectorWriter(std::vector<std::byte>& out) noexcept : out_(&out) {}

  result<void> write(std::span<const std::byte> bytes) {
    out_->insert(out_->end(), bytes.begin(), bytes.end());
    return success();
  }

  // Lends the vector's own storage to a BufferedWriter: bytes are written in
  // place, once. The lent bytes are zeroed by resize() first, the price of
  // std::vector having no uninitialised growth.
  std::span<std::byte> lend(std::size_t n) {
    lent_at_ = out_->size();
    out_->resize(lent_at_ + n);
    return {out_->data() + lent_at_, n};
  }
  void commit(std::size_t n) { out_->resize(lent_at_ + n); }

  std::vector<std::byte>& vector() const noexcept { return *out_; }

 private:
  std::vector<std::byte>* out_;
  std::size_t lent_at_ = 0;
};

}  // namespace blockwire
