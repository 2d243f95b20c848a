#include <blockwire/codec/script.hpp>
#include <blockwire/io/hex.hpp>

#include <array>
#include <cstdio>

namespace blockwire {

namespace {

std::uint8_t u8(std::byte b) noexcept { return std::to_integer<std::uint8_t>(b); }

// Core's opcode names; an empty entry is OP_UNKNOWN.
constexpr std::array<std::string_view, 256> opcode_names = [] {
  std::array<std::string_view, 256> n{};
  n[0x00] = "0";
  n[0x4c] = "OP_PUSHDATA1";
  n[0x4d] = "OP_PUSHDATA2";
  n[0x4e] = "OP_PUSHDATA4";
  n[0x4f] = "-1";
  n[0x50] = "OP_RESERVED";
  constexpr std::string_view small[] = {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16"};
  for (int i = 0; i < 16; ++i) n[0x51 + i] = small[i];
  constexpr std::string_view named[] = {
      "OP_NOP",
      "OP_VER",
      "OP_IF",
      "OP_NOTIF",
      "OP_VERIF",
      "OP_VERNOTIF",
      "OP_ELSE",
      "OP_ENDIF",
      "OP_VERIFY",
      "OP_RETURN",  // 0x61..
      "OP_TOALTSTACK",
      "OP_FROMALTSTACK",
      "OP_2DROP",
      "OP_2DUP",
      "OP_3DUP",
      "OP_2OVER",
      "OP_2ROT",
      "OP_2SWAP",
      "OP_IFDUP",  // 0x6b..
      "OP_DEPTH",
      "OP_DROP",
      "OP_DUP",
      "OP_NIP",
      "OP_OVER",
      "OP_PICK",
      "OP_ROLL",
      "OP_ROT",
      "OP_SWAP",
      "OP_TUCK",  // 0x74..
      "OP_CAT",
      "OP_SUBSTR",
      "OP_LEFT",
      "OP_RIGHT",
      "OP_SIZE",
      "OP_INVERT",
      "OP_AND",
      "OP_OR",
      "OP_XOR",
      "OP_EQUAL",  // 0x7e..
      "OP_EQUALVERIFY",
      "OP_RESERVED1",
      "OP_RESERVED2",
      "OP_1ADD",
      "OP_1SUB",
      "OP_2MUL",
      "OP_2DIV",
      "OP_NEGATE",  // 0x88..
      "OP_ABS",
      "OP_NOT",
      "OP_0NOTEQUAL",
      "OP_ADD",
      "OP_SUB",
      "OP_MUL",
      "OP_DIV",
      "OP_MOD",
      "OP_LSHIFT",
      "OP_RSHIFT",  // 0x90..
      "OP_BOOLAND",
      "OP_BOOLOR",
      "OP_NUMEQUAL",
      "OP_NUMEQUALVERIFY",
      "OP_NUMNOTEQUAL",
      "OP_LESSTHAN",
      "OP_GREATERTHAN",  // 0x9a..
      "OP_LESSTHANOREQUAL",
      "OP_GREATERTHANOREQUAL",
      "OP_MIN",
      "OP_MAX",
      "OP_WITHIN",
      "OP_RIPEMD160",
      "OP_SHA1",  // 0xa1..
      "OP_SHA256",
      "OP_HASH160",
      "OP_HASH256",
      "OP_CODESEPARATOR",
      "OP_CHECKSIG",
      "OP_CHECKSIGVERIFY",  // 0xa8..
      "OP_CHECKMULTISIG",
      "OP_CHECKMULTISIGVERIFY",
      "OP_NOP1",
      "OP_CHECKLOCKTIMEVERIFY",
      "OP_CHECKSEQUENCEVERIFY",  // 0xae..
      "OP_NOP4",
      "OP_NOP5",
      "OP_NOP6",
      "OP_NOP7",
      "OP_NOP8",
      "OP_NOP9",
      "OP_NOP10",
      "OP_CHECKSIGADD",  // 0xb3..0xba
  };
  for (std::size_t i = 0; i < std::size(named); ++i) n[0x61 + i] = named[i];
  n[0xff] = "OP_INVALIDOPCODE";
  return n;
}();

// A push of up to 4 bytes as Core's CScriptNum reads it (not required to be
// minimal): little-endian magnitude, sign in the top bit of the last byte.
long long script_number(std::span<const std::byte> data) noexcept {
  if (data.empty()) return 0;
  unsigned long long magnitude = 0;
  for (std::size_t i = 0; i < data.size(); ++i) magnitude |= static_cast<unsigned long long>(u8(data[i])) << (8 * i);
  const unsigned long long sign = 0x80ULL << (8 * (data.size() - 1));
  if ((magnitude & sign) != 0) return -static_cast<long long>(magnitude & ~sign);
  return static_cast<long long>(magnitude);
}

// BIP66's strict DER encoding of a signature followed by its sighash byte
// (Core's IsValidSignatureEncoding).
bool strict_der(std::span<const std::byte> sig) noexcept {
  const std::size_t size = sig.size();
  if (size < 9 || size > 73) return false;
  const auto at = [&](std::size_t i) { return u8(sig[i]); };
  if (at(0) != 0x30 || at(1) != size - 3) return false;
  const std::size_t len_r = at(3);
  if (5 + len_r >= size) return false;
  const std::size_t len_s = at(5 + len_r);
  if (len_r + len_s + 7 != size) return false;
  if (at(2) != 0x02 || len_r == 0 || (at(4) & 0x80) != 0) return false;
  if (len_r > 1 && at(4) == 0x00 && (at(5) & 0x80) == 0) return false;
  if (at(len_r + 4) != 0x02 || len_s == 0 || (at(len_r + 6) & 0x80) != 0) return false;
  if (len_s > 1 && at(len_r + 6) == 0x00 && (at(len_r + 7) & 0x80) == 0) return false;
  return true;
}

std::string_view sighash_name(std::uint8_t type) noexcept {
  switch (type) {
    case 0x01: return "ALL";
    case 0x81: return "ALL|ANYONECANPAY";
    case 0x02: return "NONE";
    case 0x82: return "NONE|ANYONECANPAY";
    case 0x03: return "SINGLE";
    case 0x83: return "SINGLE|ANYONECANPAY";
  }
  return {};
}

// Core's CheckMinimalPush: the push could not have been written shorter.
bool minimal_push(const ScriptOp& o) noexcept {
  const std::size_t n = o.data.size();
  if (n == 0) return o.opcode == op::zero;
  if (n == 1 && u8(o.data[0]) >= 1 && u8(o.data[0]) <= 16) return false;  // OP_1..OP_16 would do
  if (n == 1 && u8(o.data[0]) == 0x81) return false;                      // OP_1NEGATE would do
  if (n <= 75) return o.opcode == n;
  if (n <= 255) return o.opcode == op::pushdata1;
  if (n <= 65535) return o.opcode == op::pushdata2;
  return true;
}

// A count in a multisig script, as Core's GetScriptNumber reads it: OP_1..
// OP_16, or a minimal push of a minimally encoded number; within [min, max].
std::optional<unsigned> script_count(const ScriptOp& o, unsigned min, unsigned max) noexcept {
  long long n;
  if (o.opcode >= op::one && o.opcode <= op::sixteen) {
    n = o.opcode - op::one + 1;
  } else if (o.opcode > op::zero && o.opcode <= op::pushdata4) {
    const auto d = o.data;
    if (!minimal_push(o) || d.size() > 4) return std::nullopt;
    if (!d.empty() && (u8(d.back()) & 0x7f) == 0 && (d.size() <= 1 || (u8(d[d.size() - 2]) & 0x80) == 0)) return std::nullopt;
    n = script_number(d);
  } else {
    return std::nullopt;
  }
  if (n < static_cast<long long>(min) || n > static_cast<long long>(max)) return std::nullopt;
  return static_cast<unsigned>(n);
}

// Core's IsWitnessProgram: a version opcode, then one direct push of 2 to 40 bytes.
bool witness_program(std::span<const std::byte> s, unsigned& version, std::span<const std::byte>& program) noexcept {
  if (s.size() < 4 || s.size() > 42) return false;
  const std::uint8_t v = u8(s[0]);
  if (v != op::zero && (v < op::one || v > op::sixteen)) return false;
  if (static_cast<std::size_t>(u8(s[1])) + 2 != s.size()) return false;
  version = v == op::zero ? 0 : v - op::one + 1;
  program = s.subspan(2);
  return true;
}

}  // namespace

bool unspendable(std::span<const std::byte> script) noexcept {
  return (!script.empty() && u8(script[0]) == op::return_) || script.size() > max_script_size;
}

std::optional<ScriptOp> ScriptReader::next() noexcept {
  const std::uint8_t opcode = u8(rest_[0]);
  rest_ = rest_.subspan(1);
  if (opcode > op::pushdata4) return ScriptOp{opcode, {}};
  std::size_t size = opcode;
  std::size_t width = opcode == op::pushdata1 ? 1 : opcode == op::pushdata2 ? 2 : opcode == op::pushdata4 ? 4 : 0;
  if (width != 0) {
    if (rest_.size() < width) return std::nullopt;
    size = 0;
    for (std::size_t i = 0; i < width; ++i) size |= static_cast<std::size_t>(u8(rest_[i])) << (8 * i);
    rest_ = rest_.subspan(width);
  }
  if (rest_.size() < size) return std::nullopt;
  const ScriptOp o{opcode, rest_.first(size)};
  rest_ = rest_.subspan(size);
  return o;
}

std::string_view opcode_name(std::uint8_t opcode) noexcept {
  const std::string_view n = opcode_names[opcode];
  return n.empty() ? "OP_UNKNOWN" : n;
}

namespace {

// Hex straight onto the end of `out`: no string made for each push.
void append_hex(std::string& out, std::span<const std::byte> bytes) {
  const std::size_t at = out.size();
  out.resize(at + 2 * bytes.size());
  to_hex(bytes, out.data() + at);
}

}  // namespace

std::string to_asm(std::span<const std::byte> script, bool attempt_sighash_decode) {
  std::string out;
  out.reserve(2 * script.size() + 16);  // mostly pushes of hex: about twice the script
  ScriptReader reader(script);
  while (!reader.done()) {
    if (!out.empty()) out += ' ';
    const auto o = reader.next();
    if (!o) return out += "[error]";
    if (!o->is_push()) {
      out += opcode_name(o->opcode);
    } else if (o->data.size() <= 4) {
      out += std::to_string(script_number(o->data));
    } else if (attempt_sighash_decode && !unspendable(script) && strict_der(o->data) && !sighash_name(u8(o->data.back())).empty()) {
      // A signature in a scriptSig: its last byte is the sighash type.
      append_hex(out, o->data.first(o->data.size() - 1));
      out += '[';
      out += sighash_name(u8(o->data.back()));
      out += ']';
    } else {
      append_hex(out, o->data);
    }
  }
  return out;
}

std::string_view name(script_type type) noexcept {
  switch (type) {
    case script_type::nonstandard: return "nonstandard";
    case script_type::pubkey: return "pubkey";
    case script_type::pubkeyhash: return "pubkeyhash";
    case script_type::scripthash: return "scripthash";
    case script_type::multisig: return "multisig";
    case script_type::nulldata: return "nulldata";
    case script_type::witness_v0_keyhash: return "witness_v0_keyhash";
    case script_type::witness_v0_scripthash: return "witness_v0_scripthash";
    case script_type::witness_v1_taproot: return "witness_v1_taproot";
    case script_type::anchor: return "anchor";
    case script_type::witness_unknown: return "witness_unknown";
  }
  return "nonstandard";
}

bool valid_pubkey_size(std::span<const std::byte> key) noexcept {
  if (key.empty()) return false;
  const std::uint8_t prefix = u8(key[0]);
  if (prefix == 0x02 || prefix == 0x03) return key.size() == 33;
  if (prefix == 0x04 || prefix == 0x06 || prefix == 0x07) return key.size() == 65;
  return false;
}

Solution solve(std::span<const std::byte> s) {
  Solution out;
  const auto at = [&](std::size_t i) { return u8(s[i]); };
  // Pay to script hash first: OP_HASH160, a 20-byte push, OP_EQUAL.
  if (s.size() == 23 && at(0) == op::hash160 && at(1) == 20 && at(22) == op::equal) {
    out.type = script_type::scripthash;
    out.payload = s.subspan(2, 20);
    return out;
  }
  unsigned version = 0;
  std::span<const std::byte> program;
  if (witness_program(s, version, program)) {
    out.witness_version = version;
    out.payload = program;
    if (version == 0 && program.size() == 20) {
      out.type = script_type::witness_v0_keyhash;
    } else if (version == 0 && program.size() == 32) {
      out.type = script_type::witness_v0_scripthash;
    } else if (version == 1 && program.size() == 32) {
      out.type = script_type::witness_v1_taproot;
    } else if (version == 1 && program.size() == 2 && u8(program[0]) == 0x4e && u8(program[1]) == 0x73) {
      out.type = script_type::anchor;  // pay to anchor: OP_1 <0x4e73>
    } else if (version != 0) {
      out.type = script_type::witness_unknown;
    } else {
      out.payload = {};  // a version 0 program of another size: nonstandard
    }
    return out;
  }
  // Data carrier: OP_RETURN, then pushes only (OP_RESERVED counts as one, as in Core).
  if (!s.empty() && at(0) == op::return_) {
    ScriptReader reader(s.subspan(1));
    bool push_only = true;
    while (push_only && !reader.done()) {
      const auto o = reader.next();
      push_only = o && o->opcode <= op::sixteen;
    }
    if (push_only) out.type = script_type::nulldata;
    return out;
  }
  // Pay to public key: a 33- or 65-byte push of a key of a valid size, OP_CHECKSIG.
  for (std::size_t key : {65u, 33u}) {
    if (s.size() == key + 2 && at(0) == key && at(s.size() - 1) == op::checksig && valid_pubkey_size(s.subspan(1, key))) {
      out.type = script_type::pubkey;
      out.payload = s.subspan(1, key);
      return out;
    }
  }
  // Pay to public key hash.
  if (s.size() == 25 && at(0) == op::dup && at(1) == op::hash160 && at(2) == 20 && at(23) == op::equalverify && at(24) == op::checksig) {
    out.type = script_type::pubkeyhash;
    out.payload = s.subspan(3, 20);
    return out;
  }
  // Bare multisig: m, keys, n, OP_CHECKMULTISIG (at most 20 keys).
  if (!s.empty() && at(s.size() - 1) == op::checkmultisig) {
    ScriptReader reader(s);
    const auto first = reader.next();
    const auto m = first ? script_count(*first, 1, 20) : std::nullopt;
    if (!m) return out;
    std::optional<ScriptOp> o;
    std::vector<std::span<const std::byte>> keys;
    while (!reader.done() && (o = reader.next()) && valid_pubkey_size(o->data)) keys.push_back(o->data);
    if (!o || valid_pubkey_size(o->data)) return out;
    const auto n = script_count(*o, *m, 20);
    // After n, exactly one byte must remain: OP_CHECKMULTISIG.
    if (!n || keys.size() != *n) return out;
    const auto last = reader.next();
    if (!last || last->opcode != op::checkmultisig || !reader.done()) return out;
    out.type = script_type::multisig;
    out.required = *m;
    out.keys = std::move(keys);
    return out;
  }
  return out;
}

}  // namespace blockwire
