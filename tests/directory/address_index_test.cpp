// The address index (AddressIndex) against what Bitcoin Core's own
// getblock 3 says of its regtest chain: for every script an output of the
// chain pays to, the outputs paying it and the inputs spending from it
// (their prevouts), summed by Core's JSON alone; through a reorganization
// met while blocks are appended.
#include "../support/address_truth.hpp"
#include "../support/core_regtest.hpp"
#include "../support/temp_dir.hpp"

#include <blockwire/directory.hpp>
#include <blockwire/io/hex.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

namespace fs = std::filesystem;
using namespace blockwire;

namespace {

using test::core_data;
using test::rpc;

using test::AddressTruth;

AddressIndex::Totals totals_of(const test::ScriptTruth::Block& b) {
  AddressIndex::Totals t;
  t.tx_count = b.txs;
  t.funded_txo_count = b.funded;
  t.funded_txo_sum = Amount::from_sat(b.funded_sum);
  t.spent_txo_count = b.spent;
  t.spent_txo_sum = Amount::from_sat(b.spent_sum);
  return t;
}

ScriptHash hash_of(const std::string& hex) { return ScriptHash::of(from_hex(hex).value()); }

// Every script of `truth` has exactly its rows in `index`, oldest and
// newest first, and its totals their sum.
std::size_t check_against(const AddressIndex& index, const AddressTruth& truth) {
  std::size_t rows = 0;
  for (const auto& [script, t] : truth) {
    const auto& heights = t.blocks;
    CAPTURE(script);
    std::vector<AddressIndex::BlockRow> oldest;
    REQUIRE(index.each_block(hash_of(script), false, Height::genesis(), [&](const AddressIndex::BlockRow& r) {
      oldest.push_back(r);
      return true;
    }));
    REQUIRE(oldest.size() == heights.size());
    AddressIndex::Totals sum;
    auto at = heights.begin();
    for (const auto& row : oldest) {
      CHECK(row.height.to_wire() == at->first);
      CHECK(row.totals == totals_of(at->second));
      sum += totals_of(at->second);
      ++at;
      ++rows;
    }
    const auto totals = index.totals(hash_of(script));
    REQUIRE(totals);
    CHECK(totals.value() == sum);
    std::vector<Height> newest;
    REQUIRE(index.each_block(hash_of(script), true, *Height::checked(Height::max_value), [&](const AddressIndex::BlockRow& r) {
      newest.push_back(r.height);
      return true;
    }));
    REQUIRE(newest.size() == oldest.size());
    for (std::size_t i = 0; i < newest.size(); ++i) CHECK(newest[i] == oldest[oldest.size() - 1 - i].height);
  }
  return rows;
}

}  // namespace

TEST_CASE("AddressIndex: every script of Core's chain has the rows getblock 3's outputs and prevouts give it, and their sums") {
  test::TempDir temp;
  fs::copy(core_data + "/blocks", temp.file("blocks"), fs::copy_options::recursive);
  test::CacheAt cache;
  auto dir = BlocksDirectory::open(temp.file("blocks"));
  REQUIRE(dir);
  std::vector<AddressIndex::Progress> said;
  AddressIndex::Options options;
  options.threads = 2;
  options.progress = [&](const AddressIndex::Progress& p) { said.push_back(p); };
  auto index = AddressIndex::open(dir.value(), options);
  REQUIRE(index);
  AddressTruth truth;
  for (const auto& block : rpc("getblock3")) test::add_block(truth, block);
  const std::size_t rows = check_against(index.value(), truth);
  CHECK(truth.size() > 100);
  CHECK(rows > 300);
  CHECK(index.value().best() == BlockHash::from_hex(rpc("getbestblockhash").get<std::string>()).value());
  CHECK(index.value().best_height() == Height::checked(237));
  REQUIRE(!said.empty());
  CHECK(said.back().blocks_done == 238);
  CHECK(said.back().blocks_total == 238);
  CHECK(index.value().disk_size() > 0);

  // A script no output pays: no rows, zero totals; a row's height past
  // the tip or a start below every row finds nothing the other way.
  const auto none = index.value().totals(ScriptHash::of(from_hex("51").value()));
  REQUIRE(none);
  CHECK(none.value() == AddressIndex::Totals{});
  const std::string some = truth.begin()->first;
  std::size_t seen = 0;
  REQUIRE(index.value().each_block(hash_of(some), true, Height::genesis(), [&](const AddressIndex::BlockRow& r) {
    CHECK(r.height == Height::genesis());
    ++seen;
    return true;
  }));
  CHECK(seen == (truth.begin()->second.blocks.begin()->first == 0 ? 1u : 0u));

  // Opened again (once closed: LevelDB's lock): at the tip already, nothing read.
  { [[maybe_unused]] const AddressIndex closing = std::move(index).value(); }
  said.clear();
  auto again = AddressIndex::open(dir.value(), options);
  REQUIRE(again);
  CHECK(said.empty());
  check_against(again.value(), truth);
}

TEST_CASE("AddressIndex: made on Core's stale branch, then the heavier branch appended: the stale blocks' rows gone, the new ones in") {
  test::TempDir temp;
  const test::StaleBranchCopy copy(temp.file("blocks"));
  const std::string& blocks = copy.blocks;
  const BlockHash& last_stale = copy.last_stale;
  const auto stale = rpc("stale_blocks");
  test::CacheAt cache;
  BlocksDirectory::Options open_options;
  open_options.undo_required = false;
  auto dir = BlocksDirectory::open(blocks, open_options);
  REQUIRE(dir);
  REQUIRE(dir.value().index().tip() == last_stale);
  auto index = AddressIndex::open(dir.value());
  REQUIRE(index);
  CHECK(index.value().best() == last_stale);
  // Truth on the stale branch: the best chain's blocks up to 233, then the stale three.
  const auto best = rpc("getblock3");
  AddressTruth on_stale;
  for (std::size_t h = 0; h < 234; ++h) test::add_block(on_stale, best[h]);
  for (std::size_t i = stale.size(); i-- > 0;)
    test::add_block(on_stale, rpc("stale_" + stale[i]["hash"].get<std::string>() + "_getblock3"));
  check_against(index.value(), on_stale);

  copy.append_rest();
  auto moved = dir.value().refresh();
  REQUIRE(moved);
  REQUIRE(moved.value());
  REQUIRE(dir.value().index().tip() == BlockHash::from_hex(rpc("getbestblockhash").get<std::string>()).value());
  REQUIRE(index.value().update(dir.value()));
  CHECK(index.value().best() == dir.value().index().tip());
  AddressTruth truth;
  for (const auto& block : best) test::add_block(truth, block);
  check_against(index.value(), truth);
  // No row of a script only the stale blocks touched is left.
  std::size_t gone = 0;
  for (const auto& [script, unused] : on_stale) {
    if (truth.contains(script)) continue;
    const auto t = index.value().totals(hash_of(script));
    REQUIRE(t);
    CHECK(t.value() == AddressIndex::Totals{});
    ++gone;
  }
  CHECK(gone > 0);
}
