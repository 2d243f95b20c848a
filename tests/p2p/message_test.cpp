// P2P messages: round trips, Bitcoin Core's limits at and past each one,
// the envelope's checks with their offsets, and every proper prefix
// truncated at its length.
#include <blockwire/codec.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/io.hpp>
#include <blockwire/p2p.hpp>

#include <doctest/doctest.h>

#include "../support/test_data.hpp"
#include "samples.hpp"

#include <cstring>

#include <variant>

using namespace blockwire;
using namespace blockwire::p2p;

namespace {

std::vector<std::byte> encoded(const Message& m, network net = network::mainnet) {
  std::vector<std::byte> out;
  encode_message(m, net, out);
  return out;
}

}  // namespace

TEST_CASE("p2p: every message round-trips, under its command, on every network") {
  for (network net : {network::mainnet, network::regtest}) {
    for (const Message& m : test::p2p_samples()) {
      CAPTURE(command(m));
      const auto bytes = encoded(m, net);
      REQUIRE(bytes.size() >= envelope_size);
      const auto back = decode_message(bytes, net);
      REQUIRE(back);
      CHECK(back.value() == m);
      CHECK(command(back.value()) == command(m));
      // A stream of two messages: each decoded exactly, in turn.
      auto twice = bytes;
      twice.insert(twice.end(), bytes.begin(), bytes.end());
      SpanReader source(twice);
      StreamReader in{reader_ref(source)};
      CHECK(decode_message(in, net).value() == m);
      CHECK(decode_message(in, net).value() == m);
    }
  }
}

TEST_CASE("p2p: the envelope: magic, command, length before allocation, checksum, each at its offset") {
  const auto ping = encoded(Ping{7});
  SUBCASE("another network's magic") {
    const auto r = decode_message(ping, network::testnet4);
    CHECK(r.error().code() == p2p::errc::bad_magic);
    CHECK(r.error().offset() == 0);
  }
  SUBCASE("a command with a byte after its NUL, or a byte that is not printable") {
    auto bad = ping;
    bad[4 + 6] = std::byte{'x'};  // "ping\0\0x..."
    CHECK(decode_message(bad, network::mainnet).error() == error(p2p::errc::bad_command, 4));
    bad = ping;
    bad[4] = std::byte{0x07};
    CHECK(decode_message(bad, network::mainnet).error() == error(p2p::errc::bad_command, 4));
  }
  SUBCASE("a length over 4,000,000 is refused before anything is read") {
    auto bad = ping;
    const auto length = wire::to_le(std::uint32_t{max_message_size + 1});
    std::copy(length.begin(), length.end(), bad.begin() + 16);
    std::string command;
    const auto r = decode_message(bad, network::mainnet, &command);
    CHECK(r.error() == error(p2p::errc::message_too_large, 16));
    CHECK(command == "ping");
  }
  SUBCASE("a bad checksum") {
    auto bad = ping;
    bad.back() ^= std::byte{1};
    CHECK(decode_message(bad, network::mainnet).error() == error(p2p::errc::bad_checksum, 20));
  }
  SUBCASE("an unknown command: its size, its payload checked and skipped") {
    auto unknown = ping;
    const char name[12] = "mempoolx";
    std::memcpy(unknown.data() + 4, name, 12);
    const auto r = decode_message(unknown, network::mainnet);
    REQUIRE(r);
    const auto* u = std::get_if<Unknown>(&r.value());
    REQUIRE(u != nullptr);
    CHECK(u->command == "mempoolx");
    CHECK(u->size == 8);
  }
}

TEST_CASE("p2p: Core's limits, at each and one past it") {
  const auto count_of = [](const Message& m) {
    auto r = decode_message(encoded(m), network::mainnet);
    return r ? std::error_code{} : r.error().code();
  };
  CHECK(count_of(Inv{std::vector<InvItem>(max_inventory)}) == std::error_code{});
  CHECK(count_of(Inv{std::vector<InvItem>(max_inventory + 1)}) == p2p::errc::too_many_items);
  CHECK(count_of(GetData{std::vector<InvItem>(max_inventory + 1)}) == p2p::errc::too_many_items);
  CHECK(count_of(GetHeaders{protocol_version, std::vector<Hash256>(max_locator), {}}) == std::error_code{});
  CHECK(count_of(GetHeaders{protocol_version, std::vector<Hash256>(max_locator + 1), {}}) == p2p::errc::too_many_items);
  CHECK(count_of(Headers{std::vector<BlockHeader>(max_headers)}) == std::error_code{});
  CHECK(count_of(Headers{std::vector<BlockHeader>(max_headers + 1)}) == p2p::errc::too_many_items);
  Version v;
  v.user_agent = std::string(max_user_agent, 'a');
  CHECK(count_of(v) == std::error_code{});
  v.user_agent += 'a';
  CHECK(count_of(v) == p2p::errc::string_too_long);
  CHECK(count_of(Reject{"tx", 1, std::string(max_reject_reason, 'r'), {}}) == std::error_code{});
  CHECK(count_of(Reject{"tx", 1, std::string(max_reject_reason + 1, 'r'), {}}) == p2p::errc::string_too_long);
  // The offset of the count: after the envelope, at the count's end.
  const auto r = decode_message(encoded(Inv{std::vector<InvItem>(max_inventory + 1)}), network::mainnet);
  CHECK(r.error().offset() == envelope_size + 3);  // 50,001: 0xfd and two bytes
}

TEST_CASE("p2p: every proper prefix of each message is truncated at its length") {
  for (const Message& m : test::p2p_samples()) {
    if (std::holds_alternative<BlockMessage>(m)) continue;  // a megabyte of prefixes; the codec's own tests cover blocks
    CAPTURE(command(m));
    const auto bytes = encoded(m);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      const auto r = decode_message(std::span(bytes).first(n), network::mainnet);
      REQUIRE_FALSE(r);
      CHECK(r.error().code() == blockwire::errc::truncated);
      CHECK(r.error().offset() == n);
    }
  }
}

TEST_CASE("p2p: version as Core reads it: later fields only when bytes remain, relay optional") {
  Version old;
  old.version = 70001;
  old.user_agent = "/old:1/";
  CHECK_FALSE(old.relay);
  const auto back = decode_message(encoded(old), network::mainnet);
  REQUIRE(back);
  CHECK_FALSE(std::get<Version>(back.value()).relay);  // no relay byte: absent, not false
  // A version that stops after the receiver's address (as very old peers send it).
  auto bytes = encoded(Version{});
  std::vector<std::byte> payload(bytes.begin() + envelope_size, bytes.begin() + envelope_size + 4 + 8 + 8 + 26);
  Message short_version = Unknown{};
  {
    std::vector<std::byte> message(bytes.begin(), bytes.begin() + envelope_size);
    const auto length = wire::to_le(static_cast<std::uint32_t>(payload.size()));
    std::copy(length.begin(), length.end(), message.begin() + 16);
    const Hash256 check = sha256d(payload);
    std::copy(check.bytes().begin(), check.bytes().begin() + 4, message.begin() + 20);
    message.insert(message.end(), payload.begin(), payload.end());
    auto r = decode_message(message, network::mainnet);
    REQUIRE(r);
    short_version = r.value();
  }
  CHECK(std::get<Version>(short_version).user_agent.empty());
  CHECK(std::get<Version>(short_version).nonce == 0);
}
