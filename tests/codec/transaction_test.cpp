// A Transaction holds its parts in one allocation: copies are deep, a
// moved-from transaction is empty, fields edit in place, and a
// TransactionBuilder changes the counts. Every check goes through the real
// segwit block's bytes or the decoder's reading of them.
#include <blockwire/codec.hpp>

#include <doctest/doctest.h>

#include "../support/test_data.hpp"

#include <algorithm>
#include <utility>

using namespace blockwire;

namespace {

std::vector<std::byte> encoded(const Transaction& tx) {
  std::vector<std::byte> out;
  encode_transaction(tx, out);
  return out;
}

// The first transaction of the segwit block with a witness, and its bytes
// as decoded (the block re-encodes to its own bytes: block_test).
Transaction witness_tx() {
  const Block block = decode_block(test::segwit_block()).value();
  for (const Transaction& tx : block.transactions) {
    if (tx.has_witness() && !tx.is_coinbase()) return tx;
  }
  FAIL("no witness transaction in the segwit block");
  return {};
}

}  // namespace

TEST_CASE("a copy of a transaction is deep and equal; a moved-from one is empty") {
  const Transaction original = witness_tx();
  const auto bytes = encoded(original);
  Transaction copy = original;
  CHECK(copy == original);
  CHECK(encoded(copy) == bytes);
  CHECK(copy.payload().data() != original.payload().data());

  REQUIRE(copy.outputs()[0].script_pubkey.size > 0);
  copy.payload()[copy.outputs()[0].script_pubkey.offset] ^= std::byte{1};
  CHECK(copy != original);
  CHECK(encoded(original) == bytes);  // untouched

  Transaction moved = std::move(copy);
  CHECK(copy.inputs().empty());  // NOLINT(bugprone-use-after-move): moved-from is specified here
  CHECK(copy.outputs().empty());
  CHECK(copy.payload().empty());
  CHECK_FALSE(copy.has_witness());
  CHECK(moved != original);

  moved = original;  // copy-assigned over a transaction that owns parts
  CHECK(moved == original);
  const Transaction& same = moved;
  moved = same;  // self-assignment
  CHECK(encoded(moved) == bytes);
}

TEST_CASE("a field edited through the spans is what the encoding and the decoder then read") {
  Transaction tx = witness_tx();
  tx.inputs()[0].sequence = 0x01020304;
  tx.outputs()[0].value = 123'456'789;
  const Transaction back = decode_transaction(encoded(tx)).value();
  CHECK(back.inputs()[0].sequence == 0x01020304);
  CHECK(back.outputs()[0].value == 123'456'789);
  CHECK(back == tx);
}

TEST_CASE("a builder made from a transaction builds it again, and adds an input and an output to it") {
  const Transaction tx = witness_tx();
  TransactionBuilder builder(tx);
  CHECK(builder.build() == tx);
  CHECK(encoded(builder.build()) == encoded(tx));

  TxIn& in = builder.inputs.emplace_back();
  in.prevout.index = 7;
  const std::byte push_1[]{std::byte{0x51}};
  in.script_sig = builder.append(push_1);
  const std::span<const std::byte> items[] = {push_1, push_1};
  builder.set_witness(in, items);
  builder.outputs.push_back({42, builder.append(push_1)});
  const Transaction grown = builder.build();
  REQUIRE(grown.inputs().size() == tx.inputs().size() + 1);
  REQUIRE(grown.outputs().size() == tx.outputs().size() + 1);
  const Transaction back = decode_transaction(encoded(grown)).value();
  CHECK(back == grown);
  CHECK(back.inputs().back().prevout.index == 7);
  CHECK(back.witness(back.inputs().back()).size() == 2);
  CHECK(back.script_pubkey(back.outputs().back()).size() == 1);
  for (std::size_t i = 0; i < tx.inputs().size(); ++i) {  // the old inputs' witnesses kept
    CHECK(std::ranges::equal(back.witness(back.inputs()[i]), tx.witness(tx.inputs()[i]),
                             [&](ByteRange a, ByteRange b) { return std::ranges::equal(back.bytes(a), tx.bytes(b)); }));
  }
}

TEST_CASE("a transaction with no parts is empty and encodes as ten bytes") {
  const Transaction empty = TransactionBuilder{}.build();
  CHECK(empty.inputs().empty());
  CHECK(empty.payload().empty());
  CHECK(empty == Transaction{});
  std::vector<std::byte> out;
  encode_transaction(empty, out, witness::disallow);
  CHECK(out.size() == 10);  // version, two zero counts, lock time
}

TEST_CASE("a transaction whose every stack was emptied has no witness, however its stacks were emptied") {
  const Transaction tx = witness_tx();
  std::vector<std::byte> legacy;
  encode_transaction(tx, legacy, witness::disallow);

  Transaction in_place = tx;  // through the spans: the items stay behind, unused
  for (TxIn& in : in_place.inputs()) in.witness_size = 0;
  TransactionBuilder emptied(tx);  // through a builder
  for (TxIn& in : emptied.inputs) in.witness_size = 0;
  for (const Transaction& plain : {in_place, emptied.build()}) {
    CHECK_FALSE(plain.has_witness());
    CHECK(encoded(plain) == legacy);  // no marker and flag over empty stacks
    CHECK(decode_transaction(encoded(plain)).value() == plain);
    CHECK(txid(plain) == txid(tx));
    CHECK(wtxid(plain) == txid(tx));
  }
}

TEST_CASE("a stack replaced through a builder: the new one is encoded, the others as they were") {
  const Transaction tx = witness_tx();
  std::size_t with_stack = 0;
  while (tx.inputs()[with_stack].witness_size == 0) ++with_stack;
  TransactionBuilder replaced(tx);
  const std::byte one[]{std::byte{0x01}};
  const std::span<const std::byte> items[] = {one};
  replaced.set_witness(replaced.inputs[with_stack], items);  // the old stack's items stay behind, unused
  const Transaction rebuilt = replaced.build();
  const Transaction back = decode_transaction(encoded(rebuilt)).value();
  CHECK(back == rebuilt);
  REQUIRE(back.witness(back.inputs()[with_stack]).size() == 1);
  CHECK(back.bytes(back.witness(back.inputs()[with_stack])[0]).size() == 1);
  for (std::size_t i = 0; i < tx.inputs().size(); ++i) {
    if (i == with_stack) continue;
    CHECK(std::ranges::equal(back.witness(back.inputs()[i]), tx.witness(tx.inputs()[i]),
                             [&](ByteRange a, ByteRange b) { return std::ranges::equal(back.bytes(a), tx.bytes(b)); }));
  }
}
