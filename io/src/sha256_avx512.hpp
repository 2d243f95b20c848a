// SHA256d of 64-byte blocks sixteen at a time, one block in each 32-bit
// lane of AVX-512 registers: the merkle levels' pairs. Private to io;
// sha256.cpp dispatches to it.
#pragma once

#include <cstddef>

namespace blockwire::detail {

// Whether this CPU has AVX-512 F and BW and the OS saves their registers.
// False on other architectures.
bool has_avx512() noexcept;
// SHA256d of the 16 64-byte blocks at `in`, 32 bytes each to `out`. `out`
// may equal `in` (every block is read before any hash is written).
void sha256d64_avx512_16(std::byte* out, const std::byte* in) noexcept;

}  // namespace blockwire::detail
