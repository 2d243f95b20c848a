// Both real blocks decode, and re-encode to the very same bytes through a
// vector, a file and a loopback socket, with the public entry points. The
// expected figures come from tests/data/README.md.
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include "../io/test_support.hpp"
#include "../support/test_data.hpp"

#include <algorithm>
#include <string>
#include <thread>

using namespace blockwire;

namespace {

struct Expected {
  const std::vector<std::byte>& bytes;
  std::size_t tx_count;
  std::size_t stripped_size;
  std::size_t weight;
  std::size_t witness_txs;
  const char* merkle_root;
};

std::vector<Expected> both_blocks() {
  return {
      {test::block413567(), 1557, 999'887, 3'999'548, 0, "64a50c649fc816baaa2effda230c39cacf1504e4e616a2863685b72aaa7dce05"},
      {test::segwit_block(), 2500, 870'406, 3'993'054, 2065, "407d72768cec1a244b7599af79f554055c72d6b2356c890f8c25abf797679022"},
  };
}

}  // namespace

TEST_CASE("both real blocks decode with the counts, sizes and merkle root of the data's README") {
  for (const Expected& e : both_blocks()) {
    CAPTURE(e.tx_count);
    auto block = decode_block(e.bytes);
    REQUIRE_MESSAGE(block, block.error().message());
    const Block& b = block.value();
    CHECK(b.transactions.size() == e.tx_count);
    CHECK(b.header.merkle_root.to_hex() == e.merkle_root);
    CHECK(b.transactions.front().is_coinbase());
    CHECK(std::none_of(b.transactions.begin() + 1, b.transactions.end(), [](const Transaction& tx) { return tx.is_coinbase(); }));
    const auto witness_txs =
        std::count_if(b.transactions.begin(), b.transactions.end(), [](const Transaction& tx) { return tx.has_witness(); });
    CHECK(static_cast<std::size_t>(witness_txs) == e.witness_txs);
    // serialized_size is computed, not written; it must agree with the data.
    CHECK(serialized_size(b) == e.bytes.size());
    CHECK(serialized_size(b, witness::disallow) == e.stripped_size);
    CHECK(3 * serialized_size(b, witness::disallow) + serialized_size(b) == e.weight);
  }
}

TEST_CASE("block 413567's header fields") {
  auto block = decode_block(test::block413567());
  REQUIRE(block);
  const BlockHeader& h = block.value().header;
  // Parsed independently from the first 80 bytes of the file.
  const auto& raw = test::block413567();
  const auto le32 = [&](std::size_t at) {
    return std::to_integer<std::uint32_t>(raw[at]) | std::to_integer<std::uint32_t>(raw[at + 1]) << 8 |
           std::to_integer<std::uint32_t>(raw[at + 2]) << 16 | std::to_integer<std::uint32_t>(raw[at + 3]) << 24;
  };
  CHECK(static_cast<std::uint32_t>(h.version) == le32(0));
  CHECK(std::equal(h.prev_block.bytes().begin(), h.prev_block.bytes().end(), raw.begin() + 4));
  CHECK(h.time == le32(68));
  CHECK(h.bits == le32(72));
  CHECK(h.nonce == le32(76));
  auto header = decode_header(std::span(raw).first(80));
  REQUIRE(header);
  CHECK(header.value() == h);
}

TEST_CASE("re-encoding reproduces the input bytes: vector") {
  for (const Expected& e : both_blocks()) {
    auto block = decode_block(e.bytes);
    REQUIRE(block);
    std::vector<std::byte> out;
    VectorWriter sink(out);
    REQUIRE(encode_block(block.value(), sink));
    CHECK(out == e.bytes);
    // The vector overload appends, writing in the vector's own storage.
    std::vector<std::byte> lent{std::byte{0x42}};
    encode_block(block.value(), lent);
    REQUIRE(lent.size() == e.bytes.size() + 1);
    CHECK(std::equal(lent.begin() + 1, lent.end(), e.bytes.begin()));
  }
}

TEST_CASE("the segwit block without witness encodes to its stripped size, and decodes back") {
  auto block = decode_block(test::segwit_block());
  REQUIRE(block);
  std::vector<std::byte> stripped;
  VectorWriter sink(stripped);
  REQUIRE(encode_block(block.value(), sink, witness::disallow));
  CHECK(stripped.size() == 870'406);
  auto again = decode_block(stripped, witness::disallow);
  REQUIRE(again);
  CHECK(again.value().transactions.size() == 2500);
  CHECK_FALSE(std::any_of(again.value().transactions.begin(), again.value().transactions.end(),
                          [](const Transaction& tx) { return tx.has_witness(); }));
}

TEST_CASE("re-encoding reproduces the input bytes: file, read back through a stream") {
  for (const Expected& e : both_blocks()) {
    auto block = decode_block(e.bytes);
    REQUIRE(block);
    std::string path = "/tmp/blockwire-block-XXXXXX";
    const int fd = ::mkstemp(path.data());
    REQUIRE(fd >= 0);
    FileWriter file(fd, ownership::own);
    REQUIRE(encode_block(block.value(), file));
    REQUIRE(file.close());
    auto in = FileReader::open(path.c_str());
    ::unlink(path.c_str());
    REQUIRE(in);
    StreamReader stream{reader_ref(in.value())};
    auto back = decode_block(stream);
    REQUIRE_MESSAGE(back, back.error().message());
    CHECK(back.value() == block.value());
  }
}

TEST_CASE("re-encoding reproduces the input bytes: loopback socket") {
  for (const Expected& e : both_blocks()) {
    auto block = decode_block(e.bytes);
    REQUIRE(block);
    auto [client, server] = test::loopback_pair();
    result<void> sent = success();
    std::thread writer([&, client = client] {
      SocketWriter sink(client, ownership::own);
      sent = encode_block(block.value(), sink);
      ::shutdown(client, SHUT_WR);
    });
    SocketReader source(server, ownership::own);
    BufferedReader<SocketReader&> buffered(source);
    auto received = test::read_all(buffered, 1);
    writer.join();
    REQUIRE(sent);
    REQUIRE(received);
    CHECK(received.value() == e.bytes);
  }
}

TEST_CASE("a source that yields one byte per read_some gives the same block") {
  struct OneByte {
    std::span<const std::byte> data;
    std::size_t limit;
    result<std::size_t> read_some(std::span<std::byte> out) {
      const std::size_t n = std::min({out.size(), data.size(), limit});
      std::copy_n(data.begin(), n, out.begin());
      data = data.subspan(n);
      return n;
    }
  };
  auto expected = decode_block(test::segwit_block());
  REQUIRE(expected);
  for (std::size_t limit : {std::size_t{1}, std::size_t{3}}) {
    OneByte exact{test::segwit_block(), limit};
    auto direct = decode_block(reader_ref(exact));
    REQUIRE(direct);
    CHECK(direct.value() == expected.value());
    CHECK(exact.data.empty());

    OneByte buffered{test::segwit_block(), limit};
    StreamReader stream{reader_ref(buffered)};
    auto through_buffer = decode_block(stream);
    REQUIRE(through_buffer);
    CHECK(through_buffer.value() == expected.value());
  }
}
