// Bitcoin's networks and what tells them apart on the wire: the magic bytes
// that begin every blk-file record and P2P message, the default port, the
// genesis block, the easiest proof of work a block may have.
#pragma once

#include <blockwire/codec/ids.hpp>
#include <blockwire/io/hash256.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace blockwire {

enum class network { mainnet, testnet3, testnet4, signet, regtest };

using Magic = std::array<std::byte, 4>;

Magic magic(network net) noexcept;
std::uint16_t default_port(network net) noexcept;
BlockHash genesis_hash(network net) noexcept;
// The easiest target a block may have (Core's powLimit), in compact form.
std::uint32_t pow_limit_bits(network net) noexcept;
// Addresses: the Base58Check version bytes of P2PKH and P2SH, and the
// bech32 human-readable part of witness programs.
std::uint8_t pubkey_address_prefix(network net) noexcept;
std::uint8_t script_address_prefix(network net) noexcept;
std::string_view bech32_hrp(network net) noexcept;

// "mainnet" (or "main"), "testnet3" (or "test"), "testnet4", "signet", "regtest".
std::optional<network> network_from_name(std::string_view name) noexcept;
std::optional<network> network_from_magic(std::span<const std::byte, 4> bytes) noexcept;
std::string_view name(network net) noexcept;

struct Block;
// The network's genesis block, built as Bitcoin Core's CreateGenesisBlock
// builds it (a node writes it itself; no peer sends it). Its hash is
// genesis_hash(net).
Block genesis_block(network net);

}  // namespace blockwire
