#include <blockwire/blockfiles/network.hpp>

namespace blockwire {

Magic magic(network net) noexcept {
  const auto m = [](int a, int b, int c, int d) {
    return Magic{std::byte(a), std::byte(b), std::byte(c), std::byte(d)};
  };
  switch (net) {
    case network::mainnet: return m(0xf9, 0xbe, 0xb4, 0xd9);
    case network::testnet3: return m(0x0b, 0x11, 0x09, 0x07);
    case network::testnet4: return m(0x1c, 0x16, 0x3f, 0x28);
    case network::signet: return m(0x0a, 0x03, 0xcf, 0x40);
    case network::regtest: return m(0xfa, 0xbf, 0xb5, 0xda);
  }
  return m(0xf9, 0xbe, 0xb4, 0xd9);
}

std::optional<network> network_from_name(std::string_view name) noexcept {
  if (name == "mainnet" || name == "main") return network::mainnet;
  if (name == "testnet3" || name == "test") return network::testnet3;
  if (name == "testnet4") return network::testnet4;
  if (name == "signet") return network::signet;
  if (name == "regtest") return network::regtest;
  return std::nullopt;
}

std::string_view name(network net) noexcept {
  switch (net) {
    case network::mainnet: return "mainnet";
    case network::testnet3: return "testnet3";
    case network::testnet4: return "testnet4";
    case network::signet: return "signet";
    case network::regtest: return "regtest";
  }
  return "mainnet";
}

}  // namespace blockwire
