// rest::Service as a library call, no HTTP: every request of the REST
// session recorded from Bitcoin Core's own node (-rest -txindex
// -blockfilterindex) over its directory, answered from a copy of it as
// Core answered.
#include "../support/temp_dir.hpp"

#include <blockwire/directory.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/rest.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>

namespace fs = std::filesystem;
using namespace blockwire;

namespace {

const std::string core_data = BLOCKWIRE_TEST_DATA "/core-regtest";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("rest::Service: every request of Core's recorded REST session answered as Core answered it: status, content type, body") {
  test::TempDir temp;
  fs::copy(core_data + "/blocks", temp.file("blocks"), fs::copy_options::recursive);
  fs::copy(core_data + "/chainstate", temp.file("chainstate"), fs::copy_options::recursive);
  test::CacheAt cache;
  auto dir = BlocksDirectory::open(temp.file("blocks"));
  REQUIRE(dir);
  BlockStore store(std::move(dir).value());
  REQUIRE(store.enable_filters());
  auto tx_index = TxIndex::open(store.directory());
  REQUIRE(tx_index);
  CHECK(rest::utxo_set_beside(temp.file("blocks")) == temp.file("chainstate"));
  const rest::Service service(store, rest::Sources{&tx_index.value(), rest::utxo_set_beside(temp.file("blocks"))});

  const auto manifest = nlohmann::json::parse(read_file(core_data + "/rest/manifest.json"));
  std::size_t compared = 0;
  for (const auto& entry : manifest) {
    const std::string path = entry["path"].get<std::string>();
    CAPTURE(path);
    const rest::Response got = service.get(path);
    const std::string want = read_file(core_data + "/rest/" + entry["body_file"].get<std::string>());
    CHECK(got.status == entry["status"].get<unsigned>());
    CHECK(got.content_type == entry["content_type"].get<std::string>());
    if (entry["content_type"] == "application/json" && got.status == 200) {
      // The same values with the keys in the same order; the warnings of
      // Core's own (pre-release) build are no directory's.
      auto theirs = nlohmann::ordered_json::parse(want);
      if (path == "/rest/chaininfo.json") theirs["warnings"] = nlohmann::ordered_json::array();
      CHECK(nlohmann::ordered_json::parse(got.body) == theirs);
    } else {
      CHECK(got.body == want);
    }
    ++compared;
  }
  CHECK(compared == manifest.size());
  CHECK(compared > 300);
  // A route Core has not: its 404 with libevent's content type.
  CHECK(service.get("/rest/nothing").status == 404);
}

TEST_CASE("rest::Service: Esplora's chain and block routes say what Core's getblock says of every block, in Esplora's shapes") {
  test::TempDir temp;
  fs::copy(core_data + "/blocks", temp.file("blocks"), fs::copy_options::recursive);
  test::CacheAt cache;
  auto dir = BlocksDirectory::open(temp.file("blocks"));
  REQUIRE(dir);
  BlockStore store(std::move(dir).value());
  const rest::Service service(store, rest::Sources{});
  const auto rpc = [](const std::string& name) { return nlohmann::json::parse(read_file(core_data + "/rpc/" + name + ".json")); };
  const auto text = [&](const std::string& path, unsigned status = 200) {
    const rest::Response r = service.get(path);
    CAPTURE(path);
    CHECK(r.status == status);
    CHECK(r.content_type == "text/plain");
    return r.body;
  };
  CHECK(text("/api/blocks/tip/height") == std::to_string(rpc("getblockcount").get<int>()));
  CHECK(text("/api/blocks/tip/hash") == rpc("getbestblockhash").get<std::string>());

  const auto blocks = rpc("getblock3");
  const auto raw = rpc("getblock0");
  const auto hashes = rpc("getblockhash");
  REQUIRE(blocks.size() == hashes.size());
  for (std::size_t h = 0; h < blocks.size(); ++h) {
    const auto& core = blocks[h];
    const std::string hash = core["hash"].get<std::string>();
    CAPTURE(h);
    CHECK(text("/api/block-height/" + std::to_string(h)) == hashes[h].get<std::string>());
    const rest::Response got = service.get("/api/block/" + hash);
    REQUIRE(got.status == 200);
    CHECK(got.content_type == "application/json");
    const auto esplora = nlohmann::json::parse(got.body);
    CHECK(esplora["id"] == hash);
    CHECK(esplora["height"] == core["height"]);
    CHECK(esplora["version"] == core["version"]);
    CHECK(esplora["timestamp"] == core["time"]);
    CHECK(esplora["tx_count"] == core["nTx"]);
    CHECK(esplora["size"] == core["size"]);
    CHECK(esplora["weight"] == core["weight"]);
    CHECK(esplora["merkle_root"] == core["merkleroot"]);
    CHECK(esplora["previousblockhash"] == core.value("previousblockhash", nlohmann::json()));  // null for genesis
    CHECK(esplora["mediantime"] == core["mediantime"]);
    CHECK(esplora["nonce"] == core["nonce"]);
    CHECK(esplora["bits"] == std::stoul(core["bits"].get<std::string>(), nullptr, 16));  // a number in Esplora
    // (Core prints 16 significant digits; Esplora the shortest text that
    // reads back as the same double.)
    CHECK(esplora["difficulty"].get<double>() == doctest::Approx(core["difficulty"].get<double>()).epsilon(1e-15));
    // The block's bytes and header as Core's getblock 0 gives them, its
    // txids as getblock 3 lists them.
    const std::string hex = raw[h].get<std::string>();
    CHECK(text("/api/block/" + hash + "/header") == hex.substr(0, 160));
    const rest::Response bytes = service.get("/api/block/" + hash + "/raw");
    CHECK(bytes.content_type == "application/octet-stream");
    CHECK(to_hex(std::as_bytes(std::span(bytes.body))) == hex);
    nlohmann::json txids = nlohmann::json::array();
    for (const auto& tx : core["tx"]) txids.push_back(tx["txid"]);
    CHECK(nlohmann::json::parse(service.get("/api/block/" + hash + "/txids").body) == txids);
    CHECK(text("/api/block/" + hash + "/txid/" + std::to_string(txids.size() - 1)) == txids.back().get<std::string>());
    const auto status = nlohmann::json::parse(service.get("/api/block/" + hash + "/status").body);
    CHECK(status["in_best_chain"] == true);
    CHECK(status["height"] == core["height"]);
    CHECK(status["next_best"] == core.value("nextblockhash", nlohmann::json()));  // null at the tip
  }
  // The reorganization's stale blocks: found, not on the best chain.
  for (const auto& stale : rpc("stale_blocks")) {
    const std::string hash = stale["hash"].get<std::string>();
    CAPTURE(hash);
    CHECK(nlohmann::json::parse(service.get("/api/block/" + hash + "/status").body) == nlohmann::json{{"in_best_chain", false}});
    const std::string stale_bytes = service.get("/api/block/" + hash + "/raw").body;
    CHECK(to_hex(std::as_bytes(std::span(stale_bytes))) == stale["getblock0"].get<std::string>());
  }
  // Esplora's refusals, in its words.
  const std::string tip = rpc("getbestblockhash").get<std::string>();
  CHECK(text("/api/block/xyz", 400) == "Invalid hex string");
  CHECK(text("/api/block/" + std::string(64, '0'), 404) == "Block not found");
  CHECK(text("/api/block/" + tip + "/txid/1000000", 404) == "tx index out of range");
  CHECK(text("/api/block/" + tip + "/txid/x", 400) == "Invalid number");
  CHECK(text("/api/block-height/238", 404) == "Block not found");
  CHECK(text("/api/block-height/99999999999999999999999", 400) == "Invalid number");
  CHECK(text("/api/block-height/-1", 400) == "Invalid number");
}

TEST_CASE(
    "rest::Service: Esplora's transaction routes: every transaction of Core's chain where getblock puts it, its bytes, a merkle proof that "
    "folds to Core's root") {
  test::TempDir temp;
  fs::copy(core_data + "/blocks", temp.file("blocks"), fs::copy_options::recursive);
  test::CacheAt cache;
  auto dir = BlocksDirectory::open(temp.file("blocks"));
  REQUIRE(dir);
  BlockStore store(std::move(dir).value());
  auto tx_index = TxIndex::open(store.directory());
  REQUIRE(tx_index);
  const rest::Service service(store, rest::Sources{&tx_index.value(), {}});
  const auto blocks = nlohmann::json::parse(read_file(core_data + "/rpc/getblock3.json"));
  std::size_t proofs = 0;
  for (std::size_t h = 1; h < blocks.size(); ++h) {  // (genesis' coinbase is in no index, as in Core)
    const auto& block = blocks[h];
    const Hash256 root = Hash256::from_hex(block["merkleroot"].get<std::string>()).value();
    for (std::size_t i = 0; i < block["tx"].size(); ++i) {
      const auto& tx = block["tx"][i];
      const std::string txid = tx["txid"].get<std::string>();
      CAPTURE(txid);
      const auto status = nlohmann::json::parse(service.get("/api/tx/" + txid + "/status").body);
      CHECK(status ==
            nlohmann::json{{"confirmed", true}, {"block_height", h}, {"block_hash", block["hash"]}, {"block_time", block["time"]}});
      const rest::Response hex = service.get("/api/tx/" + txid + "/hex");
      CHECK(hex.content_type == "text/plain");
      CHECK(hex.body == tx["hex"].get<std::string>());
      const std::string raw = service.get("/api/tx/" + txid + "/raw").body;
      CHECK(to_hex(std::as_bytes(std::span(raw))) == tx["hex"].get<std::string>());
      // The branch, folded from the txid up, gives Core's merkle root.
      const auto proof = nlohmann::json::parse(service.get("/api/tx/" + txid + "/merkle-proof").body);
      CHECK(proof["block_height"] == h);
      CHECK(proof["pos"] == i);
      Hash256 at = Hash256::from_hex(txid).value();
      std::size_t pos = i;
      for (const auto& sibling : proof["merkle"]) {
        const Hash256 other = Hash256::from_hex(sibling.get<std::string>()).value();
        std::array<std::byte, 64> pair{};
        const Hash256& left = pos % 2 == 0 ? at : other;
        const Hash256& right = pos % 2 == 0 ? other : at;
        std::copy(left.bytes().begin(), left.bytes().end(), pair.begin());
        std::copy(right.bytes().begin(), right.bytes().end(), pair.begin() + 32);
        at = sha256d(pair);
        pos /= 2;
      }
      CHECK(at == root);
      ++proofs;
    }
  }
  CHECK(proofs == 378);  // Core's 379 transactions on the best chain, genesis' coinbase aside
  // A txid the index does not hold: unconfirmed to /status, else not found.
  const std::string unknown(64, '1');
  CHECK(nlohmann::json::parse(service.get("/api/tx/" + unknown + "/status").body) == nlohmann::json{{"confirmed", false}});
  CHECK(service.get("/api/tx/" + unknown + "/hex").status == 404);
  CHECK(service.get("/api/tx/" + unknown + "/merkle-proof").body == "Transaction not found or is unconfirmed");
  CHECK(service.get("/api/tx/nothex/hex").body == "Invalid hex string");
  // Without the index: said, not "not found".
  const rest::Service without(store, rest::Sources{});
  CHECK(without.get("/api/tx/" + blocks[1]["tx"][0]["txid"].get<std::string>() + "/status").status == 503);
}
