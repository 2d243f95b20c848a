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
  CHECK(count_of(GetHeaders{protocol_version, std::vector<BlockHash>(max_locator, BlockHash::all_zeros()), BlockHash::all_zeros()}) ==
        std::error_code{});
  CHECK(count_of(GetHeaders{protocol_version, std::vector<BlockHash>(max_locator + 1, BlockHash::all_zeros()), BlockHash::all_zeros()}) ==
        p2p::errc::too_many_items);
  CHECK(count_of(Headers{std::vector<BlockHeader>(max_headers)}) == std::error_code{});
  CHECK(count_of(Headers{std::vector<BlockHeader>(max_headers + 1)}) == p2p::errc::too_many_items);
  CHECK(count_of(CFHeaders{0, BlockHash::all_zeros(), {}, std::vector<Hash256>(max_getcfheaders)}) == std::error_code{});
  CHECK(count_of(CFHeaders{0, BlockHash::all_zeros(), {}, std::vector<Hash256>(max_getcfheaders + 1)}) == p2p::errc::too_many_items);
  Version v;
  v.user_agent = std::string(max_user_agent, 'a');
  CHECK(count_of(v) == std::error_code{});
  v.user_agent += 'a';
  CHECK(count_of(v) == p2p::errc::string_too_long);
  CHECK(count_of(Reject{"tx", 1, std::string(max_reject_reason, 'r'), {}}) == std::error_code{});
  CHECK(count_of(Reject{"tx", 1, std::string(max_reject_reason + 1, 'r'), {}}) == p2p::errc::string_too_long);
  CHECK(count_of(Addr{std::vector<TimedAddress>(max_addresses)}) == std::error_code{});
  CHECK(count_of(Addr{std::vector<TimedAddress>(max_addresses + 1)}) == p2p::errc::too_many_items);
  const AddressV2 ipv4{0, 0, net_id::ipv4, std::vector<std::byte>(4), 8333};
  CHECK(count_of(AddrV2{std::vector<AddressV2>(max_addresses, ipv4)}) == std::error_code{});
  CHECK(count_of(AddrV2{std::vector<AddressV2>(max_addresses + 1, ipv4)}) == p2p::errc::too_many_items);
  // An unknown network's address: up to 512 bytes, kept; a known one: its size.
  CHECK(count_of(AddrV2{{{0, 0, 200, std::vector<std::byte>(max_addrv2_size), 1}}}) == std::error_code{});
  CHECK(count_of(AddrV2{{{0, 0, 200, std::vector<std::byte>(max_addrv2_size + 1), 1}}}) == p2p::errc::address_too_long);
  for (std::uint8_t id : {net_id::ipv4, net_id::ipv6, net_id::torv2, net_id::torv3, net_id::i2p, net_id::cjdns}) {
    CAPTURE(int{id});
    const std::size_t size = address_size(id);
    CHECK(count_of(AddrV2{{{0, 0, id, std::vector<std::byte>(size), 1}}}) == std::error_code{});
    CHECK(count_of(AddrV2{{{0, 0, id, std::vector<std::byte>(size + 1), 1}}}) == p2p::errc::bad_address_size);
    CHECK(count_of(AddrV2{{{0, 0, id, std::vector<std::byte>(size - 1), 1}}}) == p2p::errc::bad_address_size);
  }
  // A compact block's transactions (short ids and prefilled) fit 16 bits.
  CmpctBlock cmpct;
  cmpct.short_ids.assign(max_block_transactions, 0);
  CHECK(count_of(cmpct) == std::error_code{});
  cmpct.short_ids.push_back(0);
  CHECK(count_of(cmpct) == p2p::errc::too_many_items);
  cmpct.short_ids.resize(max_block_transactions - 1);
  cmpct.prefilled.push_back({0, decode_block(test::segwit_block()).value().transactions[0]});
  CHECK(count_of(cmpct) == std::error_code{});
  cmpct.prefilled.push_back({1, cmpct.prefilled[0].tx});
  CHECK(count_of(cmpct) == p2p::errc::too_many_items);
  // The offset of the count: after the envelope, at the count's end.
  const auto r = decode_message(encoded(Inv{std::vector<InvItem>(max_inventory + 1)}), network::mainnet);
  CHECK(r.error().offset() == envelope_size + 3);  // 50,001: 0xfd and two bytes
}

namespace {

// A getblocktxn payload with these raw differential values.
std::vector<std::byte> getblocktxn_with_deltas(std::initializer_list<std::uint64_t> deltas) {
  std::vector<std::byte> payload(32);
  VectorWriter sink(payload);
  StreamWriter out{writer_ref(sink)};
  wire::encode_compact_size(out, deltas.size());
  for (std::uint64_t d : deltas) wire::encode_compact_size(out, d);
  (void)out.flush();
  return payload;
}

// The whole message around a payload.
std::vector<std::byte> framed(std::string_view command, std::span<const std::byte> payload) {
  std::vector<std::byte> out(envelope_size);
  const Magic m = magic(network::mainnet);
  std::copy(m.begin(), m.end(), out.begin());
  std::memcpy(out.data() + 4, command.data(), command.size());
  const auto length = wire::to_le(static_cast<std::uint32_t>(payload.size()));
  std::copy(length.begin(), length.end(), out.begin() + 16);
  const Hash256 check = sha256d(payload);
  std::copy(check.bytes().begin(), check.bytes().begin() + 4, out.begin() + 20);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace

TEST_CASE("p2p: differential indexes as Core's blockencodings tests: the highest index, and the sum that overflows") {
  // TransactionsRequestDeserializationMaxTest: one index of 0xffff.
  const auto top = decode_message(framed("getblocktxn", getblocktxn_with_deltas({0xffff})), network::mainnet);
  REQUIRE(top);
  CHECK(std::get<GetBlockTxn>(top.value()).indexes == std::vector<std::uint16_t>{0xffff});
  // ...OverflowTest: deltas 0x7000, 0x10000 - 0x7000 - 2, 0 reach 0x10000.
  const auto over = decode_message(framed("getblocktxn", getblocktxn_with_deltas({0x7000, 0x10000 - 0x7000 - 2, 0})), network::mainnet);
  CHECK(over.error() == error(p2p::errc::index_overflow, envelope_size + 32 + 1 + 3 + 3 + 1));
  CHECK(decode_message(framed("getblocktxn", getblocktxn_with_deltas({0x10000})), network::mainnet).error().code() ==
        p2p::errc::index_overflow);
  // Round trip of ascending indexes (TransactionsRequestSerializationTest).
  const GetBlockTxn request{test::block_hash_of(11), {0, 1, 3, 4}};
  CHECK(std::get<GetBlockTxn>(decode_message(encoded(request), network::mainnet).value()) == request);
  // A count no set of distinct 16-bit indexes can have (65,537), refused
  // before anything is reserved.
  std::vector<std::byte> count(32);
  for (int b : {0xfe, 0x01, 0x00, 0x01, 0x00}) count.push_back(std::byte(b));
  CHECK(decode_message(framed("getblocktxn", count), network::mainnet).error() == error(p2p::errc::index_overflow, envelope_size + 32 + 5));
}

TEST_CASE("p2p: every proper prefix of each message is truncated at its length") {
  for (const Message& m : test::p2p_samples()) {
    if (std::holds_alternative<BlockMessage>(m)) continue;  // a megabyte of prefixes; the codec's own tests cover blocks
    CAPTURE(command(m));
    const auto bytes = encoded(m);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      const auto r = decode_message(std::span(bytes).first(n), network::mainnet);
      REQUIRE_FALSE(r);
      CHECK(r.error().code() == blockwire::io::errc::truncated);
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

TEST_CASE("p2p: BIP157's messages laid out as the BIP gives them") {
  // getcfilters and getcfheaders: FilterType (1 byte), StartHeight (4, little-endian), StopHash (32).
  const BlockHash stop = test::block_hash_of(1);
  const auto get = encoded(GetCFilters{0, 0x01020304, stop}, network::mainnet);
  REQUIRE(get.size() == envelope_size + 37);
  CHECK(get[envelope_size] == std::byte{0});
  CHECK(get[envelope_size + 1] == std::byte{0x04});
  CHECK(get[envelope_size + 4] == std::byte{0x01});
  CHECK(std::equal(stop.bytes().begin(), stop.bytes().end(), get.begin() + envelope_size + 5));
  CHECK(encoded(GetCFHeaders{0, 7, BlockHash::all_zeros()}, network::mainnet).size() == envelope_size + 37);
  // cfilter: FilterType, BlockHash, then the filter as a CompactSize-prefixed byte string.
  const auto cfilter = encoded(CFilter{0, BlockHash::all_zeros(), std::vector<std::byte>(300, std::byte{7})}, network::mainnet);
  REQUIRE(cfilter.size() == envelope_size + 1 + 32 + 3 + 300);
  CHECK(cfilter[envelope_size + 33] == std::byte{0xfd});  // 300 needs the 3-byte form
  // cfheaders: FilterType, StopHash, PreviousFilterHeader, then the hashes behind a CompactSize.
  CHECK(encoded(CFHeaders{0, BlockHash::all_zeros(), {}, std::vector<Hash256>(3)}, network::mainnet).size() ==
        envelope_size + 1 + 32 + 32 + 1 + 96);
  // getcfcheckpt: FilterType, StopHash; cfcheckpt: the same, then the headers.
  CHECK(encoded(GetCFCheckpt{0, BlockHash::all_zeros()}, network::mainnet).size() == envelope_size + 33);
  CHECK(encoded(CFCheckpt{0, BlockHash::all_zeros(), std::vector<Hash256>(2)}, network::mainnet).size() == envelope_size + 33 + 1 + 64);
  // A cfcheckpt whose count claims more headers than its bytes hold: truncated, nothing reserved beyond them.
  auto bytes = encoded(CFCheckpt{0, BlockHash::all_zeros(), std::vector<Hash256>(2)}, network::mainnet);
  bytes[envelope_size + 33] = std::byte{0xfc};
  CHECK_FALSE(decode_message(bytes, network::mainnet));
}

TEST_CASE("p2p: BIP324's v2 contents: one-byte ids from the BIP's table, 13-byte types for the rest, both decoded alike") {
  // Ids as BIP324's table gives them.
  const std::pair<const char*, int> table[] = {
      {"addr", 1},          {"block", 2},      {"blocktxn", 3},      {"cmpctblock", 4}, {"feefilter", 5},    {"getblocks", 9},
      {"getblocktxn", 10},  {"getdata", 11},   {"getheaders", 12},   {"headers", 13},   {"inv", 14},         {"notfound", 17},
      {"ping", 18},         {"pong", 19},      {"sendcmpct", 20},    {"tx", 21},        {"getcfilters", 22}, {"cfilter", 23},
      {"getcfheaders", 24}, {"cfheaders", 25}, {"getcfcheckpt", 26}, {"cfcheckpt", 27}, {"addrv2", 28}};
  for (const auto& [name, id] : table) {
    CAPTURE(name);
    CHECK(p2p::v2_message_id(name) == id);
  }
  for (const char* none : {"version", "verack", "sendheaders", "wtxidrelay", "sendaddrv2", "getaddr", "reject"})
    CHECK(p2p::v2_message_id(none) == 0);

  for (const p2p::Message& m : test::p2p_samples()) {
    CAPTURE(p2p::command(m));
    std::vector<std::byte> contents{std::byte{0xee}};  // something before: appended after it
    p2p::encode_v2_contents(m, contents);
    CHECK(contents[0] == std::byte{0xee});
    const auto body = std::span<const std::byte>(contents).subspan(1);
    const std::uint8_t id = p2p::v2_message_id(p2p::command(m));
    CHECK(std::to_integer<std::uint8_t>(body[0]) == id);
    std::vector<std::byte> v1;
    p2p::encode_message(m, network::regtest, v1);
    // The payload after the type is v1's payload.
    const std::size_t type_size = id != 0 ? 1 : 13;
    CHECK(std::equal(body.begin() + static_cast<std::ptrdiff_t>(type_size), body.end(), v1.begin() + 24, v1.end()));
    std::string name;
    auto back = p2p::decode_v2_contents(body, &name);
    REQUIRE(back);
    CHECK(name == p2p::command(m));
    if (!std::holds_alternative<p2p::Unknown>(m)) CHECK(back.value() == m);
    // The 13-byte form of a type that has an id decodes alike.
    if (id != 0) {
      std::vector<std::byte> long_form(13, std::byte{0});
      std::memcpy(long_form.data() + 1, name.data(), name.size());
      long_form.insert(long_form.end(), body.begin() + 1, body.end());
      CHECK(p2p::decode_v2_contents(long_form).value() == back.value());
    }
  }
  // An id past the table: an unknown message, its payload not read.
  auto unknown = p2p::decode_v2_contents(std::vector<std::byte>{std::byte{29}, std::byte{1}, std::byte{2}}).value();
  CHECK(std::get<p2p::Unknown>(unknown).command == "id 29");
  CHECK(std::get<p2p::Unknown>(unknown).size == 2);
  // Faults at their byte.
  CHECK(p2p::decode_v2_contents(std::vector<std::byte>{}).error().offset() == 0);
  CHECK(p2p::decode_v2_contents(std::vector<std::byte>(5)).error().code() == p2p::errc::short_payload);
  std::vector<std::byte> bad(13, std::byte{0});
  bad[1] = std::byte{'a'};
  bad[3] = std::byte{'b'};  // after a NUL
  CHECK(p2p::decode_v2_contents(bad).error().code() == p2p::errc::bad_command);
  std::vector<std::byte> huge(1 + p2p::max_message_size + 1);
  huge[0] = std::byte{2};
  const auto too_large = p2p::decode_v2_contents(huge);
  CHECK(too_large.error().code() == p2p::errc::message_too_large);
  CHECK(too_large.error().offset() == 1);
  // A ping one byte short: short_payload at the end of the contents.
  const auto short_ping = p2p::decode_v2_contents(std::vector<std::byte>(8, std::byte{18}));
  CHECK(short_ping.error().code() == p2p::errc::short_payload);
}
