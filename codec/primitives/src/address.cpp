#include <blockwire/codec/address.hpp>
#include <blockwire/codec/script.hpp>
#include <blockwire/io/sha256.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

namespace blockwire {

namespace {

const char* describe(int value) noexcept {
  switch (static_cast<address::errc>(value)) {
    case address::errc::bad_base58: return "not Base58: a character outside its alphabet";
    case address::errc::bad_base58_checksum: return "invalid checksum or length of a Base58 address (P2PKH or P2SH)";
    case address::errc::unknown_prefix: return "a Base58 address of no known type on this network (its version byte)";
    case address::errc::bad_bech32: return "not a Bech32 address (characters, mixed case, separator or length)";
    case address::errc::bad_bech32_checksum: return "invalid Bech32 checksum";
    case address::errc::wrong_network: return "a Segwit address of another network (its prefix)";
    case address::errc::wrong_checksum_variant: return "version 0 witness addresses use Bech32, version 1+ Bech32m";
    case address::errc::bad_witness_version: return "invalid witness version";
    case address::errc::bad_witness_program: return "invalid witness program size for its version";
    case address::errc::bad_padding: return "invalid padding in the Bech32 data section";
  }
  return nullptr;
}

constexpr std::string_view base58_alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
constexpr std::string_view bech32_charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
constexpr std::uint32_t bech32_constant = 1;
constexpr std::uint32_t bech32m_constant = 0x2bc830a3;

std::uint8_t u8(std::byte b) noexcept { return std::to_integer<std::uint8_t>(b); }

// Base58 ----------------------------------------------------------------------

// Base 58^5 limbs (each under 2^30), least significant first, fed 32 bits
// at a time: a 25-byte address is 7 limbs times 7 words of 64-bit
// arithmetic, where a digit and a byte at a time was 25 times 34.
std::string base58_encode(std::span<const std::byte> bytes) {
  constexpr std::uint64_t radix = 58ull * 58 * 58 * 58 * 58;
  std::size_t zeros = 0;
  while (zeros < bytes.size() && bytes[zeros] == std::byte{0}) ++zeros;
  const std::span<const std::byte> rest = bytes.subspan(zeros);
  // log(256) / log(58^5) = 0.273 limbs a byte.
  const std::size_t most = rest.size() * 28 / 100 + 2;
  std::array<std::uint32_t, 64> small;
  std::vector<std::uint32_t> large;
  std::uint32_t* limbs = small.data();
  if (most > small.size()) {
    large.resize(most);
    limbs = large.data();
  }
  std::size_t used = 0;
  const auto multiply_add = [&](std::uint64_t multiplier, std::uint64_t carry) {
    for (std::size_t i = 0; i < used; ++i) {
      const std::uint64_t x = limbs[i] * multiplier + carry;
      limbs[i] = static_cast<std::uint32_t>(x % radix);
      carry = x / radix;
    }
    while (carry != 0) {
      limbs[used++] = static_cast<std::uint32_t>(carry % radix);
      carry /= radix;
    }
  };
  std::size_t i = 0;
  for (const std::size_t head = rest.size() % 4; i < head; ++i) multiply_add(256, u8(rest[i]));
  for (; i < rest.size(); i += 4) {
    multiply_add(std::uint64_t{1} << 32, std::uint64_t{u8(rest[i])} << 24 | std::uint64_t{u8(rest[i + 1])} << 16 |
                                             std::uint64_t{u8(rest[i + 2])} << 8 | u8(rest[i + 3]));
  }
  std::string out(zeros + 5 * used, '1');
  char* digit = out.data() + out.size();
  for (std::size_t l = 0; l < used; ++l) {
    std::uint32_t v = limbs[l];
    for (int d = 0; d < 5; ++d, v /= 58) *--digit = base58_alphabet[v % 58];
  }
  // The top limb's leading zero digits are not digits of the number.
  std::size_t lead = zeros;
  while (lead < out.size() && out[lead] == '1') ++lead;
  out.erase(zeros, lead - zeros);
  return out;
}

std::optional<std::vector<std::byte>> base58_decode(std::string_view text) {
  std::size_t ones = 0;
  while (ones < text.size() && text[ones] == '1') ++ones;
  std::vector<std::uint8_t> bytes;  // base 256, least significant first
  for (std::size_t i = ones; i < text.size(); ++i) {
    const auto at = base58_alphabet.find(text[i]);
    if (at == std::string_view::npos) return std::nullopt;
    unsigned carry = static_cast<unsigned>(at);
    for (auto& b : bytes) {
      carry += 58u * b;
      b = static_cast<std::uint8_t>(carry & 0xff);
      carry >>= 8;
    }
    while (carry != 0) {
      bytes.push_back(static_cast<std::uint8_t>(carry & 0xff));
      carry >>= 8;
    }
  }
  std::vector<std::byte> out(ones, std::byte{0});
  for (auto b = bytes.rbegin(); b != bytes.rend(); ++b) out.push_back(static_cast<std::byte>(*b));
  return out;
}

// Bech32 (BIP173) and bech32m (BIP350) -----------------------------------------

// BIP173's generator, XORed together for each value of the five bits
// shifted out: one lookup a step instead of five tests.
constexpr std::array<std::uint32_t, 32> polymod_table = [] {
  constexpr std::uint32_t generator[] = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3};
  std::array<std::uint32_t, 32> t{};
  for (unsigned top = 0; top < 32; ++top) {
    for (int i = 0; i < 5; ++i) {
      if (((top >> i) & 1) != 0) t[top] ^= generator[i];
    }
  }
  return t;
}();

std::uint32_t polymod_step(std::uint32_t chk, std::uint8_t v) noexcept { return ((chk & 0x1ffffff) << 5) ^ v ^ polymod_table[chk >> 25]; }

std::uint32_t polymod(std::span<const std::uint8_t> values) noexcept {
  std::uint32_t chk = 1;
  for (std::uint8_t v : values) chk = polymod_step(chk, v);
  return chk;
}

std::vector<std::uint8_t> hrp_expand(std::string_view hrp) {
  std::vector<std::uint8_t> out;
  for (char c : hrp) out.push_back(static_cast<std::uint8_t>(static_cast<unsigned char>(c) >> 5));
  out.push_back(0);
  for (char c : hrp) out.push_back(static_cast<std::uint8_t>(static_cast<unsigned char>(c) & 31));
  return out;
}

// Regroups bits (8 to 5 with padding, or 5 to 8 without); false when the
// padding is not zero or too long.
bool convert_bits(std::span<const std::uint8_t> in, unsigned from, unsigned to, bool pad, std::vector<std::uint8_t>& out) {
  unsigned acc = 0;
  unsigned bits = 0;
  const unsigned max = (1u << to) - 1;
  for (std::uint8_t v : in) {
    acc = (acc << from) | v;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push_back(static_cast<std::uint8_t>((acc >> bits) & max));
    }
  }
  if (pad) {
    if (bits != 0) out.push_back(static_cast<std::uint8_t>((acc << (to - bits)) & max));
    return true;
  }
  return bits < from && ((acc << (to - bits)) & max) == 0;
}

struct Bech32 {
  std::string hrp;
  std::vector<std::uint8_t> data;  // 5-bit values, checksum removed
  std::uint32_t constant;          // which checksum: bech32 or bech32m
};

result<Bech32> bech32_decode(std::string_view text) {
  bool lower = false;
  bool upper = false;
  for (char c : text) {
    if (c < 33 || c > 126) return address::errc::bad_bech32;
    lower = lower || (c >= 'a' && c <= 'z');
    upper = upper || (c >= 'A' && c <= 'Z');
  }
  if ((lower && upper) || text.size() > 90) return address::errc::bad_bech32;
  const auto separator = text.rfind('1');
  if (separator == std::string_view::npos || separator == 0 || separator + 7 > text.size()) return address::errc::bad_bech32;
  Bech32 out;
  for (char c : text.substr(0, separator)) out.hrp += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (char c : text.substr(separator + 1)) {
    const char lowered = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    const auto at = bech32_charset.find(lowered);
    if (at == std::string_view::npos) return address::errc::bad_bech32;
    out.data.push_back(static_cast<std::uint8_t>(at));
  }
  std::vector<std::uint8_t> values = hrp_expand(out.hrp);
  values.insert(values.end(), out.data.begin(), out.data.end());
  out.constant = polymod(values);
  if (out.constant != bech32_constant && out.constant != bech32m_constant) return address::errc::bad_bech32_checksum;
  out.data.resize(out.data.size() - 6);
  return out;
}

std::vector<std::byte> witness_script(unsigned version, std::span<const std::byte> program) {
  std::vector<std::byte> script;
  script.push_back(std::byte(version == 0 ? op::zero : op::one + version - 1));
  script.push_back(std::byte(program.size()));
  script.insert(script.end(), program.begin(), program.end());
  return script;
}

}  // namespace

namespace {
// Every failure here is the data's.
condition classify(int) noexcept { return condition::bad_data; }
}  // namespace

const std::error_category& address::category() noexcept {
  static const enum_category instance("blockwire.address", describe, classify);
  return instance;
}

std::string base58check_encode(std::span<const std::byte> payload) {
  const Hash256 check = sha256d(payload);
  std::array<std::byte, 64> small;
  std::vector<std::byte> large;
  std::span<std::byte> with_checksum;
  if (payload.size() + 4 <= small.size()) {
    with_checksum = std::span(small).first(payload.size() + 4);
  } else {
    large.resize(payload.size() + 4);
    with_checksum = large;
  }
  std::copy(payload.begin(), payload.end(), with_checksum.begin());
  std::copy(check.bytes().begin(), check.bytes().begin() + 4, with_checksum.end() - 4);
  return base58_encode(with_checksum);
}

result<std::vector<std::byte>> base58check_decode(std::string_view text) {
  auto bytes = base58_decode(text);
  if (!bytes) return address::errc::bad_base58;
  if (bytes->size() < 4) return address::errc::bad_base58_checksum;
  const std::span<const std::byte> payload = std::span(*bytes).first(bytes->size() - 4);
  const Hash256 check = sha256d(payload);
  if (!std::equal(check.bytes().begin(), check.bytes().begin() + 4, bytes->end() - 4)) return address::errc::bad_base58_checksum;
  return std::vector<std::byte>(payload.begin(), payload.end());
}

// The checksum runs over the expanded prefix, the 5-bit groups as they
// are written, and six zeros: no buffer but the address itself.
std::string segwit_address(std::string_view hrp, unsigned version, std::span<const std::byte> program) {
  std::uint32_t chk = 1;
  for (char c : hrp) chk = polymod_step(chk, static_cast<std::uint8_t>(static_cast<unsigned char>(c) >> 5));
  chk = polymod_step(chk, 0);
  for (char c : hrp) chk = polymod_step(chk, static_cast<std::uint8_t>(static_cast<unsigned char>(c) & 31));
  std::string out(hrp.size() + 2 + (program.size() * 8 + 4) / 5 + 6, '\0');
  std::copy(hrp.begin(), hrp.end(), out.begin());
  char* p = out.data() + hrp.size();
  *p++ = '1';
  const auto emit = [&](unsigned v) {
    chk = polymod_step(chk, static_cast<std::uint8_t>(v));
    *p++ = bech32_charset[v];
  };
  emit(version & 31);
  unsigned acc = 0;
  unsigned bits = 0;
  for (const std::byte b : program) {
    acc = ((acc << 8) | u8(b)) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      emit((acc >> bits) & 31);
    }
  }
  if (bits != 0) emit((acc << (5 - bits)) & 31);
  for (int i = 0; i < 6; ++i) chk = polymod_step(chk, 0);
  chk ^= version == 0 ? bech32_constant : bech32m_constant;
  for (int i = 0; i < 6; ++i) *p++ = bech32_charset[(chk >> (5 * (5 - i))) & 31];
  return out;
}

std::optional<std::string> encode_address(std::span<const std::byte> script, network net) {
  const Solution s = solve(script);
  switch (s.type) {
    case script_type::pubkeyhash:
    case script_type::scripthash: {
      std::array<std::byte, 21> payload;
      payload[0] = std::byte(s.type == script_type::pubkeyhash ? pubkey_address_prefix(net) : script_address_prefix(net));
      std::copy(s.payload.begin(), s.payload.end(), payload.begin() + 1);
      return base58check_encode(payload);
    }
    case script_type::witness_v0_keyhash:
    case script_type::witness_v0_scripthash:
    case script_type::witness_v1_taproot:
    case script_type::anchor:
    case script_type::witness_unknown: return segwit_address(bech32_hrp(net), s.witness_version, s.payload);
    default: return std::nullopt;
  }
}

result<std::vector<std::byte>> decode_address(std::string_view address, network net) {
  const std::string_view hrp = bech32_hrp(net);
  std::string head(address.substr(0, hrp.size()));
  for (char& c : head) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (head != hrp) {
    auto payload = base58check_decode(address);
    if (!payload) {
      // Say so when it is a Segwit address of another network.
      if (auto other = bech32_decode(address); other) return address::errc::wrong_network;
      return payload.error();
    }
    const auto& p = payload.value();
    const bool pubkey = !p.empty() && u8(p[0]) == pubkey_address_prefix(net);
    const bool scripthash = !p.empty() && u8(p[0]) == script_address_prefix(net);
    if (!pubkey && !scripthash) return address::errc::unknown_prefix;
    if (p.size() != 21) return address::errc::bad_base58_checksum;  // a right prefix, a wrong length
    std::vector<std::byte> script;
    const auto hash = std::span(p).subspan(1);
    if (pubkey) {
      script = {std::byte{op::dup}, std::byte{op::hash160}, std::byte{20}};
      script.insert(script.end(), hash.begin(), hash.end());
      script.insert(script.end(), {std::byte{op::equalverify}, std::byte{op::checksig}});
    } else {
      script = {std::byte{op::hash160}, std::byte{20}};
      script.insert(script.end(), hash.begin(), hash.end());
      script.push_back(std::byte{op::equal});
    }
    return script;
  }
  auto decoded = bech32_decode(address);
  if (!decoded) return decoded.error();
  const Bech32& b = decoded.value();
  if (b.hrp != hrp) return address::errc::wrong_network;
  if (b.data.empty()) return address::errc::bad_witness_program;
  const unsigned version = b.data[0];
  if (version > 16) return address::errc::bad_witness_version;
  if ((version == 0) != (b.constant == bech32_constant)) return address::errc::wrong_checksum_variant;
  std::vector<std::uint8_t> program;
  if (!convert_bits(std::span(b.data).subspan(1), 5, 8, false, program)) return address::errc::bad_padding;
  if (version == 0 && program.size() != 20 && program.size() != 32) return address::errc::bad_witness_program;
  if (program.size() < 2 || program.size() > 40) return address::errc::bad_witness_program;
  std::vector<std::byte> bytes(program.size());
  std::transform(program.begin(), program.end(), bytes.begin(), [](std::uint8_t v) { return std::byte{v}; });
  return witness_script(version, bytes);
}

}  // namespace blockwire
