// Malformed bytes give an error result naming what was wrong and the byte
// offset where decoding stopped: never an exception, a crash or a hang.
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include "../support/test_data.hpp"
#include "../support/bytes.hpp"

using namespace blockwire;
using test::bytes;
using test::concat;

namespace {

// version 1, then what follows.
std::vector<std::byte> tx_with(std::vector<std::byte> rest) { return concat({bytes({1, 0, 0, 0}), rest}); }

const std::vector<std::byte> one_input = concat({
    bytes({1}),                                                        // one input
    std::vector<std::byte>(32, std::byte{0xab}), bytes({0, 0, 0, 0}),  // outpoint
    bytes({0}),                                                        // empty scriptSig
    bytes({0xff, 0xff, 0xff, 0xff}),                                   // sequence
});
const std::vector<std::byte> one_output = concat({
    bytes({1}),                             // one output
    bytes({0x10, 0x27, 0, 0, 0, 0, 0, 0}),  // 10,000 sat
    bytes({1, 0x51}),                       // script: OP_TRUE
});
const std::vector<std::byte> lock_time = bytes({0, 0, 0, 0});

void check_error(const result<Transaction>& r, std::error_code what, std::uint64_t offset) {
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == what);
  CHECK(r.error().offset() == offset);
  CHECK_FALSE(r.error().message().empty());
}

// The input count encoded as `size`, then nothing: the count is read, then
// judged.
result<Transaction> tx_with_input_count(std::vector<std::byte> size) { return decode_transaction(tx_with(size)); }

}  // namespace

TEST_CASE("the hand-built valid transaction decodes (the cases below break it one way each)") {
  auto tx = decode_transaction(tx_with(concat({one_input, one_output, lock_time})));
  REQUIRE(tx);
  CHECK(tx.value().inputs().size() == 1);
  CHECK(tx.value().outputs()[0].value() == Amount::from_sat(10'000));
}

TEST_CASE("non-canonical CompactSize in each branch is rejected where it was read") {
  check_error(tx_with_input_count(bytes({0xfd, 0xfc, 0x00})), codec::errc::non_canonical_size, 7);
  check_error(tx_with_input_count(bytes({0xfe, 0xff, 0xff, 0x00, 0x00})), codec::errc::non_canonical_size, 9);
  check_error(tx_with_input_count(bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})), codec::errc::non_canonical_size, 13);
  // A canonical 0xfd form is fine as a size (here: then truncated).
  auto canonical = tx_with_input_count(bytes({0xfd, 0xfd, 0x00}));
  REQUIRE_FALSE(canonical);
  CHECK(canonical.error().code() == io::errc::truncated);
}

TEST_CASE("a CompactSize above 0x02000000 is rejected in every branch that can hold one") {
  // 0xfd holds at most 0xffff: it can only be non-canonical, tested above.
  check_error(tx_with_input_count(bytes({0xfe, 0x01, 0x00, 0x00, 0x02})), codec::errc::size_too_large, 9);
  check_error(tx_with_input_count(bytes({0xfe, 0xff, 0xff, 0xff, 0xff})), codec::errc::size_too_large, 9);
  check_error(tx_with_input_count(bytes({0xff, 0, 0, 0, 0, 1, 0, 0, 0})), codec::errc::size_too_large, 13);
  check_error(tx_with_input_count(bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})), codec::errc::size_too_large, 13);
  // Exactly MAX_SIZE is allowed as a size; 2^25 inputs do not fit in 5 bytes.
  auto max = tx_with_input_count(bytes({0xfe, 0x00, 0x00, 0x00, 0x02}));
  REQUIRE_FALSE(max);
  CHECK(max.error().code() == io::errc::truncated);
  CHECK(max.error().offset() == 9);  // the end of the input
}

TEST_CASE("a script length above MAX_SIZE is rejected too") {
  auto input = one_input;
  input[37] = std::byte{0xfe};  // the scriptSig length
  const auto raw = tx_with(concat({std::vector<std::byte>(input.begin(), input.begin() + 38), bytes({0x01, 0x00, 0x00, 0x02})}));
  check_error(decode_transaction(raw), codec::errc::size_too_large, raw.size());
}

TEST_CASE("witness flag: 0 means no inputs and no outputs, other bits are unknown data, empty stacks are superfluous") {
  // Marker and flag 0: an empty transaction, then the lock time.
  auto empty = decode_transaction(tx_with(concat({bytes({0, 0}), lock_time})));
  REQUIRE(empty);
  CHECK(empty.value().inputs().empty());
  CHECK(empty.value().outputs().empty());

  // Flag 2: no witness bit, an unknown bit. Found after the outputs.
  const auto flag2 = tx_with(concat({bytes({0, 2}), one_input, one_output, lock_time}));
  check_error(decode_transaction(flag2), codec::errc::unknown_witness_flag, flag2.size() - 4);

  // Flag 3: the witness bit, then the unknown one.
  const auto flag3 = tx_with(concat({bytes({0, 3}), one_input, one_output, bytes({1, 1, 0x42}), lock_time}));
  check_error(decode_transaction(flag3), codec::errc::unknown_witness_flag, flag3.size() - 4);

  // Flag 1 and every stack empty: superfluous witness.
  const auto superfluous = tx_with(concat({bytes({0, 1}), one_input, one_output, bytes({0}), lock_time}));
  check_error(decode_transaction(superfluous), codec::errc::superfluous_witness, superfluous.size() - 4);

  // Flag 1 with an item: a valid segwit transaction.
  auto segwit = decode_transaction(tx_with(concat({bytes({0, 1}), one_input, one_output, bytes({1, 1, 0x42}), lock_time})));
  REQUIRE(segwit);
  CHECK(segwit.value().has_witness());

  // With witness::disallow the marker is just an input count of zero.
  auto legacy = decode_transaction(tx_with(concat({bytes({0}), one_output, lock_time})), witness::disallow);
  REQUIRE(legacy);
  CHECK(legacy.value().outputs().size() == 1);
}

TEST_CASE("trailing bytes after the object are an error for the span overloads") {
  const auto raw = concat({tx_with(concat({one_input, one_output, lock_time})), bytes({0})});
  check_error(decode_transaction(raw), codec::errc::trailing_bytes, raw.size() - 1);
  auto header = decode_header(std::vector<std::byte>(81));
  REQUIRE_FALSE(header);
  CHECK(header.error().code() == codec::errc::trailing_bytes);
  CHECK(header.error().offset() == 80);
}

TEST_CASE("every proper prefix of a header fails as truncated at the prefix's end") {
  const std::span<const std::byte> header = std::span(test::block413567()).first(80);
  for (std::size_t n = 0; n < 80; ++n) {
    auto r = decode_header(header.first(n));
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == io::errc::truncated);
    CHECK(r.error().offset() == n);
  }
}

TEST_CASE("every proper prefix of the segwit block's first three transactions fails as truncated at the prefix's end") {
  auto block = decode_block(test::segwit_block());
  REQUIRE(block);
  std::size_t at = 80 + 3;  // header, then the CompactSize of 2,500 (0xfd c4 09)
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t size = serialized_size(block.value().transactions[i]);
    const std::span<const std::byte> tx = std::span(test::segwit_block()).subspan(at, size);
    auto whole = decode_transaction(tx);
    REQUIRE(whole);
    CHECK(whole.value() == block.value().transactions[i]);
    for (std::size_t n = 0; n < size; ++n) {
      auto r = decode_transaction(tx.first(n));
      REQUIRE_FALSE(r);
      CHECK(r.error().code() == io::errc::truncated);
      CHECK(r.error().offset() == n);
      // A stream that ends there says the same.
      SpanReader source(tx.first(n));
      auto streamed = decode_transaction(reader_ref(source));
      REQUIRE_FALSE(streamed);
      CHECK(streamed.error().code() == io::errc::truncated);
      CHECK(streamed.error().offset() == n);
    }
    at += size;
  }
}

TEST_CASE("a stream decode consumes exactly one object: three transactions back to back") {
  const auto tx1 = tx_with(concat({one_input, one_output, lock_time}));
  const auto tx2 = tx_with(concat({bytes({0, 1}), one_input, one_output, bytes({1, 1, 0x42}), lock_time}));
  const auto all = concat({tx1, tx2, tx1});
  {
    SpanReader source(all);
    for (const auto* expected : {&tx1, &tx2, &tx1}) {
      auto tx = decode_transaction(reader_ref(source));
      REQUIRE(tx);
      CHECK(tx.value() == decode_transaction(*expected).value());
    }
    CHECK(source.remaining().empty());
  }
  {
    SpanReader source(all);
    StreamReader stream{reader_ref(source)};
    for (const auto* expected : {&tx1, &tx2, &tx1}) {
      auto tx = decode_transaction(stream);
      REQUIRE(tx);
      CHECK(tx.value() == decode_transaction(*expected).value());
    }
    auto end = decode_transaction(stream);
    REQUIRE_FALSE(end);
    CHECK(end.error().code() == io::errc::truncated);
    CHECK(end.error().offset() == 0);
  }
}
