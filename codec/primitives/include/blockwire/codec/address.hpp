// Addresses, as Bitcoin Core encodes and decodes them for each network:
// Base58Check for P2PKH and P2SH, bech32 (BIP173) for witness version 0,
// bech32m (BIP350) for versions 1 to 16.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace blockwire {

namespace address {

enum class errc : int {
  bad_base58 = 1,          // a character outside Base58's alphabet
  bad_base58_checksum,     // Base58 that decodes, with a wrong checksum or length
  unknown_prefix,          // a Base58Check version byte of no address type on this network
  bad_bech32,              // not bech32 at all: bad characters, mixed case, no separator, too long
  bad_bech32_checksum,     // bech32 with a checksum that is neither bech32 nor bech32m
  wrong_network,           // a bech32 human-readable part of another network
  wrong_checksum_variant,  // version 0 with bech32m, or version 1+ with bech32
  bad_witness_version,     // a witness version above 16
  bad_witness_program,     // a program of a size its version does not allow
  bad_padding,             // leftover bits in the data section
};

const std::error_category& category() noexcept;
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

}  // namespace address

// The address Core prints for an output script on `net`, or nothing: for
// pubkey, multisig, nulldata and nonstandard scripts there is none.
std::optional<std::string> encode_address(std::span<const std::byte> script, network net);

// The output script an address stands for on `net`; the error says what is
// wrong with it.
result<std::vector<std::byte>> decode_address(std::string_view address, network net);

// The pieces, for other uses.
std::string base58check_encode(std::span<const std::byte> payload);
result<std::vector<std::byte>> base58check_decode(std::string_view text);
std::string segwit_address(std::string_view hrp, unsigned version, std::span<const std::byte> program);

}  // namespace blockwire

template <>
struct std::is_error_code_enum<blockwire::address::errc> : std::true_type {};
