// Scripts, addresses and descriptors against independent sources: Bitcoin
// Core's key_io vectors (tests/data), BIP380's checksum vectors, and asm
// and Solver cases written out by hand from Core's rules.
#include <blockwire/codec.hpp>
#include <blockwire/codec/address.hpp>
#include <blockwire/codec/descriptor.hpp>
#include <blockwire/codec/script.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "../support/test_data.hpp"

#include <cctype>
#include <fstream>
#include <map>

using namespace blockwire;

namespace {

nlohmann::json load_json(const char* name) {
  std::ifstream in(std::string(BLOCKWIRE_TEST_DATA) + "/" + name);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// Hex written with spaces between ops, for reading.
std::vector<std::byte> hex(std::string_view h) {
  std::string digits;
  for (char c : h) {
    if (c != ' ') digits += c;
  }
  return test::from_hex(digits);
}

constexpr network all_networks[] = {network::mainnet, network::testnet3, network::testnet4, network::signet, network::regtest};

}  // namespace

TEST_CASE("addresses: every key_io_valid.json address decodes to its script on its chain and encodes back") {
  const auto vectors = load_json("key_io_valid.json");
  std::size_t addresses = 0;
  for (const auto& v : vectors) {
    const std::string text = v[0];
    const auto& meta = v[2];
    CAPTURE(text);
    const auto net = network_from_name(meta["chain"].get<std::string>());
    REQUIRE(net);
    if (meta["isPrivkey"].get<bool>()) {
      CHECK_FALSE(decode_address(text, *net));  // a private key is no address
      continue;
    }
    ++addresses;
    const auto script = hex(v[1].get<std::string>());
    const auto decoded = decode_address(text, *net);
    REQUIRE(decoded);
    CHECK(decoded.value() == script);
    CHECK(encode_address(script, *net) == text);
    if (meta.value("tryCaseFlip", false)) {
      std::string flipped = text;
      for (char& c : flipped) c = static_cast<char>(std::isupper(static_cast<unsigned char>(c)) ? std::tolower(c) : std::toupper(c));
      const auto again = decode_address(flipped, *net);
      REQUIRE(again);
      CHECK(again.value() == script);
    }
    // Other networks: refused, unless they share the prefix this address
    // uses (the test networks share Base58 prefixes with regtest, and
    // testnet3, testnet4 and signet share "tb").
    std::string lowered = text;
    for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool bech32 = lowered.starts_with(std::string(bech32_hrp(*net)) + "1");
    for (network other : all_networks) {
      const bool shared = bech32 ? bech32_hrp(other) == bech32_hrp(*net) : pubkey_address_prefix(other) == pubkey_address_prefix(*net);
      if (!shared) CHECK_FALSE(decode_address(text, other));
    }
  }
  CHECK(addresses == 54);
}

TEST_CASE("addresses: every key_io_invalid.json string is refused on every network, with a reason") {
  const auto vectors = load_json("key_io_invalid.json");
  CHECK(vectors.size() == 79);
  for (const auto& v : vectors) {
    const std::string text = v[0];
    CAPTURE(text);
    for (network net : all_networks) {
      const auto r = decode_address(text, net);
      REQUIRE_FALSE(r);
      CHECK(r.error().code().category() == address::category());
    }
  }
  // What the errors say, for a few kinds of mistake.
  CHECK(decode_address("tb1qcrh3yqn4nlleplcez2yndq2ry8h9ncg3qh7n54", network::mainnet).error().code() == address::errc::wrong_network);
  CHECK(decode_address("bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhw", network::mainnet).error().code() ==
        address::errc::bad_bech32_checksum);  // last character changed
  CHECK(decode_address("1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2m0", network::mainnet).error().code() == address::errc::bad_base58);  // '0'
  CHECK(decode_address("1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mp", network::mainnet).error().code() == address::errc::bad_base58_checksum);
}

TEST_CASE("descriptor checksums: BIP380's vectors") {
  CHECK(descriptor_checksum("raw(deadbeef)") == "89f8spxm");
  CHECK(descriptor_checksum("raw(deedbeef)") != "89f8spxm");  // an error in the payload changes it
  CHECK(descriptor_checksum("raw(\xc3\x9c)").empty());        // a character outside the alphabet
  // A key-origin descriptor, checked against Bitcoin Core by the author of the example.
  CHECK(descriptor_checksum("wpkh([d34db33f/84h/0h/0h]0279be667ef9dcbbac55a06295Ce870b07029Bfcdb2dce28d959f2815b16f81798)") == "qwlqgth7");
}

TEST_CASE("asm: Core's ScriptToAsmStr, case by case") {
  // Small pushes are numbers (CScriptNum, sign in the top bit); OP_0 is 0.
  CHECK(to_asm(hex("00")) == "0");
  CHECK(to_asm(hex("0105")) == "5");
  CHECK(to_asm(hex("0181")) == "-1");
  CHECK(to_asm(hex("04ffffffff")) == "-2147483647");
  CHECK(to_asm(hex("02e803")) == "1000");
  CHECK(to_asm(hex("4f 51 60")) == "-1 1 16");
  // Longer pushes are hex; opcodes by name; unassigned bytes OP_UNKNOWN.
  CHECK(to_asm(hex("76a91489abcdefabbaabbaabbaabbaabbaabbaabbaabba88ac")) ==
        "OP_DUP OP_HASH160 89abcdefabbaabbaabbaabbaabbaabbaabbaabba OP_EQUALVERIFY OP_CHECKSIG");
  CHECK(to_asm(hex("6a0b68656c6c6f20776f726c64")) == "OP_RETURN 68656c6c6f20776f726c64");
  CHECK(to_asm(hex("b1b2ba50ff")) == "OP_CHECKLOCKTIMEVERIFY OP_CHECKSEQUENCEVERIFY OP_CHECKSIGADD OP_RESERVED OP_INVALIDOPCODE");
  CHECK(to_asm(hex("bb")) == "OP_UNKNOWN");
  // PUSHDATA1/2/4 with their data; a push that runs past the end is [error].
  CHECK(to_asm(hex("4c0500112233 44")) == "0011223344");
  CHECK(to_asm(hex("4d0500001122334455")).find("[error]") == std::string::npos);
  CHECK(to_asm(hex("76 4c")) == "OP_DUP [error]");
  CHECK(to_asm(hex("0401020304 05aabb")) == "67305985 [error]");
  // Sighash decoding (scriptSig): a strictly DER-encoded signature shows its type.
  const std::string der =
      "3044022053f2b1adfd7ebf0b0fe9c1fd2ed4f20e43cc34a55d1aa9a6db51d91d49e7c6b102203b0c0d83ac4f9b6d7c34f54f02a4e91b6ae3faacb2fb2a1d12bd06d4"
      "e4b22d0b";
  CHECK(to_asm(hex("47" + der + "01"), true) == der + "[ALL]");
  CHECK(to_asm(hex("47" + der + "83"), true) == der + "[SINGLE|ANYONECANPAY]");
  CHECK(to_asm(hex("47" + der + "04"), true) == der + "04");                   // not a defined type
  CHECK(to_asm(hex("47" + der + "01"), false) == der + "01");                  // not asked for
  CHECK(to_asm(hex("6a47" + der + "01"), true) == "OP_RETURN " + der + "01");  // unspendable: not decoded
}

TEST_CASE("solve: Core's standard types") {
  const std::string key33 = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
  const std::string key65 =
      "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8";
  const std::map<std::string, script_type> cases = {
      {"21" + key33 + "ac", script_type::pubkey},
      {"41" + key65 + "ac", script_type::pubkey},
      {"76a914" + std::string(40, '1') + "88ac", script_type::pubkeyhash},
      {"a914" + std::string(40, '2') + "87", script_type::scripthash},
      {"5121" + key33 + "21" + key33 + "52ae", script_type::multisig},
      {"6a", script_type::nulldata},
      {"6a0401020304", script_type::nulldata},
      {"6a50", script_type::nulldata},  // OP_RESERVED counts as a push, as in Core
      {"6a76", script_type::nonstandard},
      {"0014" + std::string(40, '3'), script_type::witness_v0_keyhash},
      {"0020" + std::string(64, '4'), script_type::witness_v0_scripthash},
      {"5120" + std::string(64, '5'), script_type::witness_v1_taproot},
      {"51024e73", script_type::anchor},
      {"5202aaaa", script_type::witness_unknown},
      {"0015" + std::string(42, '6'), script_type::nonstandard},       // version 0, 21 bytes
      {"21" + std::string(66, '8') + "ac", script_type::nonstandard},  // 33 bytes after 0x88: no key
      {"5121" + key33 + "51ae", script_type::multisig},
      {"5221" + key33 + "51ae", script_type::nonstandard},  // 2 of 1
      {"", script_type::nonstandard},
  };
  for (const auto& [h, type] : cases) {
    CAPTURE(h);
    CHECK(solve(hex(h)).type == type);
  }
  const Solution m = solve(hex("5121" + key33 + "41" + key65 + "52ae"));
  CHECK(m.required == 1);
  CHECK(m.keys.size() == 2);
}

TEST_CASE("descriptors: inferred as Core infers them without key information") {
  const std::string key33 = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
  const auto with = [](const std::string& d) { return d + "#" + descriptor_checksum(d); };
  CHECK(infer_descriptor(hex("21" + key33 + "ac"), network::mainnet) == with("pk(" + key33 + ")"));
  CHECK(infer_descriptor(hex("5121" + key33 + "51ae"), network::mainnet) == with("multi(1," + key33 + ")"));
  CHECK(infer_descriptor(hex("76a914a31c06bd463e3923bc1aadbde48b16976c08071788ac"), network::mainnet) ==
        with("addr(1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo)"));
  // Taproot: the generator's x is on the curve; 32 bytes of 0xff are not (no key that large).
  const std::string g_x = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
  CHECK(infer_descriptor(hex("5120" + g_x), network::mainnet) == with("rawtr(" + g_x + ")"));
  const auto off_curve = infer_descriptor(hex("5120" + std::string(64, 'f')), network::mainnet);
  CHECK(off_curve.starts_with("addr(bc1p"));
  CHECK(infer_descriptor(hex("6a0401020304"), network::mainnet) == with("raw(6a0401020304)"));
  // A hybrid key (06): no pk(), and a P2PK has no address: raw().
  CHECK(infer_descriptor(hex("41" + std::string("06") + std::string(128, '1') + "ac"), network::mainnet).starts_with("raw("));
}

TEST_CASE("every output of both real blocks: the address decodes back to the script") {
  std::map<script_type, std::size_t> types;
  for (const auto* raw : {&test::block413567(), &test::segwit_block()}) {
    const auto view = BlockView::parse(*raw).value();
    for (std::size_t t = 0; t < view.transaction_count(); ++t) {
      const TransactionView tx = view.transaction(t);
      for (std::size_t o = 0; o < tx.output_count(); ++o) {
        const auto script = tx.output(o).script_pubkey();
        const Solution s = solve(script);
        ++types[s.type];
        const auto address = encode_address(script, network::mainnet);
        if (!address) continue;
        const auto back = decode_address(*address, network::mainnet);
        REQUIRE(back);
        CHECK(std::ranges::equal(back.value(), script));
      }
    }
  }
  CHECK(types[script_type::pubkeyhash] > 1000);
  CHECK(types[script_type::scripthash] > 100);
  CHECK(types[script_type::witness_v0_keyhash] > 100);
}
