#include <blockwire/codec/network.hpp>

#include <algorithm>

namespace blockwire {
namespace {

struct Params {
  network net;
  std::string_view name;
  std::string_view alias;  // the name Bitcoin Core's -chain= takes, where it differs
  std::uint8_t magic[4];
  std::uint16_t port;
  std::uint32_t pow_limit_bits;
  std::string_view genesis;
  std::uint8_t pubkey_prefix;
  std::uint8_t script_prefix;
  std::string_view hrp;
};

// From Bitcoin Core's kernel/chainparams.cpp.
constexpr Params table[] = {
    {network::mainnet,
     "mainnet",
     "main",
     {0xf9, 0xbe, 0xb4, 0xd9},
     8333,
     0x1d00ffff,
     "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
     0x00,
     0x05,
     "bc"},
    {network::testnet3,
     "testnet3",
     "test",
     {0x0b, 0x11, 0x09, 0x07},
     18333,
     0x1d00ffff,
     "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
     0x6f,
     0xc4,
     "tb"},
    {network::testnet4,
     "testnet4",
     "testnet4",
     {0x1c, 0x16, 0x3f, 0x28},
     48333,
     0x1d00ffff,
     "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043",
     0x6f,
     0xc4,
     "tb"},
    {network::signet,
     "signet",
     "signet",
     {0x0a, 0x03, 0xcf, 0x40},
     38333,
     0x1e0377ae,
     "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
     0x6f,
     0xc4,
     "tb"},
    {network::regtest,
     "regtest",
     "regtest",
     {0xfa, 0xbf, 0xb5, 0xda},
     18444,
     0x207fffff,
     "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
     0x6f,
     0xc4,
     "bcrt"},
};

const Params& params(network net) noexcept {
  for (const Params& p : table) {
    if (p.net == net) return p;
  }
  return table[0];
}

}  // namespace

Magic magic(network net) noexcept {
  const auto& m = params(net).magic;
  return {std::byte{m[0]}, std::byte{m[1]}, std::byte{m[2]}, std::byte{m[3]}};
}

std::uint16_t default_port(network net) noexcept { return params(net).port; }
std::uint32_t pow_limit_bits(network net) noexcept { return params(net).pow_limit_bits; }
BlockHash genesis_hash(network net) noexcept { return BlockHash::from_hex(params(net).genesis).value(); }
std::string_view name(network net) noexcept { return params(net).name; }
std::uint8_t pubkey_address_prefix(network net) noexcept { return params(net).pubkey_prefix; }
std::uint8_t script_address_prefix(network net) noexcept { return params(net).script_prefix; }
std::string_view bech32_hrp(network net) noexcept { return params(net).hrp; }

std::optional<network> network_from_name(std::string_view name) noexcept {
  for (const Params& p : table) {
    if (name == p.name || name == p.alias) return p.net;
  }
  return std::nullopt;
}

std::optional<network> network_from_magic(std::span<const std::byte, 4> bytes) noexcept {
  for (const Params& p : table) {
    if (std::equal(bytes.begin(), bytes.end(), magic(p.net).begin())) return p.net;
  }
  return std::nullopt;
}

}  // namespace blockwire
