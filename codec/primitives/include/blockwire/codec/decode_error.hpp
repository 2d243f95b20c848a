// What can be wrong with bytes that claim to be Bitcoin data. Truncation is
// blockwire::io::errc::truncated (the io layer's); these are the rest.
#pragma once

#include <system_error>
#include <type_traits>

namespace blockwire {

namespace codec {

enum class errc : int {
  non_canonical_size = 1,  // a CompactSize that fits a shorter form
  size_too_large,          // a CompactSize above 0x02000000 (MAX_SIZE)
  unknown_witness_flag,    // optional-data flag bits other than witness
  superfluous_witness,     // witness flag set, every stack empty
  trailing_bytes,          // bytes left after the object (span input)
};

const std::error_category& category() noexcept;
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

}  // namespace codec

}  // namespace blockwire

template <>
struct std::is_error_code_enum<blockwire::codec::errc> : std::true_type {};
