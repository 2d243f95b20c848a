// SHA256d sixteen messages at a time, one in each 32-bit lane of AVX-512
// registers: 64-byte blocks (the merkle levels' pairs) and messages of any
// length (transaction ids). Private to io;
// sha256.cpp dispatches to it.
#pragma once

#include "sha256_block_feed.hpp"

#include <cstddef>
#include <cstdint>

namespace blockwire::detail {

// Whether this CPU has AVX-512 F and BW and the OS saves their registers.
// False on other architectures.
bool has_avx512() noexcept;
// SHA256d of the 16 64-byte blocks at `in`, 32 bytes each to `out`. `out`
// may equal `in` (every block is read before any hash is written).
void sha256d64_avx512_16(std::byte* out, const std::byte* in) noexcept;
// SHA256d of each message to out[i], sixteen side by side. When four or
// fewer are left, `finish_alone` takes each: the chaining state after the
// blocks hashed so far (words a..h), and the feed of the blocks left; it
// leaves the final state in `state`.
void sha256d_each_avx512(const SplitMessage* messages, std::size_t count, Hash256* out,
                         void (*finish_alone)(std::uint32_t (&state)[8], BlockFeed& feed)) noexcept;

}  // namespace blockwire::detail
