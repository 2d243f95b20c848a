// A message given in up to three runs (SplitMessage), handed out a 64-byte
// block at a time with SHA-256's padding: what each lane of the multi-lane
// kernels reads. Private to io.
#pragma once

#include <blockwire/io/sha256.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace blockwire::detail {

// A message's blocks, one at a time, padding included: a pointer into the
// message where 64 of its bytes lie in one run, else a block assembled in
// `staging` (across runs, and the end with its padding).
class BlockFeed {
 public:
  BlockFeed() = default;
  explicit BlockFeed(const SplitMessage& m) noexcept : parts_(&m.parts) {
    for (const auto& p : m.parts) bits_ += 8 * std::uint64_t{p.size()};
  }
  bool done() const noexcept { return stage_ == Stage::done; }

  // The blocks that lie whole in the current run from here on: a kernel
  // may read them in place from whole_at(), then skip_whole(k) of them,
  // and only call next() for the blocks after (those assembled across runs
  // and the padding), since the message never ends inside them.
  std::size_t whole_blocks() noexcept {
    if (stage_ != Stage::data) return 0;
    skip_empty();
    return part_ < 3 ? ((*parts_)[part_].size() - pos_) / 64 : 0;
  }
  const std::byte* whole_at() const noexcept { return (*parts_)[part_].data() + pos_; }
  void skip_whole(std::size_t k) noexcept { pos_ += 64 * k; }
  // Back over the last k whole blocks skipped, unread (no next() since).
  void unskip_whole(std::size_t k) noexcept { pos_ -= 64 * k; }

  const std::byte* next(std::byte* staging) noexcept {
    if (stage_ == Stage::data) {
      skip_empty();
      if (part_ < 3 && (*parts_)[part_].size() - pos_ >= 64) {
        const std::byte* p = (*parts_)[part_].data() + pos_;
        pos_ += 64;
        return p;
      }
    }
    std::size_t n = 0;
    if (stage_ == Stage::data) {
      for (; n < 64 && part_ < 3; skip_empty()) {
        const auto& run = (*parts_)[part_];
        const std::size_t take = std::min(64 - n, run.size() - pos_);
        std::memcpy(staging + n, run.data() + pos_, take);
        n += take;
        pos_ += take;
      }
      if (n == 64) return staging;  // the end may come next time: the 0x80 then
      staging[n++] = std::byte{0x80};
      stage_ = Stage::length;
    }
    if (n > 56) {  // no room for the length: it takes a block of its own
      std::memset(staging + n, 0, 64 - n);
      return staging;
    }
    std::memset(staging + n, 0, 56 - n);
    for (int i = 0; i < 8; ++i) staging[56 + i] = static_cast<std::byte>(bits_ >> (56 - 8 * i));
    stage_ = Stage::done;
    return staging;
  }

 private:
  enum class Stage { data, length, done };
  void skip_empty() noexcept {
    while (part_ < 3 && pos_ == (*parts_)[part_].size()) {
      ++part_;
      pos_ = 0;
    }
  }
  const std::array<std::span<const std::byte>, 3>* parts_ = nullptr;
  std::size_t part_ = 0;
  std::size_t pos_ = 0;
  std::uint64_t bits_ = 0;
  Stage stage_ = Stage::data;
};

// The 64-byte blocks a message takes, its padding included.
inline std::size_t blocks_of(const SplitMessage& m) noexcept {
  std::size_t bytes = 0;
  for (const auto& part : m.parts) bytes += part.size();
  return (bytes + 8) / 64 + 1;
}

// Messages ordered and hashed together at most (their order on the
// stack: 40 KiB).
inline constexpr std::size_t lpt_batch = 8192;

// The order in which lanes take `count` (at most lpt_batch) messages:
// longest first, by the power of two of their block counts, so that a lane
// freed late takes a short message and the lanes run out of work together,
// instead of one long message running on beside idle lanes. A counting
// sort, two passes.
inline void longest_first(const SplitMessage* messages, std::size_t count, std::uint32_t* order) noexcept {
  constexpr int classes = 24;
  std::uint8_t cls[lpt_batch];
  std::size_t start[classes + 1] = {};
  for (std::size_t i = 0; i < count; ++i) {
    const int width = std::bit_width(blocks_of(messages[i]));
    cls[i] = static_cast<std::uint8_t>(classes - 1 - std::min(width, classes - 1));
    ++start[cls[i] + 1];
  }
  for (int c = 0; c < classes; ++c) start[c + 1] += start[c];
  for (std::size_t i = 0; i < count; ++i) order[start[cls[i]]++] = static_cast<std::uint32_t>(i);
}

}  // namespace blockwire::detail
