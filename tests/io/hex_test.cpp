#include <blockwire/io/hash256.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/number_text.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

using namespace blockwire;

TEST_CASE("hex: bytes to lower-case digits and back, either case in") {
  const std::vector<std::byte> bytes{std::byte{0x00}, std::byte{0xff}, std::byte{0x10}, std::byte{0xab}};
  CHECK(to_hex(bytes) == "00ff10ab");
  CHECK(from_hex("00FF10aB").value() == bytes);
  CHECK(from_hex("").value().empty());
  CHECK(to_hex(std::vector<std::byte>{}).empty());
}

TEST_CASE("hex: a bad digit is reported at its own offset, odd and wrong lengths have codes of their own") {
  const auto bad = from_hex("00f0zz");
  REQUIRE(!bad);
  CHECK(bad.error().code() == io::errc::not_hex);
  CHECK(bad.error().offset() == 4);
  const auto second_digit = from_hex("0g");
  CHECK(second_digit.error().offset() == 1);
  CHECK(from_hex("abc").error().code() == io::errc::odd_hex_length);
  std::array<std::byte, 2> two{};
  CHECK(from_hex("aabbcc", two).error().code() == io::errc::wrong_hex_length);
  CHECK(from_hex("aabb", two));
  CHECK(two[1] == std::byte{0xbb});
  CHECK(from_hex("0x12").error().code() == io::errc::not_hex);
}

TEST_CASE("Hash256: hex in display order (reversed), its errors from the one hex codec") {
  const auto h = Hash256::from_hex("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f");
  REQUIRE(h);
  CHECK(h.value().bytes()[0] == std::byte{0x6f});  // the last pair shown is the first byte
  CHECK(h.value().bytes()[31] == std::byte{0x00});
  CHECK(h.value().to_hex() == "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f");
  CHECK(Hash256::from_hex("00").error().code() == io::errc::wrong_hex_length);
  CHECK(Hash256::from_hex(std::string(63, '0') + "x").error().code() == io::errc::not_hex);
}

TEST_CASE("hex: every byte value, at every length and offset around the 16-byte steps, as printf's %02x writes it") {
  std::vector<std::byte> bytes(300);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>((i * 167 + 13) & 0xff);
  for (std::size_t offset = 0; offset < 3; ++offset) {
    for (std::size_t n = 0; n + offset <= bytes.size(); n += (n < 40 ? 1 : 37)) {
      const auto part = std::span(bytes).subspan(offset, n);
      std::string expected;
      for (const std::byte b : part) {
        char two[3];
        std::snprintf(two, sizeof two, "%02x", std::to_integer<unsigned>(b));
        expected += two;
      }
      CAPTURE(offset);
      CAPTURE(n);
      CHECK(blockwire::to_hex(part) == expected);
    }
  }
}

TEST_CASE("with_commas groups digits by three, as messages print counts") {
  CHECK(blockwire::with_commas(0) == "0");
  CHECK(blockwire::with_commas(999) == "999");
  CHECK(blockwire::with_commas(1000) == "1,000");
  CHECK(blockwire::with_commas(1234567) == "1,234,567");
  CHECK(blockwire::with_commas(18446744073709551615ull) == "18,446,744,073,709,551,615");
}
