// The networks whose block files blockwire reads, and their magic bytes
// (the first four bytes of every record in a blk*.dat file).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace blockwire {

enum class network { mainnet, testnet3, testnet4, signet, regtest };

using Magic = std::array<std::byte, 4>;

Magic magic(network net) noexcept;
// "mainnet" (or "main"), "testnet3" (or "test"), "testnet4", "signet", "regtest".
std::optional<network> network_from_name(std::string_view name) noexcept;
std::string_view name(network net) noexcept;

}  // namespace blockwire
