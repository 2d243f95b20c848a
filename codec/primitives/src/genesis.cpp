// The genesis blocks. The fields are Bitcoin Core's (kernel/chainparams.cpp,
// CreateGenesisBlock): one coinbase whose script_sig pushes 486604799, the
// number 4 and a newspaper headline, paying 50 BTC to a script.
#include <blockwire/codec/block.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/io/hex.hpp>

#include <string_view>

namespace blockwire {
namespace {

constexpr std::string_view times_headline = "The Times 03/Jan/2009 Chancellor on brink of second bailout for banks";
constexpr std::string_view satoshi_key =
    "04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f";
constexpr std::string_view testnet4_headline = "03/May/2024 000000000000000000001ebd58c244970b3aa9d783bb001011fbe8ea8e98e00e";

struct GenesisFields {
  std::string_view headline;
  std::string_view key_hex;  // pushed before OP_CHECKSIG
  std::uint32_t time;
  std::uint32_t nonce;
  std::uint32_t bits;
};

GenesisFields fields(network net) {
  switch (net) {
    case network::testnet3: return {times_headline, satoshi_key, 1296688602, 414098458, 0x1d00ffff};
    case network::testnet4:
      return {testnet4_headline, "000000000000000000000000000000000000000000000000000000000000000000", 1714777860, 393743547, 0x1d00ffff};
    case network::signet: return {times_headline, satoshi_key, 1598918400, 52613770, 0x1e0377ae};
    case network::regtest: return {times_headline, satoshi_key, 1296688602, 2, 0x207fffff};
    case network::mainnet: break;
  }
  return {times_headline, satoshi_key, 1231006505, 2083236893, 0x1d00ffff};
}

// A minimal push of `data` (at most 255 bytes here).
void push(std::vector<std::byte>& script, std::span<const std::byte> data) {
  if (data.size() >= 0x4c) script.push_back(std::byte{0x4c});  // OP_PUSHDATA1
  script.push_back(static_cast<std::byte>(data.size()));
  script.insert(script.end(), data.begin(), data.end());
}

}  // namespace

Block genesis_block(network net) {
  const GenesisFields f = fields(net);
  std::vector<std::byte> script_sig{std::byte{0x04}, std::byte{0xff}, std::byte{0xff}, std::byte{0x00}, std::byte{0x1d},  // 486604799
                                    std::byte{0x01}, std::byte{0x04}};                                                    // 4
  push(script_sig, std::as_bytes(std::span(f.headline)));
  std::vector<std::byte> script_pubkey;
  push(script_pubkey, from_hex(f.key_hex).value());
  script_pubkey.push_back(std::byte{0xac});  // OP_CHECKSIG

  Block block;
  TransactionBuilder coinbase;
  coinbase.version = 1;
  coinbase.add_input(OutPoint{}, script_sig);
  coinbase.add_output(Amount::from_sat(50 * Amount::coin), script_pubkey);
  block.transactions.push_back(coinbase.build());
  block.header.version = 1;
  block.header.time = f.time;
  block.header.nonce = f.nonce;
  block.header.bits = f.bits;
  block.header.merkle_root = merkle_root(block);
  return block;
}

}  // namespace blockwire
