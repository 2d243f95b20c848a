// A user's input read whole and bounded, and its two readings.
#include "../support/text_bytes.hpp"

#include <blockwire/io/hex.hpp>
#include <blockwire/io/user_input.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace blockwire;

namespace {

struct TempFile {
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("user_input_test." + std::to_string(::getpid()));
  explicit TempFile(std::string_view contents) { std::ofstream(path, std::ios::binary) << contents; }
  ~TempFile() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("read_user_input: a file whole, up to the bound and not past it") {
  const TempFile file("0011 22\n");
  const auto got = read_user_input(file.path.string(), 8);
  REQUIRE(got);
  CHECK(got.value() == test::text_bytes("0011 22\n"));
  const auto over = read_user_input(file.path.string(), 7);
  REQUIRE(!over);
  CHECK(over.error().code() == std::errc::file_too_large);
  // Reading stops at the bound: a file with no end is refused, not read.
  CHECK(read_user_input("/dev/zero", 1 << 20).error().code() == std::errc::file_too_large);
  CHECK(read_user_input((file.path.string() + ".missing"), 8).error().code() == std::errc::no_such_file_or_directory);
}

TEST_CASE("readings_of: hex with white space anywhere, bytes as they are beside it, hex tried first") {
  const Readings r = readings_of(test::text_bytes(" 00ff\n10\tAB \r\n"));
  REQUIRE(r.hex);
  CHECK(to_hex(*r.hex) == "00ff10ab");
  CHECK(!r.hex_problem);
  CHECK(r.raw == test::text_bytes(" 00ff\n10\tAB \r\n"));
  const auto order = r.in_order();
  REQUIRE(order.size() == 2);
  CHECK(order[0] == &*r.hex);
  CHECK(order[1] == &r.raw);
}

TEST_CASE("readings_of: bytes that are not text have no hex reading and no hex problem") {
  const Readings r = readings_of({std::byte{0x01}, std::byte{'0'}, std::byte{'0'}});
  CHECK(!r.hex);
  CHECK(!r.hex_problem);
  CHECK(r.in_order().size() == 1);
  CHECK(!readings_of({}).hex);
}

TEST_CASE("readings_of: text that is not hex says where, counted in the input, white space included") {
  const Readings bad = readings_of(test::text_bytes("00 11\n2g"));
  REQUIRE(bad.hex_problem);
  CHECK(!bad.hex);
  CHECK(bad.hex_problem->code() == io::errc::not_hex);
  CHECK(bad.hex_problem->offset() == 7);  // the 'g': the sixth digit, the input's eighth byte
  CHECK(describe_hex_problem(*bad.hex_problem, bad.raw).find("byte 7") != std::string::npos);

  const Readings prefixed = readings_of(test::text_bytes("0x0011"));
  REQUIRE(prefixed.hex_problem);
  CHECK(prefixed.hex_problem->offset() == 1);
  CHECK(describe_hex_problem(*prefixed.hex_problem, prefixed.raw).find("0x prefix") != std::string::npos);

  const Readings odd = readings_of(test::text_bytes("001 1\n2"));
  REQUIRE(odd.hex_problem);
  CHECK(odd.hex_problem->code() == io::errc::odd_hex_length);
  CHECK(describe_hex_problem(*odd.hex_problem, odd.raw).ends_with("(5)"));
}
