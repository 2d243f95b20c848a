// The UTXO set a writer keeps (UtxoStore) and the transaction index
// (TxIndex), as library calls: their answers against what the chain holds
// by construction, and against Bitcoin Core's own for its directory.
#include "../support/chain.hpp"
#include "../support/core_regtest.hpp"
#include "../support/temp_dir.hpp"
#include "../support/written.hpp"

#include <blockwire/codec/hashes.hpp>
#include <blockwire/directory.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace blockwire;

namespace {

using test::core_data;
using test::rpc;

// What the set in `dir` says of itself (Core's gettxoutsetinfo, read from
// the LevelDB the store wrote in Core's chainstate format).
UtxoSetInfo info_of(const std::string& dir) {
  auto info = core_utxo_set_info(UtxoStore::path_of(dir));
  REQUIRE(info);
  return info.value();
}

}  // namespace

TEST_CASE(
    "UtxoStore: a new set follows the chain: its best block the tip, a coin a coinbase but genesis', a heavier branch takes the old one's "
    "coins off") {
  test::Written w(12);
  auto chain = BlocksDirectory::open_index(w.dir, w.key, network::regtest);
  REQUIRE(chain);
  {
    auto store = UtxoStore::open(chain.value());
    REQUIRE(store);
    CHECK(store.value().best_block() == block_hash(w.chain.back().header));
    REQUIRE(store.value().flush());
  }
  UtxoSetInfo info = info_of(w.dir);
  CHECK(info.best_block == block_hash(w.chain.back().header));
  CHECK(info.txouts == 12);  // the genesis coinbase is no coin (Core never connects it)
  CHECK(info.total_amount == Amount::from_sat(12 * 50 * Amount::coin));

  // A branch from height 8 with more work: blocks 9-12 taken off, 9'-14' on.
  std::vector<Block> branch{w.chain.begin(), w.chain.begin() + 9};
  {
    auto writer = BlockFileWriter::open(w.dir, w.key, network::regtest);
    REQUIRE(writer);
    for (std::uint32_t h = 9; h <= 14; ++h) {
      branch.push_back(test::mine(block_hash(branch.back().header), 1'800'000'000 + 600 * h, h));
      REQUIRE(writer.value().append(branch.back()));
    }
    REQUIRE(writer.value().close());
  }
  auto reread = BlocksDirectory::open_index(w.dir, w.key, network::regtest);
  REQUIRE(reread);
  REQUIRE(reread.value().tip() == block_hash(branch.back().header));
  {
    auto store = UtxoStore::open(reread.value());
    REQUIRE(store);
    CHECK(store.value().best_block() == block_hash(branch.back().header));
    REQUIRE(store.value().flush());
  }
  info = info_of(w.dir);
  CHECK(info.txouts == 14);
  CHECK(info.transactions == 14);
}

TEST_CASE(
    "TxIndex: every transaction of Core's chain is found in the block Core's getblock puts it in, read back with its own txid, an unknown "
    "txid is nothing") {
  test::TempDir temp;
  const std::string blocks = temp.file("blocks");
  fs::copy(core_data + "/blocks", blocks, fs::copy_options::recursive);
  test::CacheAt cache;  // (the kept index and the transaction index: not in the user's cache)
  auto dir = BlocksDirectory::open(blocks);
  REQUIRE(dir);
  auto index = TxIndex::open(dir.value());
  REQUIRE(index);
  std::size_t checked = 0;
  for (const auto& block : rpc("getblock3")) {
    const auto hash = BlockHash::from_hex(block["hash"].get<std::string>()).value();
    for (const auto& tx : block["tx"]) {
      const Txid txid = Txid::from_hex(tx["txid"].get<std::string>()).value();
      const auto place = index.value().find(txid);
      REQUIRE(place);
      if (block["height"] == 0) {
        CHECK(!place.value());  // the genesis coinbase: in no index (Core's -txindex has it not either)
        continue;
      }
      REQUIRE(place.value());
      CHECK(place.value()->block == hash);
      const auto bytes = index.value().read(dir.value(), txid);
      REQUIRE(bytes);
      REQUIRE(bytes.value());
      CHECK(decode_transaction(*bytes.value()).value().txid() == txid);
      ++checked;
    }
  }
  CHECK(checked > 238);                                                               // every block's coinbase, and the spends
  Txid unknown = Txid::from_hex(rpc("getbestblockhash").get<std::string>()).value();  // a block's hash: no transaction's
  const auto none = index.value().find(unknown);
  REQUIRE(none);
  CHECK(!none.value());
}
