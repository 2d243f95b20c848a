// rest::Service as a library call, no HTTP: every request of the REST
// session recorded from Bitcoin Core's own node (-rest -txindex
// -blockfilterindex) over its directory, answered from a copy of it as
// Core answered.
#include "../support/address_truth.hpp"
#include "../support/temp_dir.hpp"

#include <blockwire/directory.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/rest.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>
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

// A copy of Core's regtest blocks folder, opened as rest opens it.
struct CoreBlocks {
  test::TempDir temp;
  test::CacheAt cache;
  BlockStore store{open_copy(temp)};

  static BlocksDirectory open_copy(const test::TempDir& temp) {
    fs::copy(core_data + "/blocks", temp.file("blocks"), fs::copy_options::recursive);
    auto dir = BlocksDirectory::open(temp.file("blocks"));
    REQUIRE(dir);
    return std::move(dir).value();
  }
};

template <class T>
T required(result<T> r) {
  REQUIRE(r);
  return std::move(r).value();
}

// The same with its transaction and address indexes made, rest's Service
// over all of them, and Core's getblock 3 of its chain.
struct CoreIndexed {
  CoreBlocks blocks;
  TxIndex tx_index = required(TxIndex::open(blocks.store.directory()));
  AddressIndex addresses = required(AddressIndex::open(blocks.store.directory()));
  rest::Service service{blocks.store, rest::Sources{&tx_index, {}, &addresses}};
  nlohmann::json getblock3 = nlohmann::json::parse(read_file(core_data + "/rpc/getblock3.json"));
};

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
  CoreBlocks core;
  BlockStore& store = core.store;
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
    "rest::Service: Esplora's transaction routes: every transaction of Core's chain where getblock puts it, with its fee and prevouts, its "
    "bytes, a merkle proof that folds to Core's root") {
  CoreBlocks core;
  BlockStore& store = core.store;
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
      // The transaction itself: Core's fee, prevouts and sizes.
      const auto whole = nlohmann::json::parse(service.get("/api/tx/" + txid).body);
      CHECK(whole["txid"] == txid);
      CHECK(whole["status"] == status);
      CHECK(whole["weight"] == tx["weight"]);
      CHECK(whole["fee"] == (tx.contains("fee") ? test::sats(tx["fee"]) : 0));
      REQUIRE(whole["vin"].size() == tx["vin"].size());
      for (std::size_t k = 0; k < tx["vin"].size(); ++k) {
        if (tx["vin"][k].contains("prevout")) CHECK(whole["vin"][k]["prevout"]["value"] == test::sats(tx["vin"][k]["prevout"]["value"]));
      }
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

TEST_CASE(
    "rest::Service: Esplora's address routes say of every address and script what Core's getblock 3 says: totals, unspent outputs, every "
    "transaction page by page") {
  CoreIndexed core;
  BlockStore& store = core.blocks.store;
  const rest::Service& service = core.service;
  const nlohmann::json& blocks = core.getblock3;
  test::AddressTruth truth;
  std::map<std::string, nlohmann::json> core_tx;  // Core's JSON of each transaction
  for (const auto& block : blocks) {
    test::add_block(truth, block);
    for (const auto& tx : block["tx"]) core_tx[tx["txid"].get<std::string>()] = tx;
  }
  const auto json = [&](const std::string& path) {
    const rest::Response r = service.get(path);
    CAPTURE(path);
    CAPTURE(r.body);
    REQUIRE(r.status == 200);
    CHECK(r.content_type == "application/json");
    return nlohmann::json::parse(r.body);
  };
  std::size_t addressed = 0, listed = 0;
  for (const auto& [script, t] : truth) {
    CAPTURE(script);
    const std::string scripthash = to_hex(sha256(from_hex(script).value()).bytes());
    std::vector<std::string> roots{"/api/scripthash/" + scripthash};
    if (!t.address.empty()) roots.push_back("/api/address/" + t.address);
    for (const std::string& root : roots) {
      const auto stats = json(root);
      if (t.address.empty() || root.starts_with("/api/scripthash/")) {
        CHECK(stats["scripthash"] == scripthash);
      } else {
        CHECK(stats["address"] == t.address);
        ++addressed;
      }
      std::int64_t funded_sum = 0, spent_sum = 0;
      for (const auto& f : t.funded) funded_sum += f.value;
      for (const auto& s : t.spent) spent_sum += s.value;
      CHECK(stats["chain_stats"]["tx_count"] == t.txs.size());
      CHECK(stats["chain_stats"]["funded_txo_count"] == t.funded.size());
      CHECK(stats["chain_stats"]["funded_txo_sum"] == funded_sum);
      CHECK(stats["chain_stats"]["spent_txo_count"] == t.spent.size());
      CHECK(stats["chain_stats"]["spent_txo_sum"] == spent_sum);
      CHECK(stats["mempool_stats"]["tx_count"] == 0);

      std::set<std::tuple<std::string, std::uint32_t, std::int64_t, std::uint32_t>> expected, got;
      for (const auto& u : t.unspent()) expected.insert({u.txid, u.vout, u.value, u.height});
      for (const auto& u : json(root + "/utxo")) {
        CHECK(u["status"]["confirmed"] == true);
        CHECK(u["status"]["block_hash"] == blocks[u["status"]["block_height"].get<std::size_t>()]["hash"]);
        got.insert({u["txid"].get<std::string>(), u["vout"].get<std::uint32_t>(), u["value"].get<std::int64_t>(),
                    u["status"]["block_height"].get<std::uint32_t>()});
      }
      CHECK(got == expected);

      // Every transaction, newest first, 25 a page, each page after the
      // last one's last transaction; /txs is the first page.
      std::vector<std::string> want;
      for (auto i = t.txs.rbegin(); i != t.txs.rend(); ++i) want.push_back(i->txid);
      std::vector<std::string> seen;
      std::string path = root + "/txs";
      for (;;) {
        const auto page = json(path);
        CHECK(page.size() <= 25);
        for (const auto& tx : page) {
          const std::string txid = tx["txid"].get<std::string>();
          seen.push_back(txid);
          const auto& core = core_tx.at(txid);
          CHECK(tx["weight"] == core["weight"]);
          CHECK(tx["size"] == core["size"]);
          CHECK(tx["status"]["confirmed"] == true);
          REQUIRE(tx["vout"].size() == core["vout"].size());
          for (std::size_t k = 0; k < core["vout"].size(); ++k) {
            CHECK(tx["vout"][k]["value"] == test::sats(core["vout"][k]["value"]));
            CHECK(tx["vout"][k]["scriptpubkey"] == core["vout"][k]["scriptPubKey"]["hex"]);
            CHECK(tx["vout"][k].value("scriptpubkey_address", "") == core["vout"][k]["scriptPubKey"].value("address", ""));
          }
          REQUIRE(tx["vin"].size() == core["vin"].size());
          for (std::size_t k = 0; k < core["vin"].size(); ++k) {
            const auto& in = core["vin"][k];
            CHECK(tx["vin"][k]["is_coinbase"] == in.contains("coinbase"));
            if (!in.contains("prevout")) continue;
            CHECK(tx["vin"][k]["prevout"]["value"] == test::sats(in["prevout"]["value"]));
            CHECK(tx["vin"][k]["prevout"]["scriptpubkey"] == in["prevout"]["scriptPubKey"]["hex"]);
          }
          if (core.contains("fee")) CHECK(tx["fee"] == test::sats(core["fee"]));
        }
        if (page.size() < 25) break;
        path = root + "/txs/chain/" + page.back()["txid"].get<std::string>();
      }
      CHECK(seen == want);
      listed += seen.size();
    }
  }
  CHECK(addressed > 50);
  CHECK(listed > 400);

  // Past the end, an unknown or huge last seen txid: no transactions; one
  // that is not hex: the first page, as Esplora's.
  const auto busiest =
      std::max_element(truth.begin(), truth.end(), [](const auto& a, const auto& b) { return a.second.txs.size() < b.second.txs.size(); });
  REQUIRE(busiest->second.txs.size() > 25);
  const std::string root = "/api/address/" + busiest->second.address;
  CHECK(json(root + "/txs/chain/" + busiest->second.txs.begin()->txid).empty());
  CHECK(json(root + "/txs/chain/" + std::string(64, 'f')).empty());
  // A transaction of the chain that is none of this address's: no page either.
  const auto other = std::find_if(core_tx.begin(), core_tx.end(), [&](const auto& tx) {
    return std::none_of(busiest->second.txs.begin(), busiest->second.txs.end(), [&](const auto& t) { return t.txid == tx.first; }) &&
           tx.second.contains("fee");
  });
  REQUIRE(other != core_tx.end());
  CHECK(json(root + "/txs/chain/" + other->first).empty());
  CHECK(json(root + "/txs/chain/not-a-txid").size() == 25);
  CHECK(json(root + "/txs/chain/" + std::string(100000, '9')).size() == 25);
  CHECK(json(root + "/txs?after_txid=" + busiest->second.txs.rbegin()->txid)[0]["txid"] == std::next(busiest->second.txs.rbegin())->txid);

  const auto text = [&](const std::string& path, unsigned status) {
    const rest::Response r = service.get(path);
    CAPTURE(path);
    CHECK(r.status == status);
    CHECK(r.content_type == "text/plain");
    return r.body;
  };
  // Malformed addresses of every shape, another network's, bad scripthashes.
  for (const std::string& bad : std::vector<std::string>{
           "", "x", "bcrt1", "bcrt1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn0", std::string(5000, '1'),
           "BCRT1QDEAH3AYQJHN8HVSTVXY4RAGMRTDV3W9XH0PT4L" + std::string("x"), "%00", "../../etc"}) {
    CHECK(text("/api/address/" + bad, 400).starts_with("Invalid Bitcoin address"));
  }
  CHECK(text("/api/address/bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", 400) == "Address on invalid network");  // mainnet's
  CHECK(text("/api/address/1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", 400) == "Address on invalid network");
  CHECK(text("/api/scripthash/" + std::string(63, 'a'), 400) == "Invalid scripthash");
  CHECK(text("/api/scripthash/" + std::string(64, 'g'), 400) == "Invalid scripthash");
  CHECK(text(root + "/nothing", 404) == "endpoint does not exist");
  // A script no output pays: zeros, no outputs, no transactions.
  const std::string nobody = "/api/scripthash/" + std::string(64, '0');
  CHECK(json(nobody)["chain_stats"]["tx_count"] == 0);
  CHECK(json(nobody + "/utxo").empty());
  CHECK(json(nobody + "/txs").empty());
  // Without the index: 503, saying so.
  const rest::Service without(store, rest::Sources{});
  CHECK(without.get(root).status == 503);
  CHECK(without.get(root).body.find("--addresses") != std::string::npos);
}

TEST_CASE(
    "rest::Service: Esplora's outspends say which input of Core's chain spends each output, as getblock 3's prevouts say, and a block's "
    "transactions 25 at a time") {
  CoreIndexed core;
  BlockStore& store = core.blocks.store;
  const rest::Service& service = core.service;
  const nlohmann::json& blocks = core.getblock3;
  // Core's answer: each outpoint its chain spends, by which input of which block.
  std::map<std::pair<std::string, std::uint32_t>, std::tuple<std::string, std::uint32_t, std::size_t>> spent_by;
  for (const auto& block : blocks) {
    for (const auto& tx : block["tx"]) {
      for (std::uint32_t k = 0; k < tx["vin"].size(); ++k) {
        const auto& in = tx["vin"][k];
        if (in.contains("txid")) spent_by[{in["txid"], in["vout"]}] = {tx["txid"], k, block["height"]};
      }
    }
  }
  const auto json = [&](const std::string& path) {
    const rest::Response r = service.get(path);
    CAPTURE(path);
    REQUIRE(r.status == 200);
    return nlohmann::json::parse(r.body);
  };
  std::size_t spent = 0, unspent = 0;
  for (std::size_t h = 1; h < blocks.size(); ++h) {
    for (const auto& tx : blocks[h]["tx"]) {
      const std::string txid = tx["txid"].get<std::string>();
      const auto outs = json("/api/tx/" + txid + "/outspends");
      REQUIRE(outs.size() == tx["vout"].size());
      for (std::uint32_t n = 0; n < outs.size(); ++n) {
        CAPTURE(txid);
        CAPTURE(n);
        const auto at = spent_by.find({txid, n});
        CHECK(outs[n]["spent"] == (at != spent_by.end()));
        if (at == spent_by.end()) {
          ++unspent;
          continue;
        }
        const auto& [by, vin, height] = at->second;
        CHECK(outs[n]["txid"] == by);
        CHECK(outs[n]["vin"] == vin);
        CHECK(outs[n]["status"]["block_height"] == height);
        CHECK(outs[n]["status"]["block_hash"] == blocks[height]["hash"]);
        CHECK(json("/api/tx/" + txid + "/outspend/" + std::to_string(n)) == outs[n]);
        ++spent;
      }
    }
  }
  CHECK(spent > 100);
  CHECK(unspent > 100);
  const std::string some = blocks[110]["tx"][0]["txid"].get<std::string>();
  CHECK(json("/api/tx/" + some + "/outspend/4000000000") == nlohmann::json{{"spent", false}});
  CHECK(service.get("/api/tx/" + some + "/outspend/x").status == 400);
  CHECK(rest::Service(store, rest::Sources{&core.tx_index, {}}).get("/api/tx/" + some + "/outspends").status == 503);

  // Every block's transactions, 25 at a time, in Core's order, with Core's fees.
  std::size_t listed = 0;
  for (const auto& block : blocks) {
    const std::string root = "/api/block/" + block["hash"].get<std::string>() + "/txs";
    for (std::size_t start = 0; start < block["tx"].size(); start += 25) {
      const auto page = json(start == 0 ? root : root + "/" + std::to_string(start));
      REQUIRE(page.size() == std::min<std::size_t>(25, block["tx"].size() - start));
      for (std::size_t i = 0; i < page.size(); ++i) {
        const auto& tx = block["tx"][start + i];
        CHECK(page[i]["txid"] == tx["txid"]);
        CHECK(page[i]["fee"] == (tx.contains("fee") ? test::sats(tx["fee"]) : 0));
        ++listed;
      }
    }
    CHECK(service.get(root + "/" + std::to_string((block["tx"].size() + 24) / 25 * 25)).status == 404);
  }
  CHECK(listed == 379);
  CHECK(service.get("/api/block/" + blocks[1]["hash"].get<std::string>() + "/txs/1").body == "start index must be a multiple of 25");
}

TEST_CASE("rest::Service::quick: what reads blocks waits in the slow queue, the chain's state and the page do not") {
  using blockwire::rest::Service;
  for (const char* slow :
       {"/rest/block/00.json", "/rest/block/notxdetails/00.json", "/rest/blockpart/00.bin?offset=0&size=1", "/rest/tx/00.hex",
        "/rest/headers/00.json?count=5", "/rest/blockfilter/basic/00.bin", "/rest/blockfilterheaders/basic/00.json?count=3",
        "/rest/spenttxouts/00.json", "/api/block/00/txs", "/api/tx/00/outspends", "/api/address/bcrt1q/txs", "/api/scripthash/00/utxo"}) {
    CHECK_MESSAGE(!Service::quick(slow), slow);
  }
  for (const char* quick : {"/rest/chaininfo.json", "/rest/mempool/info.json", "/rest/getutxos/checkmempool/00-0.json",
                            "/rest/deploymentinfo.json", "/rest/blockhashbyheight/3.hex", "/api/blocks/tip/height", "/api/blocks/tip/hash",
                            "/api/block-height/3", "/", "/index.html", "/no/such/route"}) {
    CHECK_MESSAGE(Service::quick(quick), quick);
  }
}
