// What a user's bytes hold, read as Core's tools read them: real blocks
// (their hashes from the test data's README) and Core's own bitcoin-tx
// outputs (each transaction's hex and the txid Core printed for it).
#include "../support/test_data.hpp"
#include "../support/text_bytes.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/codec/block_or_transaction.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/user_input.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace blockwire;

namespace {

// Hex digits with a line break every 64, as `xxd -p` or a paste gives them.
std::string wrapped_hex(std::span<const std::byte> bytes) {
  const std::string digits = to_hex(bytes);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); i += 64) out += digits.substr(i, 64) + "\n";
  return out;
}

}  // namespace

TEST_CASE("block_or_transaction: a real block, as raw bytes and as wrapped hex") {
  {
    const Readings raw = readings_of(test::block413567());
    CHECK(!raw.hex);
    const auto found = block_or_transaction(raw);
    REQUIRE(std::holds_alternative<BlockOrTransaction>(found));
    const auto& got = std::get<BlockOrTransaction>(found);
    CHECK(got.bytes == &raw.raw);
    REQUIRE(std::holds_alternative<BlockView>(got.view));
    CHECK(block_hash(std::get<BlockView>(got.view).header()).to_hex() ==
          "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069");
  }
  const Readings hex = readings_of(test::text_bytes(wrapped_hex(test::segwit_block())));
  REQUIRE(hex.hex);
  const auto found = block_or_transaction(hex);
  REQUIRE(std::holds_alternative<BlockOrTransaction>(found));
  const auto& got = std::get<BlockOrTransaction>(found);
  CHECK(got.bytes == &*hex.hex);
  REQUIRE(std::holds_alternative<BlockView>(got.view));
  CHECK(block_hash(std::get<BlockView>(got.view).header()).to_hex() == test::segwit_block_hash);
}

TEST_CASE("block_or_transaction: Core's bitcoin-tx transactions, those with no inputs read without witness data as Core reads them") {
  int files = 0, without_inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(BLOCKWIRE_TEST_DATA) + "/core-tx-json")) {
    std::ifstream in(entry.path());
    const auto json = nlohmann::json::parse(in);
    CAPTURE(entry.path().filename().string());
    const Readings readings = readings_of(test::text_bytes(json.at("hex").get<std::string>()));
    const auto found = block_or_transaction(readings);
    REQUIRE(std::holds_alternative<BlockOrTransaction>(found));
    const auto& view = std::get<BlockOrTransaction>(found).view;
    REQUIRE(std::holds_alternative<TransactionView>(view));
    const TransactionView& tx = std::get<TransactionView>(view);
    CHECK(tx.txid().to_hex() == json.at("txid").get<std::string>());
    CHECK(tx.input_count() == json.at("vin").size());
    without_inputs += json.at("vin").empty() ? 1 : 0;
    ++files;
  }
  CHECK(files == 24);           // the README's count
  CHECK(without_inputs == 15);  // ... of which Core reads 15 without witness data
}

TEST_CASE("block_or_transaction: neither says why the first reading is not a block and why it is not a transaction") {
  SUBCASE("hex that is too short for either") {
    const Readings readings = readings_of(test::text_bytes("00000000\n"));
    const auto found = block_or_transaction(readings);
    REQUIRE(std::holds_alternative<NeitherBlockNorTransaction>(found));
    const auto& neither = std::get<NeitherBlockNorTransaction>(found);
    CHECK(neither.as_block.code() == io::errc::truncated);  // a header is 80 bytes
    CHECK(neither.as_transaction.code() == io::errc::truncated);
  }
  SUBCASE("a block with a byte more: each reading must take every byte") {
    std::vector<std::byte> longer = test::block413567();
    longer.push_back(std::byte{0});
    const Readings readings = readings_of(std::move(longer));
    const auto found = block_or_transaction(readings);
    REQUIRE(std::holds_alternative<NeitherBlockNorTransaction>(found));
    const auto& neither = std::get<NeitherBlockNorTransaction>(found);
    CHECK(neither.as_block.code() == codec::errc::trailing_bytes);
    CHECK(neither.as_block.offset() == test::block413567().size());
  }
  SUBCASE("nothing") {
    const Readings nothing = readings_of({});
    CHECK(std::holds_alternative<NeitherBlockNorTransaction>(block_or_transaction(nothing)));
  }
}
