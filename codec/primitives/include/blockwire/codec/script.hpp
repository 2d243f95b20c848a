// Bitcoin scripts read the way Bitcoin Core reads them: opcodes and pushes
// (GetScriptOp), the assembly text of its RPCs (ScriptToAsmStr), and the
// standard output types of its Solver. Reading only: no interpreter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire {

// The opcodes this toolkit names in code; opcode_name() knows them all.
namespace op {
inline constexpr std::uint8_t zero = 0x00;
inline constexpr std::uint8_t pushdata1 = 0x4c;
inline constexpr std::uint8_t pushdata2 = 0x4d;
inline constexpr std::uint8_t pushdata4 = 0x4e;
inline constexpr std::uint8_t one_negate = 0x4f;
inline constexpr std::uint8_t one = 0x51;
inline constexpr std::uint8_t sixteen = 0x60;
inline constexpr std::uint8_t return_ = 0x6a;
inline constexpr std::uint8_t dup = 0x76;
inline constexpr std::uint8_t equal = 0x87;
inline constexpr std::uint8_t equalverify = 0x88;
inline constexpr std::uint8_t hash160 = 0xa9;
inline constexpr std::uint8_t checksig = 0xac;
inline constexpr std::uint8_t checkmultisig = 0xae;
}  // namespace op

// Bitcoin Core's MAX_SCRIPT_SIZE: a longer script is unspendable.
inline constexpr std::size_t max_script_size = 10'000;
// Core's CScript::IsUnspendable: OP_RETURN first, or longer than that.
bool unspendable(std::span<const std::byte> script) noexcept;

struct ScriptOp {
  std::uint8_t opcode;
  std::span<const std::byte> data;  // a push's bytes (empty for other opcodes)
  bool is_push() const noexcept { return opcode <= op::pushdata4; }
};

// The ops of a script, one at a time.
class ScriptReader {
 public:
  explicit ScriptReader(std::span<const std::byte> script) noexcept : rest_(script) {}
  bool done() const noexcept { return rest_.empty(); }
  // The next op; nothing when a push runs past the end of the script (Core's
  // GetScriptOp fails there too, and nothing after it can be read).
  std::optional<ScriptOp> next() noexcept;

 private:
  std::span<const std::byte> rest_;
};

// Core's GetOpName: "OP_DUP", "OP_CHECKSIG", "1" to "16", "-1",
// "OP_UNKNOWN" for an unassigned byte.
std::string_view opcode_name(std::uint8_t opcode) noexcept;

// Core's ScriptToAsmStr: pushes of up to 4 bytes as numbers, longer ones as
// hex; other opcodes by name; "[error]" where a push runs past the end.
// `attempt_sighash_decode` (scriptSig): a push that is a strictly encoded
// signature shows its sighash type as "[ALL]", "[SINGLE|ANYONECANPAY]", ...
std::string to_asm(std::span<const std::byte> script, bool attempt_sighash_decode = false);

// Core's Solver: the standard types, named as its RPCs name them.
enum class script_type {
  nonstandard,
  pubkey,
  pubkeyhash,
  scripthash,
  multisig,
  nulldata,
  witness_v0_keyhash,
  witness_v0_scripthash,
  witness_v1_taproot,
  anchor,
  witness_unknown,
};
std::string_view name(script_type type) noexcept;

struct Solution {
  script_type type = script_type::nonstandard;
  // pubkey: the key; pubkeyhash, scripthash: the 20-byte hash; the witness
  // types and anchor: the witness program.
  std::span<const std::byte> payload;
  unsigned witness_version = 0;                  // the witness types and anchor
  unsigned required = 0;                         // multisig: m of n
  std::vector<std::span<const std::byte>> keys;  // multisig: the n keys
};
Solution solve(std::span<const std::byte> script);

// A public key of a valid size for its first byte (Core's
// CPubKey::ValidSize): 33 bytes after 02/03, 65 after 04/06/07.
bool valid_pubkey_size(std::span<const std::byte> key) noexcept;

}  // namespace blockwire
