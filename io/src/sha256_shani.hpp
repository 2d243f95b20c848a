// SHA256d of 64-byte blocks with the x86 SHA extensions, two blocks at a
// time: the merkle-level hash. Private to io; sha256.cpp dispatches to it.
#pragma once

#include <cstddef>

namespace blockwire::detail {

// Whether this CPU has the SHA extensions (and the SSE4.1 they are used
// with here). False on other architectures.
bool has_sha_ni() noexcept;
// SHA256d of each of the `blocks` 64-byte blocks at `in`, 32 bytes each to
// `out`. `out` may equal `in` (each block is read before its hash is written).
void sha256d64_sha_ni(std::byte* out, const std::byte* in, std::size_t blocks) noexcept;

}  // namespace blockwire::detail
