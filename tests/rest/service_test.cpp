// rest::Service as a library call, no HTTP: every request of the REST
// session recorded from Bitcoin Core's own node (-rest -txindex
// -blockfilterindex) over its directory, answered from a copy of it as
// Core answered.
#include "../support/temp_dir.hpp"

#include <blockwire/directory.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/rest.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

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
