// Bitcoin Core's transaction vectors: every serialized transaction in
// tx_valid.json and tx_invalid.json is well-formed on the wire, so all 212
// decode and re-encode byte for byte.
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "../support/test_data.hpp"

#include <fstream>

using namespace blockwire;

namespace {

std::vector<std::string> serialized_transactions(const char* file) {
  std::ifstream in(std::string(BLOCKWIRE_TEST_DATA) + "/" + file);
  REQUIRE(in);
  const auto doc = nlohmann::json::parse(in);
  std::vector<std::string> out;
  for (const auto& entry : doc) {
    if (entry.size() >= 2 && entry[0].is_array()) out.push_back(entry[1].get<std::string>());  // else a comment
  }
  return out;
}

}  // namespace

TEST_CASE("all 212 transactions of tx_valid.json and tx_invalid.json decode and re-encode byte for byte") {
  auto all = serialized_transactions("tx_valid.json");
  const auto invalid = serialized_transactions("tx_invalid.json");
  all.insert(all.end(), invalid.begin(), invalid.end());
  CHECK(all.size() == 212);
  std::size_t with_witness = 0;
  for (const auto& hex : all) {
    CAPTURE(hex);
    const auto raw = test::from_hex(hex);
    auto tx = decode_transaction(raw);
    REQUIRE_MESSAGE(tx, tx.error().message());
    std::vector<std::byte> out;
    VectorWriter sink(out);
    REQUIRE(encode_transaction(tx.value(), sink));
    CHECK(out == raw);
    CHECK(serialized_size(tx.value()) == raw.size());
    // The same through a stream that must stop at the transaction's end.
    SpanReader source(raw);
    auto streamed = decode_transaction(reader_ref(source));
    REQUIRE(streamed);
    CHECK(streamed.value() == tx.value());
    CHECK(source.remaining().empty());
    with_witness += tx.value().has_witness() ? 1 : 0;
  }
  CHECK(with_witness > 0);  // the vectors cover BIP144 encoding too
}
