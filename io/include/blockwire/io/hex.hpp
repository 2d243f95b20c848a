// Bytes as hex digits and back: the one hex codec of blockwire.
#pragma once

#include <blockwire/io/error.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire {

// Lower-case, two digits a byte, in order.
std::string to_hex(std::span<const std::byte> bytes);
// The same into out[0, 2 * bytes.size()): for text built in place.
void to_hex(std::span<const std::byte> bytes, char* out) noexcept;
// The bytes last to first, as a hash is shown (Hash256::to_hex).
void to_hex_reversed(std::span<const std::byte> bytes, char* out) noexcept;

// Exactly out.size() bytes from 2 * out.size() digits of either case.
// Errors: io::errc::wrong_hex_length; io::errc::not_hex with the offset of the
// first character that is not a digit.
result<void> from_hex(std::string_view hex, std::span<std::byte> out);

// As many bytes as the digits give. Errors: io::errc::odd_hex_length;
// io::errc::not_hex with the offset of the first character that is not a digit.
result<std::vector<std::byte>> from_hex(std::string_view hex);

}  // namespace blockwire
