// electrum::Service as a library call, no socket: every scripthash of the
// chain Bitcoin Core's node wrote (tests/data/core-regtest) answered as
// Core's getblock 3 JSON says (balance, history, unspent outputs, the
// status the protocol defines), headers as Core's getblock 0 holds them,
// merkle branches that fold to Core's merkle roots, and the protocol's
// errors for what is malformed.
#include "../support/address_truth.hpp"
#include "../support/core_regtest.hpp"
#include "../support/temp_dir.hpp"

#include <blockwire/directory.hpp>
#include <blockwire/electrum/service.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace fs = std::filesystem;
using namespace blockwire;

namespace {

const std::string core_data = BLOCKWIRE_TEST_DATA "/core-regtest";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

template <class T>
T required(result<T> r) {
  REQUIRE(r);
  return std::move(r).value();
}

std::vector<std::byte> bytes_of(const std::string& hex) { return required(from_hex(hex)); }

// Electrum's scripthash of a script's hex: its SHA-256, the bytes reversed.
std::string electrum_hash(const std::string& script_hex) {
  const Hash256 h = sha256(bytes_of(script_hex));
  std::vector<std::byte> reversed(h.bytes().rbegin(), h.bytes().rend());
  return to_hex(reversed);
}

// A hash in display order (as txids print) to the bytes hashed.
Hash256 from_display(const std::string& hex) { return required(Hash256::from_hex(hex)); }

Hash256 parent(const Hash256& a, const Hash256& b) {
  std::array<std::byte, 64> pair;
  std::copy(a.bytes().begin(), a.bytes().end(), pair.begin());
  std::copy(b.bytes().begin(), b.bytes().end(), pair.begin() + 32);
  return sha256d(pair);
}

// The root a branch proves for a leaf at `pos` (as Electrum's client folds it).
Hash256 fold(Hash256 leaf, std::size_t pos, const nlohmann::json& branch) {
  for (const auto& h : branch) {
    leaf = (pos & 1) != 0 ? parent(from_display(h.get<std::string>()), leaf) : parent(leaf, from_display(h.get<std::string>()));
    pos /= 2;
  }
  return leaf;
}

// Bitcoin's merkle root of `leaves` (the last of an odd level paired with itself).
Hash256 root_of(std::vector<Hash256> level) {
  while (level.size() > 1) {
    std::vector<Hash256> up;
    for (std::size_t i = 0; i < level.size(); i += 2) up.push_back(parent(level[i], level[i + 1 < level.size() ? i + 1 : i]));
    level = std::move(up);
  }
  return level[0];
}

struct Electrum {
  test::TempDir temp;
  test::CacheAt cache;
  BlockStore store{open_copy(temp)};
  TxIndex tx_index = required(TxIndex::open(store.directory()));
  AddressIndex addresses = required(AddressIndex::open(store.directory()));
  electrum::ServiceOptions options;
  nlohmann::json getblock3 = read_json(core_data + "/rpc/getblock3.json");

  static BlocksDirectory open_copy(const test::TempDir& temp) {
    fs::copy(core_data + "/blocks", temp.file("blocks"), fs::copy_options::recursive);
    auto dir = BlocksDirectory::open(temp.file("blocks"));
    REQUIRE(dir);
    return std::move(dir).value();
  }

  // One request's response, as JSON.
  nlohmann::json call(const std::string& method, const nlohmann::json& params, electrum::Subscriptions& mine) const {
    const electrum::Service service(const_cast<BlockStore&>(store), &tx_index, addresses, options);
    // (a lone string or number: one positional param, as {x} makes it)
    const nlohmann::json list = params.is_array() || params.is_object() ? params : nlohmann::json::array({params});
    const nlohmann::json request = {{"jsonrpc", "2.0"}, {"id", 7}, {"method", method}, {"params", list}};
    const std::string line = service.answer(request.dump(), mine);
    CAPTURE(line);
    auto answer = nlohmann::json::parse(line);
    CHECK(answer["id"] == 7);
    return answer;
  }
  nlohmann::json result(const std::string& method, const nlohmann::json& params = nlohmann::json::array()) const {
    electrum::Subscriptions mine;
    auto answer = call(method, params, mine);
    REQUIRE(answer.contains("result"));
    return answer["result"];
  }
  std::string raw(const std::string& line) const {
    electrum::Subscriptions mine;
    const electrum::Service service(const_cast<BlockStore&>(store), &tx_index, addresses, options);
    return service.answer(line, mine);
  }
};

}  // namespace

TEST_CASE("electrum: every scripthash of Core's chain: balance, history, unspent outputs and status as Core's getblock 3 says") {
  const Electrum e;
  test::AddressTruth truth;
  for (const auto& block : e.getblock3) test::add_block(truth, block);
  REQUIRE(truth.size() > 10);
  std::size_t with_history = 0;
  for (const auto& [script, t] : truth) {
    CAPTURE(script);
    const std::string sh = electrum_hash(script);
    std::int64_t funded = 0, spent = 0;
    for (const auto& o : t.funded) funded += o.value;
    for (const auto& o : t.spent) spent += o.value;
    CHECK(e.result("blockchain.scripthash.get_balance", {sh}) == nlohmann::json{{"confirmed", funded - spent}, {"unconfirmed", 0}});

    nlohmann::json history = nlohmann::json::array();
    std::string status_text;
    for (const auto& tx : t.txs) {  // (in the chain's order: height, then place in the block)
      history.push_back({{"height", tx.height}, {"tx_hash", tx.txid}});
      status_text += tx.txid + ":" + std::to_string(tx.height) + ":";
    }
    CHECK(e.result("blockchain.scripthash.get_history", {sh}) == history);
    const Hash256 status = sha256(std::as_bytes(std::span(status_text)));
    CHECK(e.result("blockchain.scripthash.subscribe", {sh}) == to_hex(status.bytes()));

    std::set<std::tuple<std::string, std::uint32_t, std::int64_t, std::uint32_t>> unspent, got;
    for (const auto& o : t.unspent()) unspent.insert({o.txid, o.vout, o.value, o.height});
    const auto listed = e.result("blockchain.scripthash.listunspent", {sh});
    for (const auto& u : listed) {
      got.insert({u["tx_hash"].get<std::string>(), u["tx_pos"].get<std::uint32_t>(), u["value"].get<std::int64_t>(),
                  u["height"].get<std::uint32_t>()});
    }
    CHECK(got == unspent);
    CHECK(listed.size() == unspent.size());
    for (std::size_t i = 1; i < listed.size(); ++i) CHECK(listed[i - 1]["height"] <= listed[i]["height"]);
    with_history += t.txs.size() > 1;
  }
  CHECK(with_history > 3);
  // A script the chain never paid: nothing, and a null status.
  const std::string none = electrum_hash("0014" + std::string(40, '9'));
  CHECK(e.result("blockchain.scripthash.get_history", {none}).empty());
  CHECK(e.result("blockchain.scripthash.subscribe", {none}).is_null());
  CHECK(e.result("blockchain.scripthash.get_balance", {none}) == nlohmann::json{{"confirmed", 0}, {"unconfirmed", 0}});
}

TEST_CASE(
    "electrum: headers as Core's getblock 0 holds them, chunks, the tip, and cp_height proofs that fold to the root of Core's block "
    "hashes") {
  const Electrum e;
  const auto blocks0 = read_json(core_data + "/rpc/getblock0.json");
  const auto hashes = read_json(core_data + "/rpc/getblockhash.json");
  REQUIRE(blocks0.size() == 238);
  std::string all;
  for (std::size_t h = 0; h < blocks0.size(); ++h) {
    const std::string header = blocks0[h].get<std::string>().substr(0, 160);
    all += header;
    if (h % 37 == 0 || h == 237) CHECK(e.result("blockchain.block.header", {h}) == header);
  }
  const auto chunk = e.result("blockchain.block.headers", {0, 2016});
  CHECK(chunk["count"] == 238);
  CHECK(chunk["max"] == 2016);
  CHECK(chunk["hex"] == all);
  CHECK(e.result("blockchain.block.headers", {230, 5})["hex"] == all.substr(230 * 160, 5 * 160));
  CHECK(e.result("blockchain.block.headers", {300, 5})["count"] == 0);
  CHECK(e.result("blockchain.headers.subscribe") == nlohmann::json{{"height", 237}, {"hex", all.substr(237 * 160)}});

  for (const std::size_t cp : {1u, 100u, 237u}) {
    std::vector<Hash256> leaves;
    for (std::size_t h = 0; h <= cp; ++h) leaves.push_back(from_display(hashes[h].get<std::string>()));
    const Hash256 root = root_of(leaves);
    for (const std::size_t h : {std::size_t{0}, cp / 2, cp}) {
      CAPTURE(cp);
      CAPTURE(h);
      const auto proof = e.result("blockchain.block.header", {h, cp});
      CHECK(proof["header"] == all.substr(h * 160, 160));
      CHECK(proof["root"] == root.to_hex());
      CHECK(fold(leaves[h], h, proof["branch"]) == root);
    }
    const auto chunk_proof = e.result("blockchain.block.headers", {0, cp + 1, cp});
    CHECK(chunk_proof["root"] == root.to_hex());
    CHECK(fold(leaves[cp], cp, chunk_proof["branch"]) == root);
  }
  electrum::Subscriptions mine;
  CHECK(e.call("blockchain.block.header", {5, 3}, mine)["error"]["code"] == 1);    // (past cp_height)
  CHECK(e.call("blockchain.block.header", {5, 900}, mine)["error"]["code"] == 1);  // (cp_height past the tip)
  CHECK(e.call("blockchain.block.header", {238}, mine)["error"]["code"] == 1);
  CHECK(e.call("blockchain.block.header", {-1}, mine)["error"]["code"] == -32602);
}

TEST_CASE(
    "electrum: transactions by txid (raw as Core's hex, verbose with Core's block and confirmations), merkle branches folding to Core's "
    "roots, ids by position") {
  const Electrum e;
  std::size_t proofs = 0;
  for (const auto& block : e.getblock3) {
    const auto height = block["height"].get<std::size_t>();
    // (the genesis block's coinbase is in no transaction index, Core's neither)
    if (height == 0 || (height % 19 != 0 && block["tx"].size() < 3)) continue;
    const Hash256 root = from_display(block["merkleroot"].get<std::string>());
    for (std::size_t pos = 0; pos < block["tx"].size(); ++pos) {
      const auto& tx = block["tx"][pos];
      const std::string txid = tx["txid"].get<std::string>();
      CAPTURE(txid);
      CHECK(e.result("blockchain.transaction.get", {txid}) == tx["hex"]);
      const auto verbose = e.result("blockchain.transaction.get", {txid, true});
      CHECK(verbose["hex"] == tx["hex"]);
      CHECK(verbose["txid"] == txid);
      CHECK(verbose["blockhash"] == block["hash"]);
      CHECK(verbose["confirmations"] == block["confirmations"]);
      CHECK(verbose["blocktime"] == block["time"]);
      const auto merkle = e.result("blockchain.transaction.get_merkle", {txid, height});
      CHECK(merkle["block_height"] == height);
      CHECK(merkle["pos"] == pos);
      CHECK(fold(from_display(txid), pos, merkle["merkle"]) == root);
      CHECK(e.result("blockchain.transaction.id_from_pos", {height, pos}) == txid);
      const auto with = e.result("blockchain.transaction.id_from_pos", {height, pos, true});
      CHECK(with["tx_hash"] == txid);
      CHECK(with["merkle"] == merkle["merkle"]);
      ++proofs;
    }
  }
  CHECK(proofs > 30);
  electrum::Subscriptions mine;
  const std::string some = e.getblock3[5]["tx"][0]["txid"].get<std::string>();
  CHECK(e.call("blockchain.transaction.get_merkle", {some, 6}, mine)["error"]["code"] == 1);  // (another block)
  CHECK(e.call("blockchain.transaction.get", {std::string(64, 'a')}, mine)["error"]["code"] == 1);
  CHECK(e.call("blockchain.transaction.get", {"xyz"}, mine)["error"]["code"] == -32602);
  CHECK(e.call("blockchain.transaction.id_from_pos", {5, 99}, mine)["error"]["code"] == 1);
  const auto broadcast = e.call("blockchain.transaction.broadcast", {e.getblock3[5]["tx"][0]["hex"]}, mine);
  CHECK(broadcast["error"]["code"] == 2);
  CHECK(broadcast["error"]["message"].get<std::string>().find("broadcast") != std::string::npos);
}

TEST_CASE(
    "electrum: the protocol's framing: version negotiation, batches, notifications, malformed JSON, unknown methods, bad params, history "
    "too large") {
  Electrum e;
  electrum::Subscriptions mine;
  const auto version = e.call("server.version", {"test 1.0", "1.4"}, mine);
  CHECK(version["result"][1] == "1.4");
  CHECK(e.call("server.version", {"test 1.0", "1.4"}, mine)["error"]["code"] == 1);  // (once a connection)
  electrum::Subscriptions other;
  CHECK(e.call("server.version", {"old", "1.2"}, other).contains("error"));
  CHECK(other.close);  // (a version it cannot speak: the connection ends)
  electrum::Subscriptions range;
  CHECK(e.call("server.version", {"new", {"1.3", "1.5"}}, range)["result"][1] == "1.4");
  const auto features = e.result("server.features");
  CHECK(features["genesis_hash"] == "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206");
  CHECK(features["hash_function"] == "sha256");
  CHECK(e.result("server.ping").is_null());
  CHECK(e.result("server.peers.subscribe").empty());
  // (no node to say its feefilter: Core 30's default -minrelaytxfee, 100 sat/kvB, as its getnetworkinfo's relayfee)
  CHECK(e.result("blockchain.relayfee") == 0.000001);
  CHECK(e.result("blockchain.estimatefee", {6}) == -1);
  CHECK(e.result("mempool.get_fee_histogram").empty());

  // A batch: an array of answers in order; a notification gets none.
  const auto batch = nlohmann::json::parse(e.raw(
      R"([{"jsonrpc":"2.0","id":1,"method":"server.ping"},{"jsonrpc":"2.0","method":"server.ping"},{"jsonrpc":"2.0","id":"x","method":"nope"}])"));
  REQUIRE(batch.size() == 2);
  CHECK(batch[0]["id"] == 1);
  CHECK(batch[1]["id"] == "x");
  CHECK(batch[1]["error"]["code"] == -32601);
  CHECK(e.raw(R"({"jsonrpc":"2.0","method":"server.ping"})").empty());
  std::string big = "[";
  for (int i = 0; i < 10'000; ++i)
    big +=
        std::string(i == 0 ? "" : ",") + R"({"jsonrpc":"2.0","id":)" + std::to_string(i) + R"(,"method":"blockchain.headers.subscribe"})";
  big += "]";
  const auto answers = nlohmann::json::parse(e.raw(big));
  CHECK(answers.size() == 10'000);
  CHECK(answers[9'999]["result"]["height"] == 237);

  for (const std::string& bad : {std::string("{not json"), std::string(100'000, '['), std::string("\xff\xfe"), std::string("")}) {
    const auto answer = nlohmann::json::parse(e.raw(bad));
    CHECK(answer["error"]["code"] == -32700);
    CHECK(answer["id"].is_null());
  }
  CHECK(nlohmann::json::parse(e.raw(R"({"id":1,"method":"server.ping"} trailing)"))["error"]["code"] == -32700);
  CHECK(nlohmann::json::parse(e.raw(R"({"id":1,"method":"blockchain.scripthash.nope","params":[5]})"))["error"]["code"] == -32601);
  CHECK(nlohmann::json::parse(e.raw("[]"))["error"]["code"] == -32600);
  CHECK(nlohmann::json::parse(e.raw("42"))["error"]["code"] == -32600);
  CHECK(nlohmann::json::parse(e.raw(R"({"id":1,"method":7})"))["error"]["code"] == -32600);
  CHECK(nlohmann::json::parse(e.raw(R"({"id":[1],"method":"server.ping"})"))["error"]["code"] == -32600);
  CHECK(nlohmann::json::parse(e.raw(R"({"id":1,"method":"server.ping","params":"x"})"))["error"]["code"] == -32602);
  for (const nlohmann::json& params :
       {nlohmann::json{"zz"}, nlohmann::json{std::string(63, 'a')}, nlohmann::json{12}, nlohmann::json::array()}) {
    CHECK(e.call("blockchain.scripthash.get_history", params, mine)["error"]["code"] == -32602);
  }
  // Named params, as some clients send them.
  CHECK(e.result("blockchain.block.header", nlohmann::json{{"height", 0}}) ==
        read_json(core_data + "/rpc/getblock0.json")[0].get<std::string>().substr(0, 160));

  // A script with more transactions than --max-history: refused, its balance still answered.
  test::AddressTruth truth;
  for (const auto& block : e.getblock3) test::add_block(truth, block);
  const auto busiest =
      std::max_element(truth.begin(), truth.end(), [](const auto& a, const auto& b) { return a.second.txs.size() < b.second.txs.size(); });
  REQUIRE(busiest->second.txs.size() > 2);
  e.options.max_history = busiest->second.txs.size() - 1;
  const std::string sh = electrum_hash(busiest->first);
  for (const char* method : {"blockchain.scripthash.get_history", "blockchain.scripthash.subscribe", "blockchain.scripthash.listunspent"}) {
    const auto refused = e.call(method, {sh}, mine);
    CHECK(refused["error"]["message"].get<std::string>().find("history too large") != std::string::npos);
  }
  CHECK(e.result("blockchain.scripthash.get_balance", {sh}).contains("confirmed"));
  // A batch whose answer passes max_answer: the requests after that point refused, each by its id.
  e.options.max_answer = 1000;
  const auto bounded = nlohmann::json::parse(e.raw(
      R"([{"id":1,"method":"blockchain.block.headers","params":[0,10]},{"id":2,"method":"server.ping"},{"id":3,"method":"server.ping"}])"));
  REQUIRE(bounded.size() == 3);
  CHECK(bounded[0]["result"]["count"] == 10);
  CHECK(bounded[1]["error"]["code"] == 1);
  CHECK(bounded[2]["id"] == 3);
  CHECK(bounded[2]["error"]["message"].get<std::string>().find("1000 bytes") != std::string::npos);
  e.options.max_answer = 64 << 20;
  // Checkpoint proofs a line may ask for: bounded by the headers they hash.
  e.options.max_proof_leaves = 500;
  const auto proofs = nlohmann::json::parse(e.raw(
      R"([{"id":1,"method":"blockchain.block.header","params":[1,237]},{"id":2,"method":"blockchain.block.header","params":[1,237]},{"id":3,"method":"blockchain.block.header","params":[1,237]}])"));
  CHECK(proofs[0].contains("result"));
  CHECK(proofs[1].contains("result"));
  CHECK(proofs[2]["error"]["code"] == 1);  // (3 x 238 leaves past 500)
  e.options.max_proof_leaves = 8'000'000;
  // Subscriptions per connection bounded.
  e.options.max_subscriptions = 2;
  electrum::Subscriptions few;
  CHECK(e.call("blockchain.scripthash.subscribe", {electrum_hash("51")}, few).contains("result"));
  CHECK(e.call("blockchain.scripthash.subscribe", {electrum_hash("52")}, few).contains("result"));
  CHECK(e.call("blockchain.scripthash.subscribe", {electrum_hash("53")}, few)["error"]["code"] == 1);
  CHECK(e.call("blockchain.scripthash.unsubscribe", {electrum_hash("51")}, few)["result"] == true);
  CHECK(e.call("blockchain.scripthash.unsubscribe", {electrum_hash("51")}, few)["result"] == false);
}

namespace {

std::string status_of(const test::ScriptTruth& t) {
  std::string text;
  for (const auto& tx : t.txs) text += tx.txid + ":" + std::to_string(tx.height) + ":";
  return to_hex(sha256(std::as_bytes(std::span(text))).bytes());
}

}  // namespace

TEST_CASE(
    "electrum: subscribed on Core's stale branch, the heavier branch appended: each scripthash told its new status (the one Core's best "
    "chain makes), the others told nothing") {
  test::TempDir temp;
  const test::StaleBranchCopy copy(temp.file("blocks"));
  const std::string& blocks = copy.blocks;
  const BlockHash& last_stale = copy.last_stale;
  const auto stale = read_json(core_data + "/rpc/stale_blocks.json");
  test::CacheAt cache;
  BlocksDirectory::Options open_options;
  open_options.undo_required = false;
  auto dir = BlocksDirectory::open(blocks, open_options);
  REQUIRE(dir);
  BlockStore store(std::move(dir).value());
  REQUIRE(store.index().tip() == last_stale);
  AddressIndex addresses = required(AddressIndex::open(store.directory()));
  const electrum::Service service(store, nullptr, addresses, {});

  const auto best = read_json(core_data + "/rpc/getblock3.json");
  test::AddressTruth on_stale, truth;
  for (std::size_t h = 0; h < 234; ++h) test::add_block(on_stale, best[h]);
  for (std::size_t i = stale.size(); i-- > 0;)
    test::add_block(on_stale, read_json(core_data + "/rpc/stale_" + stale[i]["hash"].get<std::string>() + "_getblock3.json"));
  for (const auto& block : best) test::add_block(truth, block);

  // One connection follows every script either branch has; each status as the stale branch makes it.
  electrum::Subscriptions mine;
  std::set<std::string> scripts;
  for (const auto& [script, unused] : on_stale) scripts.insert(script);
  for (const auto& [script, unused] : truth) scripts.insert(script);
  const auto subscribe = [&](const std::string& method, const nlohmann::json& params) {
    const nlohmann::json request = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}};
    return nlohmann::json::parse(service.answer(request.dump(), mine))["result"];
  };
  CHECK(subscribe("blockchain.headers.subscribe", nlohmann::json::array())["height"] == 236);
  std::map<std::string, nlohmann::json> status;  // by Electrum's scripthash
  for (const std::string& script : scripts) {
    const std::string sh = electrum_hash(script);
    status[sh] = subscribe("blockchain.scripthash.subscribe", {sh});
    const auto it = on_stale.find(script);
    CHECK(status[sh] == (it != on_stale.end() ? nlohmann::json(status_of(it->second)) : nlohmann::json()));
  }

  copy.append_rest();
  const auto moved = store.refresh();
  REQUIRE(moved);
  REQUIRE(moved.value());
  REQUIRE(addresses.update(store.directory()));
  std::size_t told = 0, headers = 0;
  for (const std::string& line : service.changes(last_stale, mine)) {
    const auto note = nlohmann::json::parse(line);
    if (note["method"] == "blockchain.headers.subscribe") {
      CHECK(note["params"][0]["height"] == 237);
      ++headers;
      continue;
    }
    REQUIRE(note["method"] == "blockchain.scripthash.subscribe");
    const std::string sh = note["params"][0].get<std::string>();
    CHECK(note["params"][1] != status[sh]);  // (told only of a change)
    status[sh] = note["params"][1];
    ++told;
  }
  CHECK(headers == 1);
  CHECK(told > 0);
  std::size_t unchanged = 0;
  for (const std::string& script : scripts) {
    CAPTURE(script);
    const auto it = truth.find(script);
    const nlohmann::json want = it != truth.end() ? nlohmann::json(status_of(it->second)) : nlohmann::json();
    CHECK(status[electrum_hash(script)] == want);
    const auto before = on_stale.find(script);
    unchanged += before != on_stale.end() && it != truth.end() && status_of(before->second) == status_of(it->second);
  }
  CHECK(unchanged > 10);  // (most scripts' histories are below the fork: not told, and not read again)
  CHECK(told + unchanged <= scripts.size());
  // Nothing more owed at the same tip, the header not told twice.
  CHECK(service.changes(store.index().tip(), mine).empty());
}
