// BIP158 filters against Bitcoin Core's test vectors (tests/data/
// blockfilters.json): every expected filter and header there comes from
// Core, none from this code. Then what a wallet asks of a filter, and what
// hostile bytes do to the decoder.
#include <blockwire/codec.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "../support/test_data.hpp"

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

using namespace blockwire;

namespace {

struct Vector {
  int height;
  std::string hash;
  std::vector<std::byte> block;
  std::vector<std::vector<std::byte>> spent;
  Hash256 previous_header;
  std::vector<std::byte> filter;
  Hash256 header;
  std::string note;
};

std::vector<Vector> vectors() {
  std::ifstream in(std::string(BLOCKWIRE_TEST_DATA) + "/blockfilters.json");
  const auto rows = nlohmann::json::parse(in);
  std::vector<Vector> out;
  for (std::size_t i = 1; i < rows.size(); ++i) {  // row 0 names the columns
    const auto& r = rows[i];
    Vector v;
    v.height = r[0].get<int>();
    v.hash = r[1].get<std::string>();
    v.block = test::from_hex(r[2].get<std::string>());
    for (const auto& s : r[3]) v.spent.push_back(test::from_hex(s.get<std::string>()));
    v.previous_header = Hash256::from_hex(r[4].get<std::string>()).value();
    v.filter = test::from_hex(r[5].get<std::string>());
    v.header = Hash256::from_hex(r[6].get<std::string>()).value();
    v.note = r[7].get<std::string>();
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<std::span<const std::byte>> spans(const std::vector<std::vector<std::byte>>& items) { return {items.begin(), items.end()}; }

}  // namespace

TEST_CASE("BIP158: every block of Core's vectors gives Core's basic filter and filter header") {
  const auto all = vectors();
  REQUIRE(all.size() == 10);
  for (const Vector& v : all) {
    CAPTURE(v.height);
    CAPTURE(v.note);
    const BlockView block = BlockView::parse(v.block).value();
    REQUIRE(block_hash(block.header()).to_hex() == v.hash);
    const auto filter = filters::basic_filter(block, spans(v.spent));
    CHECK(to_hex(filter.encoded()) == to_hex(v.filter));
    CHECK(filters::filter_header(filters::filter_hash(filter), v.previous_header) == v.header);
    // The encoded filter decodes, to the same filter.
    const auto decoded = filters::GcsFilter::decode(filters::basic_params(block_hash(block.header())), v.filter);
    REQUIRE(decoded);
    CHECK(decoded.value() == filter);
    CHECK(decoded.value().size() == filter.size());
  }
}

TEST_CASE("BIP158: a filter matches every element it was built from, and a wallet's other scripts almost never") {
  for (const Vector& v : vectors()) {
    CAPTURE(v.height);
    const BlockView block = BlockView::parse(v.block).value();
    const auto elements = filters::basic_elements(block, spans(v.spent));
    const auto filter = filters::GcsFilter::decode(filters::basic_params(block_hash(block.header())), v.filter).value();
    for (const auto e : elements) CHECK(filter.match(e));
    CHECK(filter.match_any(elements) == !elements.empty());
    // 1,000 scripts of a wallet that is not in the block: P2WPKH programs
    // of distinct 20-byte hashes. At 1/784,931 a false positive each, more
    // than one among them would be a broken filter.
    std::vector<std::vector<std::byte>> wallet;
    for (int i = 0; i < 1000; ++i) {
      std::vector<std::byte> script{std::byte{0x00}, std::byte{0x14}};
      const Hash256 h = sha256d(std::as_bytes(std::span(&i, 1)));
      script.insert(script.end(), h.bytes().begin(), h.bytes().begin() + 20);
      wallet.push_back(script);
    }
    int false_positives = 0;
    for (const auto& s : wallet) false_positives += filter.match(s) ? 1 : 0;
    CHECK(false_positives <= 1);
    // match_any with one real element among the wallet's finds it.
    if (!elements.empty()) {
      auto query = spans(wallet);
      query.push_back(elements[elements.size() / 2]);
      CHECK(filter.match_any(query));
    }
  }
}

TEST_CASE("BIP158: duplicates count once, and the empty set is one zero byte") {
  const filters::Params p{1, 2, 19, 784931};
  const std::vector<std::byte> a{std::byte{1}, std::byte{2}}, b{std::byte{3}};
  const std::vector<std::span<const std::byte>> twice{a, b, a, b, a};
  const std::vector<std::span<const std::byte>> once{b, a};
  const auto f = filters::GcsFilter::build(p, twice);
  CHECK(f.size() == 2);
  CHECK(f == filters::GcsFilter::build(p, once));
  const auto empty = filters::GcsFilter::build(p, {});
  CHECK(empty.size() == 0);
  CHECK(to_hex(empty.encoded()) == "00");
  CHECK_FALSE(empty.match(a));
  CHECK(filters::GcsFilter::decode(p, empty.encoded()).value() == empty);
}

TEST_CASE("BIP158: hostile filters are refused with what is wrong and where, allocating by the bytes present") {
  const auto all = vectors();
  const Vector& v = all[4];  // 49291: a filter of several elements
  const auto params = filters::basic_params(BlockHash::from_hex(v.hash).value());
  REQUIRE(filters::GcsFilter::decode(params, v.filter));
  SUBCASE("a count the bytes cannot hold") {
    auto bytes = v.filter;
    bytes[0] = std::byte{0xfc};  // 252 elements in a few bytes
    CHECK(filters::GcsFilter::decode(params, bytes).error().code() == filters::errc::too_many_elements);
    const auto huge = test::from_hex("fe00000002");  // 2^25 with no stream at all
    CHECK(filters::GcsFilter::decode(params, huge).error().code() == filters::errc::too_many_elements);
  }
  SUBCASE("a count over MAX_SIZE, or not canonical: the CompactSize's own errors") {
    CHECK(filters::GcsFilter::decode(params, test::from_hex("fe01000002")).error().code() == codec::errc::size_too_large);
    CHECK(filters::GcsFilter::decode(params, test::from_hex("fd0100")).error().code() == codec::errc::non_canonical_size);
    CHECK(filters::GcsFilter::decode(params, {}).error().code() == io::errc::truncated);
  }
  SUBCASE("a stream cut short") {
    auto bytes = v.filter;
    bytes.resize(bytes.size() - 3);
    const auto r = filters::GcsFilter::decode(params, bytes);
    REQUIRE_FALSE(r);
    CHECK((r.error().code() == filters::errc::truncated_stream || r.error().code() == filters::errc::too_many_elements));
  }
  SUBCASE("bytes after the last element") {
    auto bytes = v.filter;
    bytes.push_back(std::byte{0});
    const auto r = filters::GcsFilter::decode(params, bytes);
    CHECK(r.error().code() == filters::errc::excess_bytes);
    CHECK(r.error().offset() == v.filter.size());
  }
  SUBCASE("a unary run of ones through every byte") {
    std::vector<std::byte> bytes{std::byte{1}};
    bytes.insert(bytes.end(), 1000, std::byte{0xff});
    CHECK(filters::GcsFilter::decode(params, bytes).error().code() == filters::errc::truncated_stream);
  }
}

TEST_CASE("BIP158: a wallet's match_any over Core's vectors finds exactly the blocks that pay to or spend from its scripts") {
  const auto all = vectors();
  // The wallet: one output script taken from each of three blocks (the
  // first that is not empty and not OP_RETURN), and one spent script.
  struct Block {
    BlockHash hash = BlockHash::all_zeros();
    std::vector<std::vector<std::byte>> scripts;  // its outputs' and its spent ones
  };
  std::vector<Block> blocks;
  for (const Vector& v : all) {
    const BlockView view = BlockView::parse(v.block).value();
    Block b{block_hash(view.header()), v.spent};
    for (std::size_t t = 0; t < view.transaction_count(); ++t) {
      for (const OutputView o : view.transaction(t).outputs()) {
        const auto s = o.script_pubkey();
        b.scripts.emplace_back(s.begin(), s.end());
      }
    }
    blocks.push_back(std::move(b));
  }
  std::vector<std::vector<std::byte>> wallet;
  for (const std::size_t i : {std::size_t{1}, std::size_t{4}, std::size_t{8}}) {
    for (const auto& s : blocks[i].scripts) {
      if (!s.empty() && s[0] != std::byte{0x6a}) {
        wallet.push_back(s);
        break;
      }
    }
  }
  for (const auto& s : all[5].spent) {  // block 180480 spends from it (its first script is empty: left out of filters)
    if (!s.empty()) {
      wallet.push_back(s);
      break;
    }
  }
  REQUIRE(wallet.size() == 4);
  const auto query = spans(wallet);
  for (std::size_t i = 0; i < all.size(); ++i) {
    CAPTURE(all[i].height);
    const bool holds = std::any_of(wallet.begin(), wallet.end(), [&](const auto& w) {
      return std::find(blocks[i].scripts.begin(), blocks[i].scripts.end(), w) != blocks[i].scripts.end();
    });
    const auto filter = filters::GcsFilter::decode(filters::basic_params(blocks[i].hash), all[i].filter).value();
    CHECK(filter.match_any(query) == holds);
  }
}
