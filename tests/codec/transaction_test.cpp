// A Transaction owns its wire bytes and the record of where each part of
// them begins, in one allocation: copies are deep and independent of the
// original, a moved-from transaction is the default one, a TransactionView
// of the same bytes reads the same fields, and edits go through a
// TransactionBuilder, which builds what the decoders would read. Every
// check goes through the real blocks' bytes or the decoder's reading of
// them.
#include <blockwire/codec.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/io.hpp>
#include <blockwire/io/sha256.hpp>

#include <doctest/doctest.h>

#include "../support/test_data.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>

using namespace blockwire;

namespace {

std::vector<std::byte> encoded(const Transaction& tx, witness mode = witness::allow) {
  std::vector<std::byte> out;
  encode_transaction(tx, out, mode);
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

// Whether `part` lies inside `whole` (an empty part anywhere in it or at
// its end): what a reader hands out points into its own transaction's bytes.
bool inside(std::span<const std::byte> part, std::span<const std::byte> whole) {
  const auto at = reinterpret_cast<std::uintptr_t>(part.data()), from = reinterpret_cast<std::uintptr_t>(whole.data());
  return at >= from && at + part.size() <= from + whole.size();
}

// Every span `tx` hands out lies inside its bytes, and its ranges of
// inputs and outputs give what input(i) and output(i) give.
template <TransactionLike Tx>
void check_reads_itself(const Tx& tx) {
  const auto all = tx.bytes();
  std::size_t i = 0;
  for (const InputView in : tx.inputs()) {
    CAPTURE(i);
    REQUIRE(i < tx.input_count());
    CHECK(in.prevout() == tx.input(i).prevout());
    CHECK(inside(in.script_sig(), all));
    if (tx.has_witness()) {
      CHECK(inside(in.witness().bytes(), all));  // its count at least
      CHECK_FALSE(in.witness().bytes().empty());
    } else {
      CHECK(in.witness().empty());  // no stack at all
      CHECK(in.witness().bytes().empty());
    }
    for (const auto item : in.witness()) CHECK(inside(item, all));
    ++i;
  }
  CHECK(i == tx.input_count());
  i = 0;
  for (const OutputView out : tx.outputs()) {
    CAPTURE(i);
    REQUIRE(i < tx.output_count());
    CHECK(out.value() == tx.output(i).value());
    CHECK(inside(out.script_pubkey(), all));
    ++i;
  }
  CHECK(i == tx.output_count());
  for (const auto part : tx.txid_parts()) CHECK(inside(part, all));
}

// Two readers of the same transaction (an owned one and a view, or two of
// either) read the same fields, item by item, and the same sizes and ids.
template <TransactionLike A, TransactionLike B>
void check_same_fields(const A& a, const B& b) {
  CHECK(a.version() == b.version());
  CHECK(a.lock_time() == b.lock_time());
  CHECK(a.has_witness() == b.has_witness());
  CHECK(a.is_coinbase() == b.is_coinbase());
  CHECK(std::ranges::equal(a.bytes(), b.bytes()));
  CHECK(a.size() == b.size());
  CHECK(a.stripped_size() == b.stripped_size());
  CHECK(a.weight() == b.weight());
  CHECK(a.vsize() == b.vsize());
  for (std::size_t p = 0; p < 3; ++p) CHECK(std::ranges::equal(a.txid_parts()[p], b.txid_parts()[p]));
  CHECK(a.txid() == b.txid());
  CHECK(a.wtxid() == b.wtxid());
  REQUIRE(a.input_count() == b.input_count());
  REQUIRE(a.output_count() == b.output_count());
  REQUIRE(a.inputs().size() == a.input_count());
  REQUIRE(b.outputs().size() == b.output_count());
  for (std::size_t i = 0; i < a.input_count(); ++i) {
    CAPTURE(i);
    const InputView x = a.input(i), y = b.input(i);
    CHECK(x.prevout() == y.prevout());
    CHECK(x.sequence() == y.sequence());
    CHECK(std::ranges::equal(x.script_sig(), y.script_sig()));
    REQUIRE(x.witness().size() == y.witness().size());
    CHECK(x.witness().empty() == y.witness().empty());
    CHECK(x.witness() == y.witness());
    CHECK(std::ranges::equal(x.witness().bytes(), y.witness().bytes()));
    for (std::size_t k = 0; k < x.witness().size(); ++k) CHECK(std::ranges::equal(x.witness()[k], y.witness()[k]));
    auto other = y.witness().begin();
    for (const auto item : x.witness()) CHECK(std::ranges::equal(item, *other++));
    CHECK(other == y.witness().end());
  }
  for (std::size_t i = 0; i < a.output_count(); ++i) {
    CAPTURE(i);
    const OutputView x = a.output(i), y = b.output(i);
    CHECK(x.value() == y.value());
    CHECK(std::ranges::equal(x.script_pubkey(), y.script_pubkey()));
  }
}

}  // namespace

TEST_CASE("a copy of a transaction is deep and equal and outlives the original, a moved-from one is the default transaction") {
  auto original = std::make_unique<Transaction>(witness_tx());
  const auto bytes = encoded(*original);
  CHECK(std::ranges::equal(original->bytes(), bytes));  // what it holds is what it encodes
  const Txid id = original->txid();
  const Wtxid wid = original->wtxid();
  const std::size_t inputs = original->input_count(), outputs = original->output_count();
  Transaction copy = *original;
  CHECK(copy == *original);
  CHECK(copy.bytes().data() != original->bytes().data());
  check_same_fields(copy, *original);

  // The copy reads its own allocation (offsets, never pointers): with the
  // original gone, it reads the same, and nothing it hands out points
  // outside its own bytes.
  original.reset();
  check_reads_itself(copy);
  CHECK(encoded(copy) == bytes);
  CHECK(copy.txid() == id);
  CHECK(copy.wtxid() == wid);
  CHECK(copy.input_count() == inputs);
  CHECK(copy.output_count() == outputs);
  const Transaction fresh = decode_transaction(bytes).value();
  CHECK(copy == fresh);
  check_same_fields(copy, fresh);

  Transaction moved = std::move(copy);
  CHECK(copy == Transaction{});  // NOLINT(bugprone-use-after-move): moved-from is specified here
  CHECK(copy.input_count() == 0);
  CHECK(copy.output_count() == 0);
  CHECK(copy.size() == 10);
  CHECK_FALSE(copy.has_witness());
  CHECK(moved == fresh);
  CHECK(encoded(moved) == bytes);

  Transaction other = decode_transaction(test::from_hex("01000000000000000000")).value();  // ten bytes, version 1
  REQUIRE_FALSE(other == fresh);
  other = fresh;  // copy-assigned over a transaction that owns an allocation
  CHECK(other == fresh);
  check_reads_itself(other);
  other = Transaction{};  // move-assigned the default over it
  CHECK(other == Transaction{});
  moved = copy;  // the default copied over one with parts
  CHECK(moved == Transaction{});
  moved = fresh;
  const Transaction& same = moved;
  moved = same;  // self-assignment
  CHECK(encoded(moved) == bytes);
  check_reads_itself(moved);
}

TEST_CASE("a field changed through a builder is what the encoding and the decoder then read, the original is unchanged") {
  const Transaction tx = witness_tx();
  const auto before = encoded(tx);
  REQUIRE(tx.input(0).sequence() != 0x01020304);
  REQUIRE(tx.output(0).value() != Amount::from_sat(123'456'789));
  TransactionBuilder edit(tx);
  edit.inputs[0].sequence = 0x01020304;
  edit.outputs[0].value = Amount::from_sat(123'456'789);
  edit.lock_time = 0x0a0b0c0d;
  const Transaction changed = edit.build();
  CHECK(changed.input(0).sequence() == 0x01020304);
  CHECK(changed.output(0).value() == Amount::from_sat(123'456'789));
  CHECK(changed.lock_time() == 0x0a0b0c0d);
  CHECK(changed != tx);
  CHECK(encoded(tx) == before);  // a Transaction is not edited: the builder holds copies
  const Transaction back = decode_transaction(encoded(changed)).value();
  CHECK(back.input(0).sequence() == 0x01020304);
  CHECK(back.output(0).value() == Amount::from_sat(123'456'789));
  CHECK(back.lock_time() == 0x0a0b0c0d);
  CHECK(back == changed);
  // Only those fields changed: the original's bytes with the three
  // fields written over, where the original's own reading places them.
  const std::byte* base = tx.bytes().data();
  const auto script_sig = tx.input(0).script_sig();
  const auto sequence_at = static_cast<std::size_t>(script_sig.data() + script_sig.size() - base);
  const auto script_pubkey = tx.output(0).script_pubkey();
  REQUIRE(script_pubkey.size() < 0xfd);  // a one-byte length before it
  const auto value_at = static_cast<std::size_t>(script_pubkey.data() - base) - 1 - 8;
  auto expected = before;
  const auto put = [&](std::size_t at, std::uint64_t v, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) expected[at + k] = static_cast<std::byte>(v >> (8 * k));
  };
  put(sequence_at, 0x01020304, 4);
  put(value_at, 123'456'789, 8);
  put(expected.size() - 4, 0x0a0b0c0d, 4);
  CHECK(std::ranges::equal(changed.bytes(), expected));
  CHECK(back.txid() != tx.txid());
  for (std::size_t i = 0; i < tx.input_count(); ++i) CHECK(back.input(i).witness() == tx.input(i).witness());
}

TEST_CASE("a builder made from a transaction builds it again, and adds an input and an output to it") {
  const Transaction tx = witness_tx();
  TransactionBuilder builder(tx);
  CHECK(builder.version == tx.version());
  CHECK(builder.lock_time == tx.lock_time());
  REQUIRE(builder.inputs.size() == tx.input_count());
  REQUIRE(builder.outputs.size() == tx.output_count());
  CHECK(builder.build() == tx);
  CHECK(encoded(builder.build()) == encoded(tx));

  const std::byte push_1[]{std::byte{0x51}};
  TransactionBuilder::Input& in = builder.add_input({Txid::all_zeros(), 7}, push_1, 0xfffffffe);
  CHECK(in.prevout.index == 7);
  const std::span<const std::byte> items[] = {push_1, push_1};
  builder.set_witness(builder.inputs.size() - 1, items);
  builder.add_output(Amount::from_sat(42), push_1);
  const Transaction grown = builder.build();
  REQUIRE(grown.input_count() == tx.input_count() + 1);
  REQUIRE(grown.output_count() == tx.output_count() + 1);
  const Transaction back = decode_transaction(encoded(grown)).value();
  CHECK(back == grown);
  const InputView last = back.inputs().back();
  CHECK(last.prevout().index == 7);
  CHECK(last.sequence() == 0xfffffffe);
  CHECK(std::ranges::equal(last.script_sig(), push_1));
  REQUIRE(last.witness().size() == 2);
  CHECK(std::ranges::equal(last.witness()[0], push_1));
  CHECK(std::ranges::equal(last.witness()[1], push_1));
  CHECK(back.outputs().back().value() == Amount::from_sat(42));
  CHECK(std::ranges::equal(back.outputs().back().script_pubkey(), push_1));
  for (std::size_t i = 0; i < tx.input_count(); ++i) {  // the old inputs' witnesses kept
    CAPTURE(i);
    CHECK(back.input(i).witness() == tx.input(i).witness());
    CHECK(std::ranges::equal(back.input(i).script_sig(), tx.input(i).script_sig()));
  }
  for (std::size_t i = 0; i < tx.output_count(); ++i)
    CHECK(std::ranges::equal(back.output(i).script_pubkey(), tx.output(i).script_pubkey()));
}

TEST_CASE("a default transaction is the builder's default: version 2, nothing in it, ten bytes") {
  const Transaction empty = TransactionBuilder{}.build();
  CHECK(empty == Transaction{});
  const Transaction by_default;
  for (const Transaction* tx : {&empty, &by_default}) {
    const Transaction& t = *tx;
    CHECK(t.version() == 2);
    CHECK(t.lock_time() == 0);
    CHECK(t.input_count() == 0);
    CHECK(t.inputs().empty());
    CHECK(t.output_count() == 0);
    CHECK(t.outputs().empty());
    CHECK_FALSE(t.has_witness());
    CHECK_FALSE(t.is_coinbase());
    CHECK(std::ranges::equal(t.bytes(), test::from_hex("02000000000000000000")));  // version, two zero counts, lock time
    CHECK(t.size() == 10);
    CHECK(t.stripped_size() == 10);
    CHECK(t.weight() == 40);
    CHECK(t.txid().to_raw_hash() == sha256d(t.bytes()));
    CHECK(t.wtxid().to_raw_hash() == t.txid().to_raw_hash());
    check_reads_itself(t);
  }
  CHECK(encoded(empty, witness::disallow).size() == 10);
  CHECK(encoded(empty) == encoded(empty, witness::disallow));
  CHECK(decode_transaction(encoded(empty), witness::disallow).value() == Transaction{});
}

TEST_CASE("a transaction with no inputs and no outputs, kept in the object itself, reads its bytes after a copy and a move") {
  // Version 0x01020304, lock time 0x0a0b0c0d: every byte of both differs,
  // so a read from the wrong place shows.
  const auto raw = test::from_hex(
      "04030201"
      "0000"
      "0d0c0b0a");
  const Transaction decoded = decode_transaction(raw, witness::disallow).value();
  Transaction copy = decoded;
  Transaction moved = std::move(copy);
  std::vector<Transaction> many(3, moved);  // copies inside a vector, which moves them as it grows
  many.reserve(100);
  for (const Transaction* tx : std::initializer_list<const Transaction*>{&decoded, &moved, &many[0], &many[2]}) {
    CHECK(tx->version() == 0x01020304);
    CHECK(tx->lock_time() == 0x0a0b0c0d);
    CHECK(tx->input_count() == 0);
    CHECK(tx->output_count() == 0);
    CHECK(std::ranges::equal(tx->bytes(), raw));
    CHECK(tx->txid().to_raw_hash() == sha256d(raw));
    CHECK(TransactionView(*tx).txid().to_raw_hash() == sha256d(raw));
    CHECK(*tx == decoded);
  }
  CHECK(copy == Transaction{});  // moved from
  TransactionBuilder b;
  b.version = 0x01020304;
  b.lock_time = 0x0a0b0c0d;
  CHECK(b.build() == decoded);
  CHECK(encoded(decoded) == raw);
}

TEST_CASE("a transaction whose every stack was emptied has no witness, however its stacks were emptied") {
  const Transaction tx = witness_tx();
  const auto legacy = encoded(tx, witness::disallow);
  CHECK(legacy.size() == tx.stripped_size());

  TransactionBuilder cleared(tx);  // each stack's items cleared
  for (TransactionBuilder::Input& in : cleared.inputs) in.witness.clear();
  TransactionBuilder replaced(tx);  // each stack replaced by an empty range
  for (std::size_t i = 0; i < replaced.inputs.size(); ++i) replaced.set_witness(i, std::span<const std::span<const std::byte>>{});
  for (const Transaction& plain : {cleared.build(), replaced.build()}) {
    CHECK_FALSE(plain.has_witness());
    CHECK(encoded(plain) == legacy);  // no marker and flag over empty stacks
    CHECK(std::ranges::equal(plain.bytes(), legacy));
    CHECK(plain.size() == tx.stripped_size());
    CHECK(decode_transaction(encoded(plain)).value() == plain);
    CHECK(plain.txid() == tx.txid());
    CHECK(plain.wtxid().to_raw_hash() == tx.txid().to_raw_hash());
    for (const InputView in : plain.inputs()) CHECK(in.witness().empty());
  }

  // A stack of one empty item is not an empty stack: witness data.
  TransactionBuilder one_empty_item(tx);
  for (TransactionBuilder::Input& in : one_empty_item.inputs) in.witness.clear();
  one_empty_item.inputs[0].witness.emplace_back();
  const Transaction with_item = one_empty_item.build();
  CHECK(with_item.has_witness());
  CHECK(with_item.size() > tx.stripped_size());
  REQUIRE(with_item.input(0).witness().size() == 1);
  CHECK(with_item.input(0).witness()[0].empty());
  CHECK(with_item.txid() == tx.txid());
  CHECK(decode_transaction(encoded(with_item)).value() == with_item);
}

TEST_CASE("a stack replaced through a builder: the new one is encoded, the others as they were") {
  const Transaction tx = witness_tx();
  std::size_t with_stack = 0;
  while (tx.input(with_stack).witness().empty()) ++with_stack;
  TransactionBuilder replaced(tx);
  const std::byte one[]{std::byte{0x01}};
  const std::span<const std::byte> items[] = {one};
  replaced.set_witness(with_stack, items);
  const Transaction rebuilt = replaced.build();
  const Transaction back = decode_transaction(encoded(rebuilt)).value();
  CHECK(back == rebuilt);
  REQUIRE(back.input(with_stack).witness().size() == 1);
  CHECK(std::ranges::equal(back.input(with_stack).witness()[0], one));
  CHECK_FALSE(back.input(with_stack).witness() == tx.input(with_stack).witness());
  for (std::size_t i = 0; i < tx.input_count(); ++i) {
    if (i == with_stack) continue;
    CAPTURE(i);
    CHECK(back.input(i).witness() == tx.input(i).witness());
  }
  CHECK(back.txid() == tx.txid());  // a witness is not part of the txid
  CHECK(back.wtxid() != tx.wtxid());
}

TEST_CASE("build() refuses what the decoders would refuse: a script or witness item over 2^25 bytes is std::length_error") {
  constexpr std::size_t max = wire::max_size;  // Bitcoin's MAX_SIZE, 2^25
  REQUIRE(max == std::size_t{1} << 25);
  const std::byte op_true[]{std::byte{0x51}};
  {
    TransactionBuilder b;
    b.add_input(OutPoint{});
    b.add_output(Amount::from_sat(1), op_true).script_pubkey.assign(max + 1, std::byte{0x6a});
    CHECK_THROWS_AS(b.build(), std::length_error);
    b.outputs[0].script_pubkey.resize(max);  // at the limit: built, and read back
    const Transaction tx = b.build();
    CHECK(tx.output(0).script_pubkey().size() == max);
    CHECK(decode_transaction(encoded(tx)).value() == tx);
  }
  {
    TransactionBuilder b;
    b.add_input(OutPoint{}).script_sig.assign(max + 1, std::byte{0x00});
    b.add_output(Amount::from_sat(1), op_true);
    CHECK_THROWS_AS(b.build(), std::length_error);
  }
  {
    TransactionBuilder b;
    b.add_input(OutPoint{}).witness.emplace_back(max + 1, std::byte{0x00});
    b.add_output(Amount::from_sat(1), op_true);
    CHECK_THROWS_AS(b.build(), std::length_error);
    b.inputs[0].witness[0].resize(1);  // the builder is left as it was: it builds once fixed
    const Transaction tx = b.build();
    CHECK(tx.has_witness());
    CHECK(tx.input(0).witness()[0].size() == 1);
  }
}

TEST_CASE("a builder made from any transaction of both real blocks, owned or viewed, builds it again") {
  for (const auto* raw : {&test::block413567(), &test::segwit_block()}) {
    const Block block = decode_block(*raw).value();
    const BlockView view = BlockView::parse(*raw).value();
    REQUIRE(view.transaction_count() == block.transactions.size());
    std::size_t with_witness = 0;
    for (std::size_t i = 0; i < block.transactions.size(); ++i) {
      CAPTURE(i);
      const Transaction& tx = block.transactions[i];
      const Transaction rebuilt = TransactionBuilder(tx).build();
      CHECK(rebuilt == tx);
      CHECK(rebuilt.txid() == tx.txid());
      CHECK(rebuilt.wtxid() == tx.wtxid());
      CHECK(TransactionBuilder(view.transaction(i)).build() == tx);
      with_witness += tx.has_witness() ? 1 : 0;
    }
    if (raw == &test::segwit_block()) CHECK(with_witness == 2065);  // the rebuilt ones too, by the equality above
  }
}

TEST_CASE("a Transaction decoded from a real block and the BlockView's TransactionView of it read identical fields") {
  for (const auto* raw : {&test::block413567(), &test::segwit_block()}) {
    const Block block = decode_block(*raw).value();
    const BlockView view = BlockView::parse(*raw).value();
    REQUIRE(view.transaction_count() == block.transactions.size());
    for (std::size_t i = 0; i < block.transactions.size(); ++i) {
      CAPTURE(i);
      const Transaction& owned = block.transactions[i];
      const TransactionView viewed = view.transaction(i);
      check_same_fields(owned, viewed);
      check_same_fields(viewed, owned);
      check_reads_itself(owned);
      check_reads_itself(viewed);
      // Each reads its own bytes: the owned one its allocation, the view
      // the block's.
      CHECK(inside(viewed.bytes(), *raw));
      CHECK_FALSE(inside(owned.bytes(), *raw));
      // A view of the owned transaction reads it in place; the view's
      // own copy is equal to it.
      const TransactionView in_place(owned);
      CHECK(in_place.bytes().data() == owned.bytes().data());
      check_same_fields(in_place, owned);
      CHECK(viewed.to_transaction() == owned);
    }
  }
}

TEST_CASE("no inputs and some outputs: built, encode_transaction, decode_transaction(span, witness::disallow), the same") {
  TransactionBuilder b;
  b.version = 1;
  b.lock_time = 500'000;
  const auto op_return = test::from_hex("6a0462776972");
  const std::byte op_true[]{std::byte{0x51}};
  b.add_output(Amount::from_sat(1'000), op_true);
  b.add_output(Amount::from_sat(0), op_return);
  b.add_output(Amount::from_sat(-1), {});  // an empty script and a value no check here refuses
  const Transaction tx = b.build();
  REQUIRE(tx.input_count() == 0);
  REQUIRE(tx.output_count() == 3);
  CHECK_FALSE(tx.has_witness());
  CHECK_FALSE(tx.is_coinbase());

  const auto raw = encoded(tx, witness::disallow);
  CHECK(encoded(tx) == raw);  // no witness data: the legacy form either way
  CHECK(std::ranges::equal(tx.bytes(), raw));
  REQUIRE(raw.size() == 4 + 1 + 1 + (8 + 2) + (8 + 7) + (8 + 1) + 4);
  CHECK(raw[4] == std::byte{0x00});  // no inputs
  CHECK(raw[5] == std::byte{0x03});  // three outputs
  CHECK(serialized_size(tx) == raw.size());

  const auto back = decode_transaction(raw, witness::disallow);
  REQUIRE(back);
  CHECK(back.value() == tx);
  check_same_fields(back.value(), tx);
  CHECK(back.value().version() == 1);
  CHECK(back.value().lock_time() == 500'000);
  REQUIRE(back.value().output_count() == 3);
  CHECK(back.value().output(0).value() == Amount::from_sat(1'000));
  CHECK(std::ranges::equal(back.value().output(0).script_pubkey(), op_true));
  CHECK(back.value().output(1).value() == Amount::from_sat(0));
  CHECK(std::ranges::equal(back.value().output(1).script_pubkey(), op_return));
  CHECK(back.value().output(2).value() == Amount::from_sat(-1));
  CHECK(back.value().output(2).script_pubkey().empty());
  CHECK(encoded(back.value(), witness::disallow) == raw);
  CHECK(TransactionBuilder(back.value()).build() == tx);

  // A view and a stream read it the same way.
  const auto view = TransactionView::parse(raw, witness::disallow);
  REQUIRE(view);
  check_same_fields(view.value(), tx);
  SpanReader source(raw);
  const auto streamed = decode_transaction(reader_ref(source), witness::disallow);
  REQUIRE(streamed);
  CHECK(streamed.value() == tx);
  // With witness allowed, its zero input count reads as the marker (and
  // its output count as the flag): not this transaction.
  const auto as_segwit = decode_transaction(raw, witness::allow);
  CHECK((!as_segwit || !(as_segwit.value() == tx)));
}

TEST_CASE("BlockView::visit hands over each transaction of both real blocks as the BlockView reads it, in one pass") {
  // Output totals (value plus script length, bitcoin_slices' visiting task)
  // and input counts from python-bitcoinlib.
  struct Expected {
    const std::vector<std::byte>* raw;
    std::uint64_t outputs_sum;
    std::size_t inputs;
  };
  for (const Expected& e : {Expected{&test::block413567(), 914705258289u, 4887}, Expected{&test::segwit_block(), 2883682870515u, 6518}}) {
    const BlockView view = BlockView::parse(*e.raw).value();
    std::size_t visited = 0, inputs = 0;
    std::uint64_t sum = 0;
    const auto header = BlockView::visit(*e.raw, [&](const TransactionView& tx) {
      REQUIRE(visited < view.transaction_count());
      const TransactionView same = view.transaction(visited++);
      check_same_fields(tx, same);
      CHECK(tx.bytes().data() == same.bytes().data());  // in place, not a copy
      inputs += tx.input_count();
      for (const OutputView out : tx.outputs()) sum += static_cast<std::uint64_t>(out.value().to_sat()) + out.script_pubkey().size();
    });
    REQUIRE(header);
    CHECK(header.value() == view.header());
    CHECK(visited == view.transaction_count());
    CHECK(inputs == e.inputs);
    CHECK(sum == e.outputs_sum);
  }
}

TEST_CASE(
    "BlockView::visit of a cut or damaged block fails as BlockView::parse does, at the same byte, after the whole transactions before it") {
  const auto& raw = test::segwit_block();
  for (std::size_t cut : {std::size_t{0}, std::size_t{79}, std::size_t{81}, std::size_t{500}, raw.size() / 2, raw.size() - 1}) {
    CAPTURE(cut);
    const auto bytes = std::span(raw).first(cut);
    std::size_t visited = 0;
    const auto visit = BlockView::visit(bytes, [&](const TransactionView& tx) {
      CHECK(tx.bytes().data() + tx.size() <= bytes.data() + bytes.size());
      ++visited;
    });
    const auto parse = BlockView::parse(bytes);
    REQUIRE_FALSE(visit);
    REQUIRE_FALSE(parse);
    CHECK(visit.error() == parse.error());
    CHECK(visit.error().offset() == parse.error().offset());
    if (cut == raw.size() - 1) CHECK(visited == 2499);  // all but the last
  }
  auto extra = raw;
  extra.push_back(std::byte{0});
  CHECK(BlockView::visit(extra, [](const TransactionView&) {}).error() == BlockView::parse(extra).error());
}
