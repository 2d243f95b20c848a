// Zero-copy views against the decoder: the same values on real blocks and
// Bitcoin Core's vectors, the same errors at the same offsets on damaged
// input; and the streaming merkle builder against merkle_root. What a view
// may be made from, and what a moved-from view reads.
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "../io/test_support.hpp"
#include "../support/test_data.hpp"

#include <algorithm>
#include <fstream>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

using namespace blockwire;

namespace {

// The decoder and the view agree: both fail with the same code at the same
// offset, or both succeed with the same content.
void agree_on_block(std::span<const std::byte> bytes) {
  const auto decoded = decode_block(bytes);
  const auto view = BlockView::parse(bytes);
  REQUIRE(decoded.has_value() == view.has_value());
  if (!decoded) {
    CHECK(decoded.error() == view.error());
    return;
  }
  CHECK(view.value().to_block() == decoded.value());
}

void agree_on_transaction(std::span<const std::byte> bytes, witness mode) {
  const auto decoded = decode_transaction(bytes, mode);
  const auto view = TransactionView::parse(bytes, mode);
  REQUIRE(decoded.has_value() == view.has_value());
  if (!decoded) {
    CHECK(decoded.error() == view.error());
    return;
  }
  CHECK(view.value().to_transaction() == decoded.value());
  CHECK(view.value().txid() == decoded.value().txid());
  CHECK(view.value().wtxid() == decoded.value().wtxid());
}

}  // namespace

TEST_CASE("views of both real blocks give what decode_block gives, field by field, and the README's ids") {
  struct Facts {
    const std::vector<std::byte>* bytes;
    std::size_t count, stripped, weight;
    const char* last_txid;
  };
  const Facts facts[] = {
      {&test::block413567(), 1557, 999'887, 3'999'548, "63434bb06525615f43954598d281d03feaae70658c4187ccb3ba7fa7b093a0b8"},
      {&test::segwit_block(), 2500, 870'406, 3'993'054, "2947daf667b1914a2f060e8cf10267ca1d056f0dab3ccb273da474f063b7f412"},
  };
  for (const Facts& f : facts) {
    const auto view = BlockView::parse(*f.bytes);
    REQUIRE(view);
    const Block block = decode_block(*f.bytes).value();
    const BlockView& v = view.value();
    CHECK(v.header() == block.header);
    REQUIRE(v.transaction_count() == f.count);
    CHECK(v.size() == f.bytes->size());
    CHECK(v.stripped_size() == f.stripped);
    CHECK(v.weight() == f.weight);
    CHECK(v.transaction(f.count - 1).txid().to_hex() == f.last_txid);
    std::size_t with_witness = 0;
    for (std::size_t i = 0; i < f.count; ++i) {
      const TransactionView tx = v.transaction(i);
      const Transaction& t = block.transactions[i];
      REQUIRE(tx.input_count() == t.input_count());
      REQUIRE(tx.output_count() == t.output_count());
      CHECK(tx.version() == t.version());
      CHECK(tx.lock_time() == t.lock_time());
      CHECK(tx.is_coinbase() == t.is_coinbase());
      CHECK(tx.has_witness() == t.has_witness());
      CHECK(tx.size() == serialized_size(t));
      CHECK(tx.stripped_size() == serialized_size(t, witness::disallow));
      CHECK(std::ranges::equal(tx.bytes(), t.bytes()));
      CHECK(tx.bytes().data() != t.bytes().data());  // the view reads the block's bytes, the decoded one its own
      for (std::size_t k = 0; k < t.input_count(); ++k) {
        const InputView in = tx.input(k);
        const InputView owned = t.input(k);
        CHECK(in.prevout() == owned.prevout());
        CHECK(in.sequence() == owned.sequence());
        CHECK(std::ranges::equal(in.script_sig(), owned.script_sig()));
        const WitnessView& items = owned.witness();
        REQUIRE(in.witness().size() == items.size());
        std::size_t item = 0;
        for (const auto bytes : in.witness()) CHECK(std::ranges::equal(bytes, items[item++]));
        CHECK(in.witness() == items);
      }
      for (std::size_t k = 0; k < t.output_count(); ++k) {
        CHECK(tx.output(k).value() == t.output(k).value());
        CHECK(std::ranges::equal(tx.output(k).script_pubkey(), t.output(k).script_pubkey()));
      }
      with_witness += tx.has_witness() ? 1 : 0;
    }
    if (f.count == 2500) CHECK(with_witness == 2065);
    CHECK(check_block(v));
    CHECK(v.to_block() == block);
  }
}

TEST_CASE("views of Bitcoin Core's 212 vector transactions agree with the decoder, in both witness modes") {
  std::vector<std::string> all;
  for (const char* file : {"tx_valid.json", "tx_invalid.json"}) {
    std::ifstream in(std::string(BLOCKWIRE_TEST_DATA) + "/" + file);
    REQUIRE(in);
    for (const auto& entry : nlohmann::json::parse(in)) {
      if (entry.size() >= 2 && entry[0].is_array()) all.push_back(entry[1].get<std::string>());
    }
  }
  REQUIRE(all.size() == 212);
  for (const auto& hex : all) {
    CAPTURE(hex);
    const auto raw = test::from_hex(hex);
    agree_on_transaction(raw, witness::allow);
    agree_on_transaction(raw, witness::disallow);
  }
}

TEST_CASE("views fail like the decoder: every prefix of a segwit transaction run, and random byte flips of a block") {
  const auto& block = test::segwit_block();
  // Three transactions after the header and count: their every prefix.
  const auto decoded = decode_block(block).value();
  std::size_t end = 80 + 3;
  for (int i = 0; i < 3; ++i) end += serialized_size(decoded.transactions[static_cast<std::size_t>(i)]);
  const auto run = std::span(block).subspan(83, end - 83);
  for (std::size_t n = 0; n < run.size(); ++n) agree_on_transaction(run.first(n), witness::allow);

  // 300 single-byte changes of block 413567's first 20 kB, each decoded both ways.
  std::mt19937_64 rng(11);
  auto small = std::vector<std::byte>(test::block413567().begin(), test::block413567().end());
  for (int i = 0; i < 300; ++i) {
    auto damaged = small;
    damaged[rng() % 20'000] = static_cast<std::byte>(rng());
    agree_on_block(damaged);
  }
  // Truncated blocks.
  for (std::size_t n : {0, 1, 79, 80, 81, 84, 1000, 500'000}) agree_on_block(std::span(small).first(n));
}

TEST_CASE("check_block on a view says what it says on the decoded block") {
  auto bytes = test::segwit_block();
  CHECK(check_block(BlockView::parse(bytes).value()));
  bytes[200] ^= std::byte{1};  // inside the coinbase: the merkle root no longer matches
  const auto block = decode_block(bytes);
  const auto view = BlockView::parse(bytes);
  REQUIRE(block);
  REQUIRE(view);
  const auto a = check_block(block.value());
  const auto b = check_block(view.value());
  REQUIRE_FALSE(a);
  REQUIRE_FALSE(b);
  CHECK(a.error() == b.error());
  CHECK(b.error().code() == check::errc::bad_merkle_root);
}

TEST_CASE("MerkleBuilder: duplicated subtrees above the leaves are mutations, inside a batch, across batches and in a part batch") {
  // Two equal adjacent nodes at a level above 0 come from two equal runs of
  // leaves: level 1 inside the first batch of 64, level 6 where two whole
  // batches meet (add_node), level 2 in the part batch root() folds in.
  std::mt19937_64 rng(9);
  const auto random_leaves = [&](std::size_t n) {
    std::vector<Hash256> leaves(n);
    for (auto& leaf : leaves) {
      for (auto& b : leaf.bytes()) b = static_cast<std::byte>(rng());
    }
    return leaves;
  };
  struct Case {
    std::size_t n, from, to, length;  // leaves[to, to + length) = leaves[from, from + length)
  };
  for (const Case c : {Case{70, 0, 2, 2}, Case{150, 0, 64, 64}, Case{140, 128, 132, 4}, Case{256, 128, 192, 64}}) {
    CAPTURE(c.n);
    CAPTURE(c.to);
    auto leaves = random_leaves(c.n);
    std::copy_n(leaves.begin() + static_cast<std::ptrdiff_t>(c.from), c.length, leaves.begin() + static_cast<std::ptrdiff_t>(c.to));
    bool expected_mutated = false;
    const Hash256 expected = merkle_root(leaves, &expected_mutated);
    REQUIRE(expected_mutated);  // merkle_root sees it: the case is what it claims
    MerkleBuilder builder;
    for (const auto& leaf : leaves) builder.add(leaf);
    bool got_mutated = false;
    CHECK(builder.root(&got_mutated) == expected);
    CHECK(got_mutated);
  }
}

TEST_CASE("MerkleBuilder: the root and mutation flag of merkle_root, for 0 to 200 leaves and past batches, with and without duplicates") {
  // The builder hashes leaves in batches of 64: counts around the batch
  // edges, and duplicates inside a batch, on its last pair, and across two
  // batches (adjacent but not siblings: no mutation at that level).
  std::vector<std::size_t> counts;
  for (std::size_t n = 0; n <= 200; ++n) counts.push_back(n);
  for (std::size_t n : {255, 256, 257, 319, 320, 321, 4095, 4096, 4097}) counts.push_back(n);
  std::mt19937_64 rng(5);
  for (std::size_t n : counts) {
    for (std::size_t duplicate : {std::size_t{0}, n - 1, std::size_t{63}, std::size_t{64}, std::size_t{129}}) {
      if (duplicate != 0 && (duplicate >= n)) continue;
      std::vector<Hash256> leaves(n);
      for (auto& leaf : leaves) {
        for (auto& b : leaf.bytes()) b = static_cast<std::byte>(rng());
      }
      if (duplicate != 0) leaves[duplicate] = leaves[duplicate - 1];  // n - 1: CVE-2012-2459's shape
      MerkleBuilder builder;
      for (const auto& leaf : leaves) builder.add(leaf);
      bool expected_mutated = false;
      bool got_mutated = false;
      const Hash256 expected = merkle_root(leaves, &expected_mutated);
      CAPTURE(n);
      CAPTURE(duplicate);
      CHECK(builder.root(&got_mutated) == expected);
      CHECK(got_mutated == expected_mutated);
      // root() does not disturb the builder: asked twice, the same answer.
      CHECK(builder.root() == expected);
    }
  }
}

TEST_CASE("ranges of a temporary view's inputs, outputs and witnesses outlive the view (ASan checks the reads)") {
  const BlockView view = BlockView::parse(test::segwit_block()).value();
  const Block block = decode_block(test::segwit_block()).value();
  std::size_t items = 0;
  for (std::size_t t = 0; t < view.transaction_count(); ++t) {
    std::size_t i = 0;
    for (const InputView in : view.transaction(t).inputs()) {  // the TransactionView is a temporary
      const InputView owned = block.transactions[t].input(i++);
      CHECK(in.prevout() == owned.prevout());
      std::size_t k = 0;
      for (const auto item : view.transaction(t).input(i - 1).witness()) {  // so is the InputView
        CHECK(std::ranges::equal(item, owned.witness()[k++]));
        ++items;
      }
    }
    std::size_t o = 0;
    for (const OutputView out : view.transaction(t).outputs()) CHECK(out.value() == block.transactions[t].output(o++).value());
  }
  CHECK(items > 1000);  // the segwit block's witness items were all read
}

namespace {

// Whether a TransactionView can be made from a `From` (a requires-expression:
// false when the constructor chosen is deleted).
template <class From>
concept views_from = requires(From&& from) {
  TransactionView{std::forward<From>(from)};
};

// The empty transaction's wire bytes (version 2, no inputs, no outputs,
// lock time 0) and its txid, from Python's hashlib:
// sha256(sha256(bytes.fromhex("02000000000000000000"))), reversed.
constexpr const char* empty_tx_hex = "02000000000000000000";
constexpr const char* empty_txid = "4ebd325a4b394cff8c57e8317ccf5a8d0e2bdf1b8526f8aad6c8e43d8240621a";

void check_empty_transaction(const TransactionView& tx) {
  CHECK(tx.version() == 2);
  CHECK(tx.lock_time() == 0);
  CHECK(tx.input_count() == 0);
  CHECK(tx.output_count() == 0);
  CHECK(tx.inputs().empty());
  CHECK(tx.outputs().empty());
  CHECK_FALSE(tx.has_witness());
  CHECK_FALSE(tx.is_coinbase());
  CHECK(tx.size() == 10);
  CHECK(tx.stripped_size() == 10);
  CHECK(to_hex(tx.bytes()) == empty_tx_hex);
  CHECK(tx.txid().to_hex() == empty_txid);
  CHECK(tx.wtxid().to_hex() == empty_txid);
  CHECK(tx.to_transaction() == Transaction{});
}

// An empty block: an all-zero header and a transaction count of 0.
void check_empty_block(const BlockView& block) {
  CHECK(block.transaction_count() == 0);
  CHECK(block.header() == BlockHeader{});
  CHECK(std::ranges::equal(block.bytes(), std::vector<std::byte>(81)));
  CHECK(block.size() == 81);
  CHECK(block.stripped_size() == 81);
  CHECK(block.weight() == 4 * 81);
  CHECK(block.to_block() == Block{});
  const auto again = BlockView::parse(block.bytes());
  REQUIRE(again);
  CHECK(again.value().transaction_count() == 0);
}

}  // namespace

TEST_CASE("a TransactionView is made from a Transaction that outlives it, never from a temporary one") {
  static_assert(!std::is_constructible_v<TransactionView, Transaction&&>);
  static_assert(!std::is_constructible_v<TransactionView, const Transaction&&>);
  static_assert(std::is_constructible_v<TransactionView, const Transaction&>);
  static_assert(std::is_constructible_v<TransactionView, Transaction&>);
  static_assert(!views_from<Transaction>);
  static_assert(!views_from<const Transaction>);
  static_assert(views_from<const Transaction&>);
  static_assert(views_from<Transaction&>);
  const Block block = decode_block(test::segwit_block()).value();
  const Transaction& owned = block.transactions.back();
  const TransactionView view(owned);
  CHECK(view.bytes().data() == owned.bytes().data());
  CHECK(view.txid() == owned.txid());
}

TEST_CASE("an input's and an output's fields are accessors: a temporary input's prevout is a copy, an lvalue's a reference") {
  static_assert(std::is_same_v<decltype(std::declval<const InputView&>().prevout()), const OutPoint&>);
  static_assert(std::is_same_v<decltype(std::declval<InputView>().prevout()), OutPoint>);
  static_assert(std::is_member_function_pointer_v<decltype(&InputView::sequence)>);
  static_assert(std::is_member_function_pointer_v<decltype(&OutputView::value)>);
  const Block block = decode_block(test::segwit_block()).value();
  const Transaction& tx = block.transactions.back();
  const InputView in = tx.input(0);
  CHECK(&in.prevout() == &in.prevout());
  const OutPoint& kept = tx.input(0).prevout();  // a copy, its lifetime extended
  CHECK(kept == in.prevout());
  CHECK_FALSE(kept.txid.is_all_zeros());
}

TEST_CASE("a moved-from TransactionView, parsed, viewed in a block or of a Transaction, reads as the empty transaction") {
  const auto& raw = test::segwit_block();
  const Block block = decode_block(raw).value();
  const BlockView in_block = BlockView::parse(raw).value();
  const Transaction& last = block.transactions.back();
  REQUIRE(last.has_witness());
  const std::vector<std::byte> bytes(last.bytes().begin(), last.bytes().end());

  auto parsed = TransactionView::parse(bytes);
  REQUIRE(parsed);
  TransactionView moved = std::move(parsed.value());
  check_empty_transaction(parsed.value());  // NOLINT(bugprone-use-after-move): moved-from is specified here
  CHECK(moved.txid() == last.txid());
  CHECK(moved.wtxid() == last.wtxid());
  CHECK(moved.to_transaction() == last);

  // By assignment, over a view with a record of its own: the record moves,
  // the source is empty, and a copy of the empty view is empty too.
  TransactionView assigned = TransactionView::parse(block.transactions[1].bytes()).value();
  assigned = std::move(moved);
  check_empty_transaction(moved);  // NOLINT(bugprone-use-after-move)
  CHECK(assigned.to_transaction() == last);
  const TransactionView copy = moved;  // NOLINT(bugprone-use-after-move)
  check_empty_transaction(copy);

  TransactionView of_block = in_block.transaction(in_block.transaction_count() - 1);
  const TransactionView taken = std::move(of_block);
  check_empty_transaction(of_block);  // NOLINT(bugprone-use-after-move)
  CHECK(taken.to_transaction() == last);
  CHECK(in_block.transaction(in_block.transaction_count() - 1).to_transaction() == last);  // the block is untouched

  TransactionView of_owned(last);
  const TransactionView taken_too = std::move(of_owned);
  check_empty_transaction(of_owned);  // NOLINT(bugprone-use-after-move)
  CHECK(taken_too.bytes().data() == last.bytes().data());
}

TEST_CASE("a moved-from BlockView, and a default one, read as the empty block, and the one moved to reads the block") {
  const auto& raw = test::segwit_block();
  const Block block = decode_block(raw).value();
  auto parsed = BlockView::parse(raw);
  REQUIRE(parsed);
  BlockView moved = std::move(parsed.value());
  check_empty_block(parsed.value());  // NOLINT(bugprone-use-after-move): moved-from is specified here
  REQUIRE(moved.transaction_count() == block.transactions.size());
  CHECK(moved.to_block() == block);

  BlockView assigned = BlockView::parse(test::block413567()).value();
  assigned = std::move(moved);
  check_empty_block(moved);  // NOLINT(bugprone-use-after-move)
  CHECK(assigned.header() == block.header);
  CHECK(assigned.to_block() == block);

  const BlockView copy = moved;  // NOLINT(bugprone-use-after-move)
  check_empty_block(copy);
  check_empty_block(BlockView{});
}

TEST_CASE("a block whose records outgrow the view's first guess (outputs of nine bytes) parses, visits and fails like the decoder") {
  // Each empty-script output is nine bytes and one word of record: far more
  // words a byte than real blocks have, so the view's room grows mid-parse.
  Block block;
  for (std::uint32_t t = 0; t < 3; ++t) {
    TransactionBuilder b;
    b.add_input(OutPoint{Txid::all_zeros(), t}, {}, 0xffffffff);
    for (std::int64_t v = 0; v < 3000; ++v) b.add_output(Amount::from_sat(v + t), {});
    block.transactions.push_back(b.build());
  }
  std::vector<std::byte> bytes;
  encode_block(block, bytes);
  const BlockView view = BlockView::parse(bytes).value();
  REQUIRE(view.transaction_count() == 3);
  CHECK(view.to_block() == block);
  CHECK(view.transaction(2).output(2999).value() == Amount::from_sat(2999 + 2));
  std::int64_t sum = 0;
  std::size_t visited = 0;
  REQUIRE(BlockView::visit(bytes, [&](const TransactionView& tx) {
    ++visited;
    for (const OutputView out : tx.outputs()) sum += out.value().to_sat();
  }));
  CHECK(visited == 3);
  CHECK(sum == 3 * (2999 * 3000 / 2) + 3000 * (0 + 1 + 2));
  // Cut inside the second transaction's outputs, and inside the third's.
  for (std::size_t cut : {bytes.size() / 2, bytes.size() - 100}) {
    CAPTURE(cut);
    agree_on_block(std::span(bytes).first(cut));
  }
}
