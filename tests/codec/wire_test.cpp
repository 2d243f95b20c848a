// The public wire toolkit, used the way a user writes a format of their own
// (the same type as docs/api.md's worked example): a record of a height, a
// hash and a counted list of 32-bit flags.
#include <blockwire/codec.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include "../support/bytes.hpp"

#include <cstdint>
#include <vector>

using namespace blockwire;

namespace {

struct Checkpoint {
  std::uint32_t height = 0;
  Hash256 block;
  std::vector<std::uint32_t> flags;
  friend bool operator==(const Checkpoint&, const Checkpoint&) = default;
};

inline constexpr struct {
  void operator()(wire::ByteSink auto& w, const Checkpoint& c) const {
    wire::encode_u32(w, c.height);
    wire::encode_hash(w, c.block);
    wire::encode_range(w, c.flags, wire::encode_u32);
  }
} encode_checkpoint;

inline constexpr struct {
  void operator()(DecodingContext& ctx, Checkpoint& c) const {
    c.height = wire::decode_u32(ctx);
    wire::decode_hash(ctx, c.block);
    wire::decode_range(ctx, c.flags, 4, wire::decode_u32);
  }
} decode_checkpoint;

result<Checkpoint> decode(std::span<const std::byte> bytes) {
  DecodingContext ctx(bytes);
  Checkpoint c;
  decode_checkpoint(ctx, c);
  if (auto r = wire::finish_exact(ctx, bytes.size()); !r) return r.error();
  return c;
}

std::vector<std::byte> encode(const Checkpoint& c) {
  std::vector<std::byte> out;
  VectorWriter sink(out);
  StreamWriter w{writer_ref(sink)};
  encode_checkpoint(w, c);
  REQUIRE(w.flush());
  return out;
}

const Checkpoint sample{
    413567, Hash256::from_hex("0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069").value(), {1, 0x01020304}};

}  // namespace

TEST_CASE("wire toolkit: a user type round-trips, laid out field by field on the wire") {
  const auto bytes = encode(sample);
  // 4 (height) + 32 (hash) + 1 (count) + 2 x 4 (flags), little-endian.
  REQUIRE(bytes.size() == 45);
  CHECK(bytes[0] == std::byte{0x7f});  // 413567 = 0x00064f7f
  CHECK(bytes[1] == std::byte{0x4f});
  CHECK(bytes[2] == std::byte{0x06});
  CHECK(bytes[4] == std::byte{0x69});  // the hash's first byte is the last shown
  CHECK(bytes[36] == std::byte{2});
  CHECK(bytes[41] == std::byte{0x04});
  CHECK(decode(bytes).value() == sample);

  wire::SizeCounter size;
  encode_checkpoint(size, sample);
  CHECK(size.size() == bytes.size());
}

TEST_CASE("wire toolkit: hostile counts fail with the byte offset, and allocate by the bytes present") {
  auto bytes = encode(sample);
  SUBCASE("a count above MAX_SIZE: size_too_large, where the count ends") {
    bytes.resize(36);
    bytes.insert(bytes.end(), {std::byte{0xfe}, std::byte{0x01}, std::byte{0x00}, std::byte{0x00}, std::byte{0x02}});  // 0x02000001
    const auto r = decode(bytes);
    CHECK(r.error().code() == codec::errc::size_too_large);
    CHECK(r.error().offset() == 41);
  }
  SUBCASE("a count of 3 with 2 items: truncated at the end of the input") {
    bytes[36] = std::byte{3};
    const auto r = decode(bytes);
    CHECK(r.error().code() == io::errc::truncated);
    CHECK(r.error().offset() == 45);
  }
  SUBCASE("a non-canonical count") {
    bytes[36] = std::byte{0xfd};
    bytes.insert(bytes.begin() + 37, {std::byte{0x02}, std::byte{0x00}});
    CHECK(decode(bytes).error().code() == codec::errc::non_canonical_size);
  }
  SUBCASE("a count of MAX_SIZE with nothing after it reserves nothing the bytes cannot hold") {
    bytes.resize(36);
    bytes.insert(bytes.end(), {std::byte{0xfe}, std::byte{0x00}, std::byte{0x00}, std::byte{0x00}, std::byte{0x02}});  // 0x02000000
    DecodingContext ctx(bytes);
    Checkpoint c;
    decode_checkpoint(ctx, c);
    CHECK(ctx.failure().code() == io::errc::truncated);
    CHECK(c.flags.capacity() <= 1);  // at most the item being read when the input ran out
  }
  SUBCASE("trailing bytes") {
    bytes.push_back(std::byte{0});
    const auto r = decode(bytes);
    CHECK(r.error().code() == codec::errc::trailing_bytes);
    CHECK(r.error().offset() == 45);
  }
}

TEST_CASE("wire toolkit: decode_range appends, growing geometrically when appended to again and again") {
  // 1,000 lists of one item each appended to one vector: a reservation of
  // exactly size()+1 each time would reallocate 1,000 times.
  std::vector<std::byte> input;
  for (int i = 0; i < 1000; ++i) input.insert(input.end(), {std::byte{1}, std::byte(i), std::byte{0}, std::byte{0}, std::byte{0}});
  DecodingContext ctx(input);
  std::vector<std::uint32_t> all;
  std::size_t reallocations = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto before = all.capacity();
    wire::decode_range(ctx, all, 4, wire::decode_u32);
    reallocations += all.capacity() != before ? 1 : 0;
  }
  REQUIRE(ctx.ok());
  CHECK(all.size() == 1000);
  CHECK(all[999] == (999 & 0xff));
  CHECK(reallocations <= 12);
}
