// Script compression, private: the encoder is a template so that sizes are
// counted by the same code that writes (wire::SizeCounter).
#pragma once

#include <blockwire/codec/wire.hpp>
#include <blockwire/undo/varint.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace blockwire::undo::detail {

// Codes below this are the special forms; a script of n bytes is n + 6.
inline constexpr std::uint64_t special_scripts = 6;

bool is_p2pkh(std::span<const std::byte> script);
bool is_p2sh(std::span<const std::byte> script);
bool is_compressed_p2pk(std::span<const std::byte> script);
bool is_uncompressed_p2pk(std::span<const std::byte> script);  // and its key on the curve

template <wire::ByteSink W>
void compress_script(W& w, std::span<const std::byte> s) {
  std::byte code{};
  std::span<const std::byte> payload;
  if (is_p2pkh(s)) {
    code = std::byte{0};
    payload = s.subspan(3, 20);
  } else if (is_p2sh(s)) {
    code = std::byte{1};
    payload = s.subspan(2, 20);
  } else if (is_compressed_p2pk(s)) {
    code = s[1];
    payload = s.subspan(2, 32);
  } else if (is_uncompressed_p2pk(s)) {
    code = std::byte{4} | (s[65] & std::byte{1});  // the parity of y
    payload = s.subspan(2, 32);
  } else {
    encode_varint(w, s.size() + special_scripts);
    w.write(s);
    return;
  }
  wire::encode_u8(w, static_cast<std::uint8_t>(code));
  w.write(payload);
}

// Appends nothing on failure (the context holds it).
void decompress_script(DecodingContext& ctx, std::vector<std::byte>& script);

}  // namespace blockwire::undo::detail
