// The Electrum server's mempool: what the node announced, kept with the
// coins it spends. Amounts and fees below are worked out by hand from the
// transactions the tests build.
#include <blockwire/codec.hpp>
#include <blockwire/electrum/mempool.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <thread>

using namespace blockwire;
using electrum::Mempool;

namespace {

std::vector<std::byte> script_of(std::uint8_t tag) {
  std::vector<std::byte> s{std::byte{0x00}, std::byte{0x14}};
  s.resize(22, std::byte{tag});  // P2WPKH of twenty `tag` bytes
  return s;
}
ScriptHash hash_of(std::uint8_t tag) { return ScriptHash::of(script_of(tag)); }

// Coins "in the chain": outpoints of made-up confirmed transactions.
struct Chain {
  std::map<OutPoint, std::pair<std::uint8_t, std::int64_t>> coins;  // script tag, value
  int lookups = 0;
  electrum::ChainCoins lookup() {
    return [this](const OutPoint& o) -> blockwire::result<std::optional<electrum::SpentOutput>> {
      ++lookups;
      const auto at = coins.find(o);
      if (at == coins.end()) return std::optional<electrum::SpentOutput>{};
      return std::optional<electrum::SpentOutput>{electrum::SpentOutput{hash_of(at->second.first), Amount::from_sat(at->second.second)}};
    };
  }
};

OutPoint confirmed_coin(std::uint32_t n) {
  std::array<std::byte, 32> id{};
  for (int i = 0; i < 4; ++i) id[i] = static_cast<std::byte>(n >> (8 * i));
  return OutPoint{Txid::from_bytes(id), 0};
}

Transaction spend(std::vector<OutPoint> from, std::vector<std::pair<std::uint8_t, std::int64_t>> to, std::uint32_t lock_time = 0) {
  TransactionBuilder b;
  b.lock_time = lock_time;
  const std::byte sig[]{std::byte{0x01}, std::byte{0x02}};
  for (const OutPoint& o : from) b.add_input(o, sig);
  for (const auto& [tag, value] : to) b.add_output(Amount::from_sat(value), script_of(tag));
  return b.build();
}

}  // namespace

TEST_CASE("Mempool: a transaction's coins from the chain and from another kept one: heights 0 and -1, fees, balances, unspent outputs") {
  Chain chain;
  chain.coins[confirmed_coin(1)] = {0xa1, 100'000};
  Mempool pool;
  const Transaction parent = spend({confirmed_coin(1)}, {{0xb2, 60'000}, {0xa1, 39'000}});  // fee 1,000
  auto added = pool.add(parent, chain.lookup());
  REQUIRE(added);
  CHECK(added.value().what == Mempool::outcome::added);
  CHECK(added.value().touched == electrum::ScriptSet{hash_of(0xa1), hash_of(0xb2)});
  CHECK(pool.add(parent, chain.lookup()).value().what == Mempool::outcome::known);

  const Transaction child = spend({OutPoint{parent.txid(), 0}}, {{0xc3, 59'500}});  // fee 500, its coin unconfirmed
  const int lookups = chain.lookups;
  REQUIRE(pool.add(child, chain.lookup()).value().what == Mempool::outcome::added);
  CHECK(chain.lookups == lookups);  // (its coin came from the kept parent)

  const auto b2 = pool.history(hash_of(0xb2));
  REQUIRE(b2.size() == 2);
  CHECK(b2[0].txid == parent.txid());
  CHECK(b2[0].height == 0);
  CHECK(b2[0].fee.to_sat() == 1'000);
  CHECK(b2[1].txid == child.txid());
  CHECK(b2[1].height == -1);
  CHECK(b2[1].fee.to_sat() == 500);
  CHECK(pool.balance(hash_of(0xa1)) == 39'000 - 100'000);
  CHECK(pool.balance(hash_of(0xb2)) == 0);  // funded 60,000, spent 60,000
  CHECK(pool.balance(hash_of(0xc3)) == 59'500);
  CHECK(pool.unspent(hash_of(0xb2)).empty());
  const auto a1 = pool.unspent(hash_of(0xa1));
  REQUIRE(a1.size() == 1);
  CHECK(a1[0].outpoint == OutPoint{parent.txid(), 1});
  CHECK(a1[0].value.to_sat() == 39'000);
  CHECK(pool.spends(confirmed_coin(1)));
  CHECK(!pool.spends(confirmed_coin(2)));
  CHECK(pool.transaction(child.txid()) == child);
  CHECK(pool.size() == 2);
  CHECK(pool.bytes() == parent.size() + child.size());
}

TEST_CASE("Mempool: coins missing, outputs worth more than the coins, a coinbase, a full pool: refused, nothing kept") {
  Chain chain;
  chain.coins[confirmed_coin(1)] = {0xa1, 1'000};
  Mempool pool(1'000);
  CHECK(pool.add(spend({confirmed_coin(9)}, {{0xb2, 10}}), chain.lookup()).value().what == Mempool::outcome::missing_inputs);
  CHECK(pool.add(spend({confirmed_coin(1)}, {{0xb2, 1'001}}), chain.lookup()).value().what == Mempool::outcome::overspends);
  CHECK(pool.add(spend({OutPoint{}}, {{0xb2, 10}}), chain.lookup()).value().what == Mempool::outcome::missing_inputs);
  CHECK(pool.size() == 0);
  Mempool small(50);  // bytes: less than one transaction
  CHECK(small.add(spend({confirmed_coin(1)}, {{0xb2, 900}}), chain.lookup()).value().what == Mempool::outcome::full);
  CHECK(small.size() == 0);
  CHECK(small.history(hash_of(0xb2)).empty());
}

TEST_CASE("Mempool: a double spend announced later replaces the first and its descendants, a block takes its own and their conflicts") {
  Chain chain;
  chain.coins[confirmed_coin(1)] = {0xa1, 100'000};
  chain.coins[confirmed_coin(2)] = {0xa1, 50'000};
  Mempool pool;
  const Transaction first = spend({confirmed_coin(1)}, {{0xb2, 90'000}});
  const Transaction child = spend({OutPoint{first.txid(), 0}}, {{0xc3, 80'000}});
  const Transaction other = spend({confirmed_coin(2)}, {{0xd4, 40'000}});
  REQUIRE(pool.add(first, chain.lookup()));
  REQUIRE(pool.add(child, chain.lookup()));
  REQUIRE(pool.add(other, chain.lookup()));
  const Transaction replacement = spend({confirmed_coin(1)}, {{0xe5, 95'000}});
  const auto replaced = pool.add(replacement, chain.lookup());
  REQUIRE(replaced);
  CHECK(replaced.value().what == Mempool::outcome::added);
  CHECK(replaced.value().removed.size() == 2);
  CHECK(replaced.value().touched.contains(hash_of(0xb2)));
  CHECK(replaced.value().touched.contains(hash_of(0xc3)));
  CHECK(pool.history(hash_of(0xb2)).empty());
  CHECK(pool.history(hash_of(0xc3)).empty());
  CHECK(!pool.contains(first.txid()));
  CHECK(!pool.contains(child.txid()));
  CHECK(pool.size() == 2);
  // The child, announced again: its parent is gone.
  CHECK(pool.add(child, chain.lookup()).value().what == Mempool::outcome::missing_inputs);

  // A block with the replacement, and a transaction of its own spending `other`'s coin.
  const Transaction grandchild = spend({OutPoint{other.txid(), 0}}, {{0xf6, 30'000}});
  REQUIRE(pool.add(grandchild, chain.lookup()).value().what == Mempool::outcome::added);
  Block block;
  block.transactions = {spend({OutPoint{}}, {{0x01, 50'0000'0000}}), replacement, spend({confirmed_coin(2)}, {{0x07, 49'000}})};
  const electrum::ScriptSet touched = pool.confirmed(block);
  CHECK(pool.size() == 0);
  for (const std::uint8_t tag : {0xe5, 0xd4, 0xf6, 0xa1}) CHECK(touched.contains(hash_of(tag)));
  CHECK(pool.bytes() == 0);
  CHECK(!pool.spends(confirmed_coin(1)));
}

TEST_CASE("Mempool: a parent mined leaves its child at height 0, clear() empties it, saying every script") {
  Chain chain;
  chain.coins[confirmed_coin(1)] = {0xa1, 100'000};
  Mempool pool;
  const Transaction parent = spend({confirmed_coin(1)}, {{0xb2, 90'000}});
  const Transaction child = spend({OutPoint{parent.txid(), 0}}, {{0xc3, 80'000}});
  REQUIRE(pool.add(parent, chain.lookup()));
  REQUIRE(pool.add(child, chain.lookup()));
  CHECK(pool.history(hash_of(0xc3)).at(0).height == -1);
  Block block;
  block.transactions = {spend({OutPoint{}}, {{0x01, 1}}), parent};
  pool.confirmed(block);
  REQUIRE(pool.size() == 1);
  CHECK(pool.history(hash_of(0xc3)).at(0).height == 0);
  CHECK(pool.history(hash_of(0xb2)).at(0).txid == child.txid());  // (it spends from 0xb2 now confirmed)
  const electrum::ScriptSet all = pool.clear();
  CHECK(all == electrum::ScriptSet{hash_of(0xb2), hash_of(0xc3)});
  CHECK(pool.size() == 0);
}

TEST_CASE("Mempool: the fee histogram in bins of 30,000 vbytes and more from the highest rate down, the rest not shown") {
  Chain chain;
  Mempool pool;
  std::uint32_t n = 0;
  // A transaction paying `rate` sat/vB exactly (its vsize does not depend on the value's digits); its vsize.
  const auto pay = [&](std::int64_t rate) {
    ++n;
    chain.coins[confirmed_coin(n)] = {0xa1, 10'000'000};
    const auto vsize = static_cast<std::int64_t>(spend({confirmed_coin(n)}, {{0xb2, 1}}).vsize());
    REQUIRE(pool.add(spend({confirmed_coin(n)}, {{0xb2, 10'000'000 - rate * vsize}}), chain.lookup()).value().what ==
            Mempool::outcome::added);
    return static_cast<std::uint64_t>(vsize);
  };
  std::uint64_t small = 0;
  for (int i = 0; i < 3; ++i) small += pay(7);
  CHECK(pool.fee_histogram().empty());  // (3 small transactions: under a bin)
  CHECK(!pool.fee_rate_for(1).has_value());
  // At 40 sat/vB until past 30,000 vbytes: one bin at 40 with all of them; the 7s stay under the next bin.
  std::uint64_t at_40 = 0;
  while (at_40 <= 30'000) at_40 += pay(40);
  const auto bins = pool.fee_histogram();
  REQUIRE(bins.size() == 1);
  CHECK(bins[0] == std::pair<std::uint64_t, std::uint64_t>{40, at_40});
  CHECK(small < 33'000);
}

TEST_CASE("Mempool: wait_for returns once another thread adds the transaction, or at its deadline") {
  Chain chain;
  chain.coins[confirmed_coin(1)] = {0xa1, 1'000};
  Mempool pool;
  const Transaction tx = spend({confirmed_coin(1)}, {{0xb2, 900}});
  CHECK(!pool.wait_for(tx.txid(), std::chrono::steady_clock::now() + std::chrono::milliseconds(20)));
  std::thread adder([&] { REQUIRE(pool.add(tx, chain.lookup())); });
  CHECK(pool.wait_for(tx.txid(), std::chrono::steady_clock::now() + std::chrono::seconds(60)));
  adder.join();
}
