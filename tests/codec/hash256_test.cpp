#include <blockwire/codec.hpp>

#include <doctest/doctest.h>

#include "../support/test_data.hpp"

using namespace blockwire;

TEST_CASE("Hash256 hex is in display order: the bytes reversed") {
  // Block 413567's prev_block field, bytes 4..35 of the raw block, read as
  // raw bytes, and the same hash in display order.
  const auto& raw = test::block413567();
  const Hash256 h(std::span<const std::byte, 32>(raw.data() + 4, 32));
  const std::string hex = h.to_hex();
  CHECK(hex.size() == 64);
  // Display order: the last raw byte first.
  CHECK(test::from_hex(hex.substr(0, 2))[0] == raw[4 + 31]);
  CHECK(test::from_hex(hex.substr(62, 2))[0] == raw[4]);
  auto back = Hash256::from_hex(hex);
  REQUIRE(back);
  CHECK(back.value() == h);
}

TEST_CASE("Hash256::from_hex accepts upper case and rejects bad input") {
  const char* known = "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069";
  auto lower = Hash256::from_hex(known);
  REQUIRE(lower);
  CHECK(lower.value().to_hex() == known);
  auto upper = Hash256::from_hex("0000000000000000025AFF8BE8A55DF8F89C77296DB6198F272D6577325D4069");
  REQUIRE(upper);
  CHECK(upper.value() == lower.value());
  CHECK(lower.value().bytes()[31] == std::byte{0});    // leading zeros of the display
  CHECK(lower.value().bytes()[0] == std::byte{0x69});  // are the hash's last bytes
  CHECK_FALSE(Hash256::from_hex("00"));
  CHECK_FALSE(Hash256::from_hex(std::string(63, '0') + "g"));
  CHECK(Hash256{}.is_zero());
}
