#include <blockwire/codec/address.hpp>
#include <blockwire/codec/descriptor.hpp>
#include <blockwire/codec/script.hpp>
#include <blockwire/io/hex.hpp>

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>

#include <array>
#include <cstdint>
#include <vector>

namespace blockwire {

namespace {

// BIP380's alphabets and generator.
constexpr std::string_view input_charset =
    "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
constexpr std::string_view checksum_charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

std::uint64_t polymod(std::uint64_t chk, unsigned value) noexcept {
  constexpr std::uint64_t generator[] = {0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a, 0x644d626ffd};
  const std::uint64_t top = chk >> 35;
  chk = ((chk & 0x7ffffffff) << 5) ^ value;
  for (int i = 0; i < 5; ++i) {
    if (((top >> i) & 1) != 0) chk ^= generator[i];
  }
  return chk;
}

// Core's InferPubkey: a key a descriptor may hold (not hybrid: 06/07).
bool plain_pubkey(std::span<const std::byte> key) noexcept {
  if (key.size() == 33) return key[0] == std::byte{0x02} || key[0] == std::byte{0x03};
  return key.size() == 65 && key[0] == std::byte{0x04};
}

// An x-only key that lies on the curve (Core's XOnlyPubKey::IsFullyValid).
bool valid_xonly(std::span<const std::byte> key) noexcept {
  if (key.size() != 32) return false;
  secp256k1_xonly_pubkey parsed;
  return secp256k1_xonly_pubkey_parse(secp256k1_context_static, &parsed, reinterpret_cast<const unsigned char*>(key.data())) == 1;
}

// "name(body)#checksum". (Built by appending: "literal" + std::string
// trips a false -Wrestrict in GCC 12.)
std::string described(std::string_view name, std::string_view body) {
  std::string d(name);
  d += '(';
  d += body;
  d += ')';
  const std::string checksum = descriptor_checksum(d);
  d += '#';
  d += checksum;
  return d;
}

}  // namespace

std::string descriptor_checksum(std::string_view descriptor) {
  std::uint64_t chk = 1;
  unsigned groups = 0;
  unsigned group_value = 0;
  for (char c : descriptor) {
    const auto at = input_charset.find(c);
    if (at == std::string_view::npos) return {};
    chk = polymod(chk, static_cast<unsigned>(at) & 31);
    group_value = group_value * 3 + (static_cast<unsigned>(at) >> 5);
    if (++groups == 3) {
      chk = polymod(chk, group_value);
      groups = 0;
      group_value = 0;
    }
  }
  if (groups != 0) chk = polymod(chk, group_value);
  for (int i = 0; i < 8; ++i) chk = polymod(chk, 0);
  chk ^= 1;
  std::string out(8, ' ');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = checksum_charset[(chk >> (5 * (7 - i))) & 31];
  return out;
}

std::string infer_descriptor(std::span<const std::byte> script, network net) {
  const Solution s = solve(script);
  switch (s.type) {
    case script_type::pubkey:
      if (plain_pubkey(s.payload)) return described("pk", to_hex(s.payload));
      break;
    case script_type::multisig: {
      std::string body = std::to_string(s.required);
      bool plain = true;
      for (const auto key : s.keys) {
        plain = plain && plain_pubkey(key);
        body += ',';
        body += to_hex(key);
      }
      if (plain) return described("multi", body);
      break;
    }
    case script_type::witness_v1_taproot:
      if (valid_xonly(s.payload)) return described("rawtr", to_hex(s.payload));
      break;
    default: break;
  }
  if (auto address = encode_address(script, net)) return described("addr", *address);
  return described("raw", to_hex(script));
}

}  // namespace blockwire
