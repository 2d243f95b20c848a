// BIP152 on real blocks, after the scenarios of Bitcoin Core's
// blockencodings tests: round trips through the wire, a transaction missing
// from the pool, prefilled transactions other than the coinbase, two pool
// transactions behind one short id, a real collision, and what a peer can
// get wrong. The filled blocks are checked against the original's bytes and
// hash (test data: known hashes).
#include <blockwire/codec.hpp>
#include <blockwire/p2p.hpp>
#include <blockwire/p2p/compact_blocks.hpp>

#include <doctest/doctest.h>

#include "../support/test_data.hpp"
#include "samples.hpp"

#include <algorithm>
#include <variant>

using namespace blockwire;
using namespace blockwire::p2p;

namespace {

struct Fixture {
  std::vector<TxIds> ids;
  Block block = decode_block(test::segwit_block(), ids).value();

  // Every transaction of the block but those at `except` (and the coinbase,
  // which a mempool never has).
  std::vector<PoolTransaction> pool(std::initializer_list<std::size_t> except = {}) const {
    std::vector<PoolTransaction> out;
    for (std::size_t i = 1; i < block.transactions.size(); ++i)
      if (std::find(except.begin(), except.end(), i) == except.end()) out.push_back({ids[i], &block.transactions[i]});
    return out;
  }
  // Through the wire and back, as a receiver has it.
  CmpctBlock received(const CmpctBlock& sent) const {
    std::vector<std::byte> bytes;
    encode_message(sent, network::mainnet, bytes);
    return std::get<CmpctBlock>(decode_message(bytes, network::mainnet).value());
  }
};

std::vector<std::byte> bytes_of(const Block& b) {
  std::vector<std::byte> out;
  encode_block(b, out);
  return out;
}

}  // namespace

TEST_CASE("compact blocks: the cmpctblock of a block: its header, the coinbase prefilled, a short id for each other transaction") {
  Fixture f;
  const CmpctBlock c = make_cmpctblock(f.block, f.ids, test::cmpct_nonce);
  CHECK(c.header == f.block.header);
  REQUIRE(c.prefilled.size() == 1);
  CHECK(c.prefilled[0].index == 0);
  CHECK(c.prefilled[0].tx == f.block.transactions[0]);
  REQUIRE(c.short_ids.size() == f.block.transactions.size() - 1);
  const ShortIdKey key = short_id_key(f.block.header, test::cmpct_nonce);
  for (std::size_t i = 1; i < f.block.transactions.size(); ++i) {
    CHECK(c.short_ids[i - 1] == short_id(key, f.ids[i].wtxid.to_raw_hash()));
    CHECK(c.short_ids[i - 1] < (std::uint64_t{1} << 48));
  }
  CHECK(make_cmpctblock(f.block, test::cmpct_nonce) == c);  // computing the ids itself
  // Version 1 ids the transactions by txid: other short ids for segwit ones.
  const CmpctBlock v1 = make_cmpctblock(f.block, f.ids, test::cmpct_nonce, compact_version_txid);
  CHECK(v1.short_ids[0] == short_id(key, f.ids[1].txid.to_raw_hash()));
  CHECK(v1.short_ids != c.short_ids);
  // The nonce changes the key.
  CHECK(make_cmpctblock(f.block, f.ids, test::cmpct_nonce + 1).short_ids != c.short_ids);
}

TEST_CASE("compact blocks: a pool with every transaction rebuilds the block, version 1 too") {
  Fixture f;
  for (std::uint64_t version : {compact_version_wtxid, compact_version_txid}) {
    CAPTURE(version);
    const auto pool = f.pool();
    auto partial = PartialBlock::start(f.received(make_cmpctblock(f.block, f.ids, 7, version)), pool, version);
    REQUIRE(partial);
    CHECK(partial.value().transaction_count() == f.block.transactions.size());
    CHECK(partial.value().missing().empty());
    const auto rebuilt = partial.value().finish(std::span<const Transaction>{});
    REQUIRE(rebuilt);
    CHECK(block_hash(rebuilt.value().header).to_hex() == test::segwit_block_hash);
    CHECK(bytes_of(rebuilt.value()) == std::vector<std::byte>(test::segwit_block().begin(), test::segwit_block().end()));
  }
}

TEST_CASE("compact blocks: transactions missing from the pool are asked for, then filled (SimpleRoundTripTest)") {
  Fixture f;
  const auto pool = f.pool({1, 7});
  auto started = PartialBlock::start(f.received(make_cmpctblock(f.block, f.ids, 7)), pool);
  REQUIRE(started);
  const PartialBlock& partial = started.value();
  CHECK(partial.has(0));
  CHECK_FALSE(partial.has(1));
  CHECK(partial.has(2));
  CHECK(partial.missing() == std::vector<std::uint16_t>{1, 7});
  const GetBlockTxn request = partial.request();
  CHECK(request.block_hash.to_hex() == test::segwit_block_hash);
  CHECK(request.indexes == std::vector<std::uint16_t>{1, 7});

  // No transactions, too many, another block's: refused.
  CHECK(partial.finish(BlockTxn{request.block_hash, {}}).error().code() == p2p::errc::wrong_transaction_count);
  CHECK(partial.finish(BlockTxn{request.block_hash, {f.block.transactions[1]}}).error().code() == p2p::errc::wrong_transaction_count);
  CHECK(partial.finish(BlockTxn{request.block_hash, {f.block.transactions[1], f.block.transactions[7], f.block.transactions[2]}})
            .error()
            .code() == p2p::errc::wrong_transaction_count);
  CHECK(partial.finish(BlockTxn{test::block_hash_of(1), {f.block.transactions[1], f.block.transactions[7]}}).error().code() ==
        p2p::errc::wrong_block);
  // The wrong transactions: the block does not hash to its header.
  CHECK(partial.finish(BlockTxn{request.block_hash, {f.block.transactions[7], f.block.transactions[1]}}).error().code() ==
        p2p::errc::short_id_collision);
  // The right ones, in order.
  const auto rebuilt = partial.finish(BlockTxn{request.block_hash, {f.block.transactions[1], f.block.transactions[7]}});
  REQUIRE(rebuilt);
  CHECK(bytes_of(rebuilt.value()) == std::vector<std::byte>(test::segwit_block().begin(), test::segwit_block().end()));
}

TEST_CASE("compact blocks: prefilled transactions other than the coinbase (Non-coinbase and SufficientPreforward tests)") {
  Fixture f;
  const ShortIdKey key = short_id_key(f.block.header, 9);
  const std::size_t n = f.block.transactions.size();
  // Transaction 1 prefilled, the coinbase by short id: the pool lacks it.
  CmpctBlock c{f.block.header, 9, {}, {{1, f.block.transactions[1]}}};
  c.short_ids.push_back(short_id(key, f.ids[0].wtxid.to_raw_hash()));
  for (std::size_t i = 2; i < n; ++i) c.short_ids.push_back(short_id(key, f.ids[i].wtxid.to_raw_hash()));
  const auto pool = f.pool();
  auto partial = PartialBlock::start(f.received(c), pool);
  REQUIRE(partial);
  CHECK(partial.value().missing() == std::vector<std::uint16_t>{0});
  CHECK(bytes_of(partial.value().finish(std::span(&f.block.transactions[0], 1)).value()) ==
        std::vector<std::byte>(test::segwit_block().begin(), test::segwit_block().end()));
  // The coinbase and transaction 2 prefilled (differential index 1 on the
  // wire), transaction 1 from the pool: nothing to ask for.
  CmpctBlock both{
      f.block.header, 9, {short_id(key, f.ids[1].wtxid.to_raw_hash())}, {{0, f.block.transactions[0]}, {2, f.block.transactions[2]}}};
  for (std::size_t i = 3; i < n; ++i) both.short_ids.push_back(short_id(key, f.ids[i].wtxid.to_raw_hash()));
  auto full = PartialBlock::start(f.received(both), pool);
  REQUIRE(full);
  CHECK(full.value().missing().empty());
  CHECK(block_hash(full.value().finish(std::span<const Transaction>{}).value().header).to_hex() == test::segwit_block_hash);
}

TEST_CASE("compact blocks: what a peer can get wrong, and short id collisions") {
  Fixture f;
  const CmpctBlock good = make_cmpctblock(f.block, f.ids, 7);
  const auto pool = f.pool();
  SUBCASE("no transactions at all") {
    CHECK(PartialBlock::start(CmpctBlock{f.block.header, 7, {}, {}}, pool).error().code() == p2p::errc::bad_compact_block);
  }
  SUBCASE("a prefilled index with neither a short id nor a transaction before it, or out of order") {
    CmpctBlock c = good;
    // Past every short id and prefilled transaction before it (Core's
    // condition); one less is a place that a short id fills.
    c.prefilled[0].index = static_cast<std::uint16_t>(c.short_ids.size() + 1);
    CHECK(PartialBlock::start(c, pool).error().code() == p2p::errc::bad_compact_block);
    c.prefilled[0].index = static_cast<std::uint16_t>(c.short_ids.size());
    CHECK(PartialBlock::start(c, pool));
    c = good;
    c.prefilled[0].index = 1;  // the coinbase second: its short id at place 0 is another's
    CHECK(PartialBlock::start(c, pool).value().missing() == std::vector<std::uint16_t>{});
    c = good;
    c.prefilled.push_back({0, f.block.transactions[1]});
    CHECK(PartialBlock::start(c, pool).error().code() == p2p::errc::bad_compact_block);
  }
  SUBCASE("two short ids alike in the message: the whole block is needed") {
    CmpctBlock c = good;
    c.short_ids[5] = c.short_ids[4];
    CHECK(PartialBlock::start(c, pool).error().code() == p2p::errc::short_id_collision);
  }
  SUBCASE("two pool transactions behind one short id: that place is asked for") {
    // A first entry with transaction 3's short id (as Core, the pool is not
    // read further once every place is filled: the second must come before).
    std::vector<PoolTransaction> doubled{{f.ids[3], &f.block.transactions[4]}};
    doubled.insert(doubled.end(), pool.begin(), pool.end());
    auto partial = PartialBlock::start(good, doubled);
    REQUIRE(partial);
    CHECK(partial.value().missing() == std::vector<std::uint16_t>{3});
    CHECK(partial.value().finish(std::span(&f.block.transactions[3], 1)));
  }
  SUBCASE("a pool transaction not in the block that has a block transaction's short id") {
    // The short id at place 10 is, by construction, that of a transaction
    // from another block which the pool holds: the block it fills does not
    // hash to its header, and the receiver falls back to the whole block.
    std::vector<TxIds> other_ids;
    const Block other = decode_block(test::block413567(), other_ids).value();
    CmpctBlock c = good;
    c.short_ids[9] = short_id(short_id_key(c.header, c.nonce), other_ids[5].wtxid.to_raw_hash());
    auto with_other = f.pool({10});
    with_other.push_back({other_ids[5], &other.transactions[5]});
    auto partial = PartialBlock::start(c, with_other);
    REQUIRE(partial);
    CHECK(partial.value().missing().empty());
    CHECK(partial.value().finish(std::span<const Transaction>{}).error().code() == p2p::errc::short_id_collision);
  }
}

TEST_CASE("PartialBlock is moved, never copied: its slots point into its own prefilled transactions") {
  static_assert(!std::is_copy_constructible_v<blockwire::p2p::PartialBlock>);
  static_assert(!std::is_copy_assignable_v<blockwire::p2p::PartialBlock>);
  static_assert(std::is_nothrow_move_constructible_v<blockwire::p2p::PartialBlock>);
  // A moved one still finishes the block its cmpctblock describes.
  const blockwire::Block block = blockwire::decode_block(test::block413567()).value();
  const auto cmpct = blockwire::p2p::make_cmpctblock(block, 7);
  auto partial = blockwire::p2p::PartialBlock::start(cmpct, {});
  REQUIRE(partial);
  blockwire::p2p::PartialBlock moved = std::move(partial).value();
  std::vector<blockwire::Transaction> missing(block.transactions.begin() + 1, block.transactions.end());
  auto finished = moved.finish(missing);
  REQUIRE(finished);
  CHECK(finished.value() == block);
}
