// Amount against Core's definitions (amount.h: COIN, MAX_MONEY, MoneyRange;
// CheckTransaction's running sum), and the id types over real hashes.
#include <blockwire/codec.hpp>
#include <blockwire/codec/height.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

using namespace blockwire;

TEST_CASE("Amount: Core's MoneyRange, and sums and differences checked as CheckTransaction and CheckTxInputs check them") {
  constexpr std::int64_t coin = 100'000'000;             // Core's COIN
  constexpr std::int64_t max_money = 21'000'000 * coin;  // Core's MAX_MONEY
  CHECK(Amount::max_money == max_money);
  CHECK(Amount::from_sat(0).in_money_range());
  CHECK(Amount::from_sat(max_money).in_money_range());
  CHECK(!Amount::from_sat(max_money + 1).in_money_range());
  CHECK(!Amount::from_sat(-1).in_money_range());
  CHECK(checked_add(Amount::from_sat(max_money - 1), Amount::from_sat(1)) == Amount::from_sat(max_money));
  CHECK(!checked_add(Amount::from_sat(max_money), Amount::from_sat(1)));
  CHECK(!checked_add(Amount::from_sat(-5), Amount::from_sat(10)));
  // Values a hostile transaction may hold: no sum overflows, none is money.
  const Amount huge = Amount::from_sat(std::numeric_limits<std::int64_t>::max());
  CHECK(!checked_add(huge, huge));
  CHECK(!checked_add(Amount::from_sat(std::numeric_limits<std::int64_t>::min()), Amount::from_sat(1)));
  CHECK(checked_sub(Amount::from_sat(50 * coin), Amount::from_sat(49 * coin)) == Amount::from_sat(coin));
  CHECK(!checked_sub(Amount::from_sat(1), Amount::from_sat(2)));  // outputs taking more than the inputs bring
  CHECK(Amount::from_sat(1) < Amount::from_sat(2));
}

TEST_CASE("Amount: a transaction's output total, checked: the genesis coinbase's 50 BTC, and nothing past the money range") {
  const Block genesis = genesis_block(network::mainnet);
  CHECK(genesis.transactions[0].output_total() == Amount::from_sat(50 * Amount::coin));
  TransactionBuilder b;
  b.add_input(OutPoint{});
  b.add_output(Amount::from_sat(Amount::max_money), {});
  b.add_output(Amount::from_sat(1), {});
  CHECK(!b.build().output_total());
}

TEST_CASE("Txid, BlockHash: the genesis block's hash and its coinbase's txid, as every explorer shows them") {
  const Block genesis = genesis_block(network::mainnet);
  const BlockHash hash = block_hash(genesis.header);
  CHECK(hash.to_hex() == "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f");
  CHECK(hash == genesis_hash(network::mainnet));
  CHECK(BlockHash::from_hex(hash.to_hex()).value() == hash);
  const Txid coinbase = genesis.transactions[0].txid();
  CHECK(coinbase.to_hex() == "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b");
  CHECK(coinbase.to_raw_hash() == genesis.header.merkle_root);  // one transaction: the root is its txid
  CHECK(!Txid::from_hex("xyz"));
}

TEST_CASE("Height: the range Core's int nHeight and undo's 31 bits hold, and a count's heights") {
  // Core's nHeight is an int; a coin's code in undo data is height * 2 + coinbase in 32 bits.
  CHECK(Height::checked(0) == Height::genesis());
  CHECK(Height::checked(std::numeric_limits<std::int32_t>::max()).has_value());
  CHECK_FALSE(Height::checked(std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1).has_value());
  CHECK_FALSE(Height::checked(-1).has_value());                                         // a "none" of old
  CHECK_FALSE(Height::checked(std::numeric_limits<std::uint32_t>::max()).has_value());  // a hostile field
  const Height h = *Height::checked(840'000);
  CHECK(h.to_wire() == 840'000u);
  CHECK(h.to_core() == 840'000);
  CHECK(h.next().to_wire() == 840'001u);
  CHECK(h.previous() == Height::checked(839'999));
  CHECK_FALSE(Height::genesis().previous().has_value());
  CHECK(Height::genesis() - h == -840'000);
  CHECK(Height::genesis() < h);
  // A chain of three blocks: heights 0, 1 and 2; its tip 2.
  const BlockCount three(3);
  CHECK(three.contains(*Height::checked(2)));
  CHECK_FALSE(three.contains(*Height::checked(3)));
  CHECK(three.last() == Height::checked(2));
  CHECK_FALSE(BlockCount().last().has_value());
  CHECK(BlockCount::through(*Height::checked(2)) == three);
  std::vector<std::uint32_t> seen;
  for (const Height at : three.heights(*Height::checked(1))) seen.push_back(at.to_wire());
  CHECK(seen == std::vector<std::uint32_t>{1, 2});
  CHECK(three.heights(*Height::checked(7)).size() == 0);  // from past the end: none, never wrapped
  CHECK(three.heights().size() == 3);
  // A count past every height (a request's "to the end") holds each once.
  CHECK(BlockCount(~std::uint64_t{0}) == BlockCount(BlockCount::max_value));
  CHECK(BlockCount(~std::uint64_t{0}).last() == Height::checked(Height::max_value));
}
