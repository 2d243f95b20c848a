// Amount and script compression as Bitcoin Core's compressor.cpp defines
// them (the format is Core's; this is its own implementation).
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/undo/block_undo.hpp>
#include <blockwire/undo/varint.hpp>

#include "compress.hpp"

#include <secp256k1.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace blockwire {

std::uint64_t compress_amount(std::uint64_t n) noexcept {
  if (n == 0) return 0;
  unsigned zeros = 0;  // trailing decimal zeros, at most 9
  while (n % 10 == 0 && zeros < 9) {
    n /= 10;
    ++zeros;
  }
  if (zeros == 9) return 1 + (n - 1) * 10 + 9;
  const std::uint64_t last_digit = n % 10;  // 1..9: the zeros stopped before it
  n /= 10;
  return 1 + (n * 9 + last_digit - 1) * 10 + zeros;
}

std::uint64_t decompress_amount(std::uint64_t x) noexcept {
  if (x == 0) return 0;
  --x;
  unsigned zeros = static_cast<unsigned>(x % 10);
  x /= 10;
  std::uint64_t n = 0;
  if (zeros < 9) {
    const std::uint64_t last_digit = x % 9 + 1;
    n = (x / 9) * 10 + last_digit;
  } else {
    n = x + 1;
  }
  for (; zeros != 0; --zeros) n *= 10;
  return n;
}

namespace undo::detail {

// The opcodes of the special forms, as bytes (codec/script.hpp names them).
constexpr std::byte op_dup{op::dup}, op_hash160{op::hash160}, op_equalverify{op::equalverify}, op_checksig{op::checksig},
    op_equal{op::equal};

bool is_p2pkh(std::span<const std::byte> s) {
  return s.size() == 25 && s[0] == op_dup && s[1] == op_hash160 && s[2] == std::byte{20} && s[23] == op_equalverify && s[24] == op_checksig;
}
bool is_p2sh(std::span<const std::byte> s) { return s.size() == 23 && s[0] == op_hash160 && s[1] == std::byte{20} && s[22] == op_equal; }
bool is_compressed_p2pk(std::span<const std::byte> s) {
  return s.size() == 35 && s[0] == std::byte{33} && (s[1] == std::byte{2} || s[1] == std::byte{3}) && s[34] == op_checksig;
}
// An uncompressed key stored compressed only when it is on the curve: a
// key that is not could not be restored from x.
bool is_uncompressed_p2pk(std::span<const std::byte> s) {
  if (s.size() != 67 || s[0] != std::byte{65} || s[1] != std::byte{4} || s[66] != op_checksig) return false;
  secp256k1_pubkey key;
  return secp256k1_ec_pubkey_parse(secp256k1_context_static, &key, reinterpret_cast<const unsigned char*>(s.data() + 1), 65) == 1;
}

void decompress_script(DecodingContext& ctx, std::vector<std::byte>& script) {
  script.clear();
  const std::uint64_t code = decode_varint(ctx, 0xffffffff);
  if (!ctx.ok()) return;
  if (code >= special_scripts) {
    const std::uint64_t size = code - special_scripts;
    if (size > max_script_size) {  // as Core: skipped, an invalid script in its place
      ctx.skip(size);
      script.push_back(std::byte{op::return_});
    } else {
      ctx.read_append(script, size);
    }
    return;
  }
  std::array<std::byte, 32> data{};
  const std::size_t n = code < 2 ? 20 : 32;
  if (!ctx.read(std::span<std::byte>(data.data(), n))) return;
  // Each form at its final size at once: one allocation a script.
  const auto put = [&](std::size_t size, std::initializer_list<std::byte> head, std::initializer_list<std::byte> tail) {
    script.resize(size);
    std::byte* p = std::copy(head.begin(), head.end(), script.data());
    p = std::copy(data.data(), data.data() + n, p);
    std::copy(tail.begin(), tail.end(), p);
  };
  switch (code) {
    case 0: put(25, {op_dup, op_hash160, std::byte{20}}, {op_equalverify, op_checksig}); return;
    case 1: put(23, {op_hash160, std::byte{20}}, {op_equal}); return;
    case 2:
    case 3: put(35, {std::byte{33}, static_cast<std::byte>(code)}, {op_checksig}); return;
    default: {  // 4, 5: the uncompressed key, restored from x and the parity of y
      unsigned char compressed[33];
      compressed[0] = static_cast<unsigned char>(code - 2);
      std::memcpy(compressed + 1, data.data(), 32);
      secp256k1_pubkey key;
      if (secp256k1_ec_pubkey_parse(secp256k1_context_static, &key, compressed, sizeof compressed) != 1) {
        ctx.fail(undo::errc::invalid_compressed_key);
        return;
      }
      unsigned char full[65];
      std::size_t full_size = sizeof full;
      secp256k1_ec_pubkey_serialize(secp256k1_context_static, full, &full_size, &key, SECP256K1_EC_UNCOMPRESSED);
      script.resize(67);
      script[0] = std::byte{65};
      std::memcpy(script.data() + 1, full, 65);
      script[66] = op_checksig;
      return;
    }
  }
}

}  // namespace undo::detail

void compress_script(std::span<const std::byte> script, std::vector<std::byte>& out) {
  VectorWriter sink(out);
  StreamWriter w{writer_ref(sink)};
  undo::detail::compress_script(w, script);
  (void)w.flush();  // a vector cannot fail
}

}  // namespace blockwire
