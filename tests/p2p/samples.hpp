// The sample messages of the P2P tests, and the values python-bitcoinlib
// rebuilds them from (tests/p2p/bitcoinlib_check.py mirrors this file).
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/p2p.hpp>
#include <blockwire/p2p/compact_blocks.hpp>

#include "../support/test_data.hpp"

#include <vector>

namespace test {

// 32 bytes: byte i is seed * 31 + i (mod 256).
inline blockwire::Hash256 hash_of(int seed) {
  blockwire::Hash256 h;
  for (std::size_t i = 0; i < 32; ++i) h.bytes()[i] = static_cast<std::byte>(seed * 31 + static_cast<int>(i));
  return h;
}
inline blockwire::BlockHash block_hash_of(int seed) { return blockwire::BlockHash::from_raw_hash(hash_of(seed)); }

// 1.2.3.4 as an IPv4-mapped IPv6 address, and 2001:db8::1.
inline std::array<std::byte, 16> ipv4_mapped_1234() {
  std::array<std::byte, 16> ip{};
  ip[10] = ip[11] = std::byte{0xff};
  ip[12] = std::byte{1}, ip[13] = std::byte{2}, ip[14] = std::byte{3}, ip[15] = std::byte{4};
  return ip;
}
inline std::array<std::byte, 16> ipv6_2001_db8_1() {
  std::array<std::byte, 16> ip{};
  ip[0] = std::byte{0x20}, ip[1] = std::byte{0x01}, ip[2] = std::byte{0x0d}, ip[3] = std::byte{0xb8}, ip[15] = std::byte{1};
  return ip;
}

// 32 bytes, as a Tor v3 address has: hash_of(10).
inline std::vector<std::byte> torv3_address() {
  const blockwire::Hash256 h = hash_of(10);
  return {h.bytes().begin(), h.bytes().end()};
}

inline constexpr std::uint64_t cmpct_nonce = 0x0123456789abcdef;

inline std::vector<blockwire::p2p::Message> p2p_samples() {
  using namespace blockwire;
  using namespace blockwire::p2p;
  Version v;
  v.services = 0x409;
  v.timestamp = 1'700'000'000;
  v.receiver.port = 8333;
  v.receiver.ip[10] = v.receiver.ip[11] = std::byte{0xff};  // ::ffff:0.0.0.0, IPv4-mapped
  v.sender.ip[10] = v.sender.ip[11] = std::byte{0xff};
  v.nonce = 0x1122334455667788;
  v.user_agent = "/blockwire:0.1/";
  v.start_height = 850'000;
  v.relay = true;
  const Block block = decode_block(test::block413567()).value();
  const Block segwit = decode_block(test::segwit_block()).value();
  return {v,
          Verack{},
          Ping{42},
          Pong{43},
          SendHeaders{},
          SendCmpct{true, 2},
          WtxidRelay{},
          SendAddrV2{},
          FeeFilter{1000},
          GetAddr{},
          Inv{{{inv::tx, test::hash_of(1)}, {inv::block | inv::witness_flag, test::hash_of(2)}}},
          GetData{{{inv::wtx, test::hash_of(3)}}},
          NotFound{{{inv::tx, test::hash_of(4)}}},
          GetHeaders{protocol_version, {test::block_hash_of(5), test::block_hash_of(6)}, BlockHash::all_zeros()},
          GetBlocks{protocol_version, {test::block_hash_of(7)}, test::block_hash_of(8)},
          Headers{{block.header, segwit.header}},
          BlockMessage{block},
          TxMessage{segwit.transactions[1]},
          Reject{"tx", 0x10, "bad-txns-inputs-missingorspent", test::hash_of(9)},
          Addr{{{1'700'000'100, {1, ipv4_mapped_1234(), 8333}}, {1'700'000'200, {0x409, ipv6_2001_db8_1(), 18333}}}},
          AddrV2{{{1'700'000'300, 0x409, net_id::ipv4, {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}}, 8333},
                  {1'700'000'400, 1, net_id::torv3, torv3_address(), 9050},
                  {1'700'000'500, 0, 42, std::vector<std::byte>(5, std::byte{0xab}), 1}}},  // an unknown network, kept
          make_cmpctblock(segwit, cmpct_nonce),
          GetBlockTxn{block_hash(segwit.header), {1, 2, 5, 1000}},
          BlockTxn{block_hash(segwit.header), {segwit.transactions[1], segwit.transactions[2]}},
          GetCFilters{0, 1000, test::block_hash_of(10)},
          CFilter{0,
                  test::block_hash_of(11),
                  {std::byte{0x01}, std::byte{0x9d}, std::byte{0xfc}, std::byte{0xa8}}},  // genesis' filter (BIP158 vectors)
          GetCFHeaders{0, 2000, test::block_hash_of(12)},
          CFHeaders{0, test::block_hash_of(13), test::hash_of(14), {test::hash_of(15), test::hash_of(16)}},
          GetCFCheckpt{0, test::block_hash_of(17)},
          CFCheckpt{0, test::block_hash_of(18), {test::hash_of(19), test::hash_of(20), test::hash_of(21)}}};
}

}  // namespace test
