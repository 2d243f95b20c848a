// The XOR adapters against a byte-by-byte reference: at every starting
// offset mod 8, for every length 0..64 and some large ones, written through
// a buffer (XOR in place), written directly (XOR while copying), and read.
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include <algorithm>

#include "../io/test_support.hpp"

using namespace blockwire;

namespace {

const XorKey key{std::byte{0x31}, std::byte{0x9a}, std::byte{0x00}, std::byte{0xff},
                 std::byte{0x42}, std::byte{0x07}, std::byte{0xc3}, std::byte{0x5e}};

std::vector<std::byte> reference(std::span<const std::byte> plain, std::uint64_t offset) {
  std::vector<std::byte> out(plain.begin(), plain.end());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] ^= key[(offset + i) % 8];
  return out;
}

std::vector<std::size_t> lengths() {
  std::vector<std::size_t> n;
  for (std::size_t i = 0; i <= 64; ++i) n.push_back(i);
  for (std::size_t big : {1000, 16 * 1024 + 3, 100'000}) n.push_back(big);
  return n;
}

}  // namespace

TEST_CASE("XorWriter equals plain XOR key by file offset, direct and through a buffer") {
  const auto plain = test::random_bytes(100'000, 1);
  for (std::uint64_t offset = 0; offset < 16; ++offset) {
    for (std::size_t n : lengths()) {
      CAPTURE(offset);
      CAPTURE(n);
      const auto in = std::span(plain).first(n);
      const auto expected = reference(in, offset);

      std::vector<std::byte> direct;
      VectorWriter direct_sink(direct);
      XorWriter<VectorWriter&> x1(direct_sink, key, offset);
      REQUIRE(x1.write(in));
      CHECK(direct == expected);
      CHECK(x1.offset() == offset + n);

      std::vector<std::byte> buffered;
      VectorWriter buffered_sink(buffered);
      XorWriter<VectorWriter&> x2(buffered_sink, key, offset);
      BufferedWriter<XorWriter<VectorWriter&>&, 64> w(x2);  // hands its buffer over as scratch
      test::write_in_pieces(w, in, n);
      REQUIRE(w.flush());
      CHECK(buffered == expected);
    }
  }
}

TEST_CASE("XorReader removes the key by file offset, whatever the read sizes") {
  const auto plain = test::random_bytes(100'000, 2);
  for (std::uint64_t offset = 0; offset < 16; ++offset) {
    for (std::size_t n : lengths()) {
      CAPTURE(offset);
      CAPTURE(n);
      const auto scrambled = reference(std::span(plain).first(n), offset);
      SpanReader source(scrambled);
      XorReader<SpanReader&> x(source, key, offset);
      auto back = test::read_all(x, n);
      REQUIRE(back);
      CHECK(std::equal(back.value().begin(), back.value().end(), plain.begin(), plain.begin() + static_cast<std::ptrdiff_t>(n)));
      CHECK(back.value().size() == n);
    }
  }
}

TEST_CASE("a zero key changes nothing") {
  const auto plain = test::random_bytes(1000, 3);
  auto copy = plain;
  xor_in_place(copy, XorKey{}, 5);
  CHECK(copy == plain);
  CHECK(is_zero(XorKey{}));
  CHECK_FALSE(is_zero(key));
}
