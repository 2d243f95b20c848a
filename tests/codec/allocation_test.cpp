// Memory follows the bytes present, never a length prefix: 10-byte inputs
// that claim 2^25 inputs, outputs, witness items and script bytes decode to
// an error with a peak allocation under 1 MiB, from a span and from streams.
//
// This binary replaces the global operator new to measure that.
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include <algorithm>

#include "../support/test_data.hpp"
#include "../support/bytes.hpp"

#include "../support/counting_new.hpp"
#include "../support/small_tx_blocks.hpp"

using namespace blockwire;
using test::bytes;
using test::concat;

namespace {

constexpr std::size_t one_mib = 1024 * 1024;
const std::vector<std::byte> claim_2_25 = bytes({0xfe, 0x00, 0x00, 0x00, 0x02});  // CompactSize 2^25

// Decodes `raw` three ways (span, exact stream, buffered stream) and returns
// the largest peak allocation seen during any of them.
template <class Decode>
std::size_t peak_of(const std::vector<std::byte>& raw, Decode decode) {
  std::size_t worst = 0;
  for (int way = 0; way < 3; ++way) {
    SpanReader source(raw);
    StreamReader stream{reader_ref(source)};  // allocated before measuring: it is the caller's
    const std::size_t before = counting::reset_peak();
    bool failed;
    if (way == 0)
      failed = !decode(std::span<const std::byte>(raw));
    else if (way == 1)
      failed = !decode(reader_ref(source));
    else
      failed = !decode(stream);
    CHECK(failed);  // 10 bytes cannot hold what they claim
    worst = std::max(worst, counting::peak.load() - before);
  }
  return worst;
}

std::size_t peak_decoding_tx(const std::vector<std::byte>& raw) {
  return peak_of(raw, [](auto&& in) { return static_cast<bool>(decode_transaction(in)); });
}

}  // namespace

TEST_CASE("a 10-byte transaction claiming 2^25 inputs allocates under 1 MiB") {
  const auto raw = concat({bytes({1, 0, 0, 0}), claim_2_25, bytes({0})});
  REQUIRE(raw.size() == 10);
  CHECK(peak_decoding_tx(raw) < one_mib);
}

TEST_CASE("a 10-byte transaction claiming 2^25 outputs allocates under 1 MiB") {
  const auto raw = concat({bytes({1, 0, 0, 0}), bytes({0}), claim_2_25});  // no inputs (legacy form)
  REQUIRE(raw.size() == 10);
  const std::size_t worst = peak_of(raw, [](auto&& in) { return static_cast<bool>(decode_transaction(in, witness::disallow)); });
  CHECK(worst < one_mib);
}

TEST_CASE("a transaction claiming 2^25 witness items allocates under 1 MiB") {
  // version, marker, flag, one input with an empty scriptSig, no outputs,
  // then a witness stack that claims 2^25 items.
  const auto raw =
      concat({bytes({1, 0, 0, 0, 0, 1, 1}), std::vector<std::byte>(36), bytes({0, 0xff, 0xff, 0xff, 0xff}), bytes({0}), claim_2_25});
  CHECK(peak_decoding_tx(raw) < one_mib);
}

TEST_CASE("a transaction claiming 2^25 script bytes allocates under 1 MiB") {
  // No inputs (legacy form), one output whose script claims 2^25 bytes.
  const auto raw = concat({bytes({1, 0, 0, 0}), bytes({0}), bytes({1}), std::vector<std::byte>(8), claim_2_25});
  const std::size_t worst = peak_of(raw, [](auto&& in) { return static_cast<bool>(decode_transaction(in, witness::disallow)); });
  CHECK(worst < one_mib);
}

TEST_CASE("a block claiming 2^25 transactions allocates under 1 MiB") {
  const auto block = concat({std::vector<std::byte>(80), claim_2_25});
  const std::size_t worst = peak_of(block, [](auto&& in) { return static_cast<bool>(decode_block(in)); });
  CHECK(worst < one_mib);
}

TEST_CASE("the counting allocator counts: decoding the real block allocates more than its size") {
  const std::size_t before = counting::reset_peak();
  auto block = decode_block(test::block413567());
  REQUIRE(block);
  CHECK(counting::peak.load() - before > test::block413567().size());
}

TEST_CASE("the densest valid block: 16,665 sixty-byte transactions are within the weight limit, 16,666 are not") {
  const Block dense = decode_block(test::block_of(test::max_sixty_byte_txs, test::sixty_byte_tx())).value();
  const Block over = decode_block(test::block_of(test::max_sixty_byte_txs + 1, test::sixty_byte_tx())).value();
  CHECK(weight(dense) <= 4'000'000);  // Bitcoin's MAX_BLOCK_WEIGHT
  CHECK(weight(over) > 4'000'000);
}

TEST_CASE("decoding a block peaks at 3x its size at most: both real blocks, the densest valid block, 399,991 ten-byte transactions") {
  const auto tiny = test::block_of(399'991, test::ten_byte_tx());
  const auto dense = test::block_of(test::max_sixty_byte_txs, test::sixty_byte_tx());
  for (const auto* raw : {&test::block413567(), &test::segwit_block(), &dense, &tiny}) {
    CAPTURE(raw->size());
    const std::size_t before = counting::reset_peak();
    const auto block = decode_block(*raw);
    REQUIRE(block);
    const std::size_t peak = counting::peak.load() - before;
    CAPTURE(peak);
    CHECK(peak <= 3 * raw->size());
  }
}

TEST_CASE("decoding a block allocates once a transaction, and a few times for the block itself") {
  const auto tiny = test::block_of(399'991, test::ten_byte_tx());
  const auto dense = test::block_of(test::max_sixty_byte_txs, test::sixty_byte_tx());
  for (const auto* raw : {&test::block413567(), &test::segwit_block(), &dense, &tiny}) {
    const std::size_t before = counting::allocations.load();
    const auto block = decode_block(*raw);
    REQUIRE(block);
    const std::size_t allocations = counting::allocations.load() - before;
    // A ten-byte transaction (no inputs, no outputs) is kept in the object
    // itself; every other one here has inputs, and one allocation. The
    // rest: the vector of transactions and the decoder's scratch, which
    // grows geometrically to the largest record.
    const std::size_t holding = raw == &tiny ? 0 : block.value().transactions.size();
    CAPTURE(block.value().transactions.size());
    CHECK(allocations >= holding);
    CHECK(allocations <= holding + 64);
  }
}

TEST_CASE("a merkle root of 1,557 and of 2,500 transactions allocates exactly once") {
  for (const auto* raw : {&test::block413567(), &test::segwit_block()}) {
    const Block block = decode_block(*raw).value();
    CAPTURE(block.transactions.size());
    std::size_t before = counting::allocations.load();
    bool mutated = true;
    const Hash256 root = merkle_root(block, &mutated);
    CHECK(counting::allocations.load() - before == 1);
    CHECK(root == block.header.merkle_root);
    CHECK_FALSE(mutated);

    std::vector<Hash256> leaves;
    for (const Transaction& tx : block.transactions) leaves.push_back(tx.txid().to_raw_hash());
    before = counting::allocations.load();
    CHECK(merkle_root(leaves) == root);
    CHECK(counting::allocations.load() - before == 1);
  }
}

TEST_CASE("a BlockView of either real block allocates once (its offsets), and no more than the block's size") {
  for (const auto* raw : {&test::block413567(), &test::segwit_block()}) {
    const std::size_t allocations = counting::allocations.load();
    const std::size_t before = counting::reset_peak();
    auto view = BlockView::parse(*raw);
    REQUIRE(view);
    CHECK(counting::allocations.load() - allocations == 1);
    CHECK(counting::peak.load() - before < raw->size());
  }
}
