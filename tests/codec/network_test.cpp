// Networks: each genesis header, built from its published fields, hashes to
// the genesis hash the library holds and meets the network's proof-of-work
// limit; magics and names map both ways.
#include <blockwire/codec.hpp>

#include <doctest/doctest.h>

using namespace blockwire;

namespace {

BlockHeader genesis_header(std::uint32_t time, std::uint32_t bits, std::uint32_t nonce) {
  BlockHeader h;
  h.version = 1;
  // Every network's genesis coinbase is the same transaction.
  h.merkle_root = Hash256::from_hex("4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b").value();
  h.time = time;
  h.bits = bits;
  h.nonce = nonce;
  return h;
}

}  // namespace

TEST_CASE("networks: genesis headers hash to the genesis hashes, within each network's pow limit") {
  struct Case {
    network net;
    BlockHeader header;
  };
  // Fields from Bitcoin Core's chainparams (CreateGenesisBlock calls).
  const Case cases[] = {
      {network::mainnet, genesis_header(1231006505, 0x1d00ffff, 2083236893)},
      {network::testnet3, genesis_header(1296688602, 0x1d00ffff, 414098458)},
      {network::regtest, genesis_header(1296688602, 0x207fffff, 2)},
  };
  for (const Case& c : cases) {
    CAPTURE(name(c.net));
    CHECK(block_hash(c.header) == genesis_hash(c.net));
    const auto limit = Target::from_bits(pow_limit_bits(c.net));
    REQUIRE(limit);
    CHECK(limit->met_by(genesis_hash(c.net)));
  }
  // A mainnet target is far below regtest's limit, and not the other way round.
  CHECK(*Target::from_bits(pow_limit_bits(network::mainnet)) < *Target::from_bits(pow_limit_bits(network::regtest)));
  CHECK_FALSE(*Target::from_bits(pow_limit_bits(network::regtest)) <= *Target::from_bits(pow_limit_bits(network::mainnet)));
}

TEST_CASE("networks: names and magics both ways, Core's -chain names accepted") {
  for (network net : {network::mainnet, network::testnet3, network::testnet4, network::signet, network::regtest}) {
    CHECK(network_from_name(name(net)) == net);
    const Magic m = magic(net);
    CHECK(network_from_magic(m) == net);
  }
  CHECK(network_from_name("main") == network::mainnet);
  CHECK(network_from_name("test") == network::testnet3);
  CHECK(!network_from_name("mainnet "));
  const Magic mainnet{std::byte{0xf9}, std::byte{0xbe}, std::byte{0xb4}, std::byte{0xd9}};
  CHECK(magic(network::mainnet) == mainnet);
  CHECK(default_port(network::mainnet) == 8333);
  CHECK(default_port(network::regtest) == 18444);
  const Magic nothing{};
  CHECK(!network_from_magic(nothing));
}

TEST_CASE("Target::from_bits: Core's compact form, its invalid encodings refused") {
  const auto t = Target::from_bits(0x1d00ffff);  // 0x00000000ffff0000...0000
  REQUIRE(t);
  CHECK(t->to_hex() == "00000000ffff0000000000000000000000000000000000000000000000000000");
  CHECK(!Target::from_bits(0x1d80ffff));  // negative
  CHECK(!Target::from_bits(0x1d000000));  // zero
  CHECK(!Target::from_bits(0xff00ffff));  // overflows 256 bits
  CHECK(Target::from_bits(0x03123456)->to_hex() == std::string(58, '0') + "123456");
  // Mantissas that straddle two 64-bit limbs, and the top of the range
  // (expected values: Python's integers, 0x123456 << 8 * (exponent - 3)).
  CHECK(Target::from_bits(0x0a123456)->to_hex() == "0000000000000000000000000000000000000000000012345600000000000000");
  CHECK(Target::from_bits(0x0b123456)->to_hex() == "0000000000000000000000000000000000000000001234560000000000000000");
  CHECK(Target::from_bits(0x20123456)->to_hex() == "1234560000000000000000000000000000000000000000000000000000000000");
  CHECK(Target::from_bits(0x2100ffff)->to_hex() == "ffff000000000000000000000000000000000000000000000000000000000000");
  CHECK(!Target::from_bits(0x2200ff00));  // 0xff00 << 248: past 256 bits
  CHECK(Target::from_bits(0x0b123456) > Target::from_bits(0x0a123456));
  // met_by: a hash at the target meets it, one above does not.
  CHECK(t->met_by(BlockHash::from_hex("00000000ffff0000000000000000000000000000000000000000000000000000").value()));
  CHECK_FALSE(t->met_by(BlockHash::from_hex("00000000ffff0000000000000000000000000000000000000000000000000001").value()));
  CHECK_FALSE(t->met_by(BlockHash::from_hex("0000000100000000000000000000000000000000000000000000000000000000").value()));
  CHECK(t->met_by(BlockHash::from_hex("00000000fffeffffffffffffffffffffffffffffffffffffffffffffffffffff").value()));
}

TEST_CASE("networks: genesis_block of each network hashes to its genesis hash and passes check_block") {
  // The hashes are Core's (chainparams' consensus.hashGenesisBlock asserts):
  // they cover the header, and through the merkle root the coinbase.
  for (network net : {network::mainnet, network::testnet3, network::testnet4, network::signet, network::regtest}) {
    CAPTURE(name(net));
    const Block genesis = genesis_block(net);
    CHECK(block_hash(genesis.header) == genesis_hash(net));
    CHECK(genesis.header.prev_block.is_all_zeros());
    CHECK(check_block(genesis));
    std::vector<std::byte> bytes;
    encode_block(genesis, bytes);
    CHECK(decode_block(bytes).value() == genesis);
  }
  // Mainnet's is 285 bytes, the coinbase's txid its merkle root.
  std::vector<std::byte> bytes;
  encode_block(genesis_block(network::mainnet), bytes);
  CHECK(bytes.size() == 285);
  CHECK(genesis_block(network::mainnet).transactions[0].txid() ==
        Txid::from_hex("4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b").value());
}

TEST_CASE("other_network: a genesis block of another network, bits a network does not allow, or nothing when it can be ours") {
  // Each network's genesis block (Core's hashes) is its own, and another's genesis anywhere else.
  for (network net : {network::mainnet, network::testnet3, network::testnet4, network::signet, network::regtest}) {
    CAPTURE(name(net));
    CHECK_FALSE(other_network(genesis_block(net).header, net));
    const network elsewhere = net == network::mainnet ? network::regtest : network::mainnet;
    const auto other = other_network(genesis_block(net).header, elsewhere);
    REQUIRE(other);
    CHECK(other->genesis);
    CHECK(other->could_be == std::vector<network>{net});
  }
  // A block after regtest's genesis, mined to regtest's bits (about one try in two meets 0x207fffff).
  BlockHeader easy = genesis_block(network::regtest).header;
  easy.prev_block = genesis_hash(network::regtest);
  while (!proof_of_work_ok(block_hash(easy), easy.bits, network::regtest)) ++easy.nonce;
  CHECK_FALSE(other_network(easy, network::regtest));
  const auto on_mainnet = other_network(easy, network::mainnet);
  REQUIRE(on_mainnet);
  CHECK_FALSE(on_mainnet->genesis);
  CHECK(on_mainnet->could_be == std::vector<network>{network::regtest});
  CHECK(on_mainnet->why == "its bits 207fffff are easier than mainnet allows");
  // The same bits without the work: still not mainnet's, but of no network it could be shown to be.
  BlockHeader unmined = easy;
  while (proof_of_work_ok(block_hash(unmined), unmined.bits, network::regtest)) ++unmined.nonce;
  const auto damaged = other_network(unmined, network::mainnet);
  REQUIRE(damaged);
  CHECK(damaged->could_be.empty());
  // Mainnet's genesis bits (0x1d00ffff) on regtest, which never retargets: not regtest's.
  BlockHeader hard = genesis_block(network::mainnet).header;
  hard.prev_block = genesis_hash(network::mainnet);
  const auto on_regtest = other_network(hard, network::regtest);
  REQUIRE(on_regtest);
  CHECK(on_regtest->why.find("are not regtest's") != std::string::npos);
  // A zero-parent header that is no network's genesis.
  BlockHeader stray = genesis_block(network::mainnet).header;
  stray.nonce ^= 1;
  const auto none = other_network(stray, network::mainnet);
  REQUIRE(none);
  CHECK(none->genesis);
  CHECK(none->could_be.empty());
}
