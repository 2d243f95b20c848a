// SHA256d with the x86 SHA extensions, four messages at a time: 64-byte
// blocks (merkle levels) and messages of any length (transaction ids).
// Private to io; sha256.cpp dispatches to it.
#pragma once

#include <blockwire/io/sha256.hpp>

#include <cstddef>

namespace blockwire::detail {

// Whether this CPU has the SHA extensions (and the SSE4.1 they are used
// with here). False on other architectures.
bool has_sha_ni() noexcept;
// SHA256d of each of the `blocks` 64-byte blocks at `in`, 32 bytes each to
// `out`. `out` may equal `in` (each block is read before its hash is written).
void sha256d64_sha_ni(std::byte* out, const std::byte* in, std::size_t blocks) noexcept;
// SHA256d of each message to out[i].
void sha256d_each_sha_ni(const SplitMessage* messages, std::size_t count, Hash256* out) noexcept;

}  // namespace blockwire::detail
