// The sample messages of the P2P tests, and the values python-bitcoinlib
// rebuilds them from (tests/p2p/bitcoinlib_check.py mirrors this file).
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/p2p.hpp>

#include "../support/test_data.hpp"

#include <vector>

namespace test {

// 32 bytes: byte i is seed * 31 + i (mod 256).
inline blockwire::Hash256 hash_of(int seed) {
  blockwire::Hash256 h;
  for (std::size_t i = 0; i < 32; ++i) h.bytes()[i] = static_cast<std::byte>(seed * 31 + static_cast<int>(i));
  return h;
}

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
          GetHeaders{protocol_version, {test::hash_of(5), test::hash_of(6)}, Hash256{}},
          GetBlocks{protocol_version, {test::hash_of(7)}, test::hash_of(8)},
          Headers{{block.header, segwit.header}},
          BlockMessage{block},
          TxMessage{segwit.transactions[1]},
          Reject{"tx", 0x10, "bad-txns-inputs-missingorspent", test::hash_of(9)}};
}


}  // namespace test
