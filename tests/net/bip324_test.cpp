// BIP324's cryptography against the BIP's own test vectors
// (tests/data/bip324/, from bitcoin/bips): every row of the three files.
#include <blockwire/io/hex.hpp>
#include <blockwire/net/bip324.hpp>

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace blockwire;
namespace b = blockwire::net::bip324;

namespace {

// A CSV file with a header row and no quoted fields, as the BIP's files are.
std::vector<std::map<std::string, std::string>> read_csv(const std::string& name) {
  std::ifstream in(std::string(BLOCKWIRE_TEST_DATA) + "/bip324/" + name);
  REQUIRE(in);
  const auto split = [](std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the files end their lines with CRLF
    std::vector<std::string> fields;
    std::stringstream s(line);
    std::string field;
    while (std::getline(s, field, ',')) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    return fields;
  };
  std::string line;
  std::getline(in, line);
  const auto columns = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    const auto fields = split(line);
    REQUIRE(fields.size() == columns.size());
    auto& row = rows.emplace_back();
    for (std::size_t i = 0; i < columns.size(); ++i) row[columns[i]] = fields[i];
  }
  return rows;
}

std::vector<std::byte> bytes(const std::string& text) { return from_hex(text).value(); }

template <std::size_t N>
std::array<std::byte, N> array(const std::string& text) {
  std::array<std::byte, N> out;
  REQUIRE(text.size() == 2 * N);
  REQUIRE(from_hex(text, out));
  return out;
}

std::string hex(std::span<const std::byte> b) { return to_hex(b); }

}  // namespace

TEST_CASE("bip324: ellswift_decode_test_vectors.csv, every encoding to its x") {
  const auto rows = read_csv("ellswift_decode_test_vectors.csv");
  REQUIRE(rows.size() == 76);
  for (const auto& row : rows) {
    CAPTURE(row.at("comment"));
    CHECK(hex(b::ellswift_decode(array<64>(row.at("ellswift")))) == row.at("x"));
  }
}

TEST_CASE("bip324: xswiftec_inv_test_vectors.csv, every case's t (or none), and t decodes back to x") {
  const auto rows = read_csv("xswiftec_inv_test_vectors.csv");
  REQUIRE(rows.size() == 32);
  int found = 0;
  for (const auto& row : rows) {
    CAPTURE(row.at("comment"));
    const auto u = array<32>(row.at("u"));
    const auto x = array<32>(row.at("x"));
    for (unsigned which = 0; which < 8; ++which) {
      CAPTURE(which);
      const auto t = b::xswiftec_inv(x, u, which);
      const std::string& expected = row.at("case" + std::to_string(which) + "_t");
      if (expected.empty()) {
        CHECK_FALSE(t.has_value());
        continue;
      }
      REQUIRE(t.has_value());
      CHECK(hex(*t) == expected);
      b::EllSwiftPublicKey encoded;
      std::copy(u.begin(), u.end(), encoded.begin());
      std::copy(t->begin(), t->end(), encoded.begin() + 32);
      CHECK(b::ellswift_decode(encoded) == x);
      ++found;
    }
  }
  CHECK(found > 0);
}

TEST_CASE("bip324: packet_encoding_test_vectors.csv, shared secret, terminators, session id and the packet after in_idx others") {
  const auto rows = read_csv("packet_encoding_test_vectors.csv");
  REQUIRE(rows.size() == 7);
  for (const auto& row : rows) {
    CAPTURE(row.at("in_idx"));
    const bool initiating = row.at("in_initiating") == "1";
    const auto ours = array<64>(row.at("in_ellswift_ours"));
    const auto theirs = array<64>(row.at("in_ellswift_theirs"));
    CHECK(hex(b::ellswift_decode(ours)) == row.at("mid_x_ours"));
    CHECK(hex(b::ellswift_decode(theirs)) == row.at("mid_x_theirs"));
    b::EllSwiftKey key(array<32>(row.at("in_priv_ours")), ours);
    CHECK(hex(key.ecdh_x(theirs)) == row.at("mid_x_shared"));
    CHECK(hex(key.shared_secret(theirs, initiating)) == row.at("mid_shared_secret"));

    b::PacketCipher cipher(std::move(key));
    cipher.initialize(theirs, initiating, network::mainnet);
    CHECK(hex(cipher.send_garbage_terminator()) == row.at("mid_send_garbage_terminator"));
    CHECK(hex(cipher.receive_garbage_terminator()) == row.at("mid_recv_garbage_terminator"));
    CHECK(hex(cipher.session_id()) == row.at("out_session_id"));

    std::vector<std::byte> packet(b::PacketCipher::overhead);
    for (int i = 0; i < std::stoi(row.at("in_idx")); ++i) cipher.encrypt({}, {}, false, packet);
    const auto piece = bytes(row.at("in_contents"));
    std::vector<std::byte> contents;
    for (int i = 0; i < std::stoi(row.at("in_multiply")); ++i) contents.insert(contents.end(), piece.begin(), piece.end());
    packet.resize(contents.size() + b::PacketCipher::overhead);
    cipher.encrypt(contents, bytes(row.at("in_aad")), row.at("in_ignore") == "1", packet);
    const std::string got = hex(packet);
    if (!row.at("out_ciphertext").empty()) CHECK(got == row.at("out_ciphertext"));
    const std::string& tail = row.at("out_ciphertext_endswith");
    if (!tail.empty()) CHECK((got.size() >= tail.size() && got.compare(got.size() - tail.size(), tail.size(), tail) == 0));
  }
}

TEST_CASE("bip324: both ends of generated keys agree; a packet opens on the other side, a flipped bit does not") {
  auto a = b::EllSwiftKey::generate();
  auto c = b::EllSwiftKey::generate();
  REQUIRE(a);
  REQUIRE(c);
  // The encoding is of the key: both sides reach the same secret.
  const auto a_public = a.value().public_key();
  const auto c_public = c.value().public_key();
  CHECK(a.value().shared_secret(c_public, true) == c.value().shared_secret(a_public, false));
  b::PacketCipher initiator(std::move(a).value());
  b::PacketCipher responder(std::move(c).value());
  initiator.initialize(c_public, true, network::regtest);
  responder.initialize(a_public, false, network::regtest);
  CHECK(initiator.session_id() == responder.session_id());
  CHECK(initiator.send_garbage_terminator() == responder.receive_garbage_terminator());
  CHECK(initiator.receive_garbage_terminator() == responder.send_garbage_terminator());
  const std::vector<std::byte> aad = bytes("00ff");
  for (int i = 0; i < 500; ++i) {  // past two rekeyings of each cipher
    CAPTURE(i);
    std::vector<std::byte> contents(static_cast<std::size_t>(i % 7) * 100, std::byte(i));
    std::vector<std::byte> packet(contents.size() + b::PacketCipher::overhead);
    initiator.encrypt(contents, i == 0 ? std::span<const std::byte>(aad) : std::span<const std::byte>{}, i % 5 == 0, packet);
    const auto length = responder.decrypt_length(std::span(packet).first<3>());
    REQUIRE(length == contents.size());
    auto rest = std::span(packet).subspan(3);
    bool ignore = false;
    REQUIRE(responder.open(rest, i == 0 ? std::span<const std::byte>(aad) : std::span<const std::byte>{}, ignore));
    CHECK(ignore == (i % 5 == 0));
    CHECK(std::equal(contents.begin(), contents.end(), rest.begin() + 1));
  }
  // The next packet with one bit flipped fails its tag.
  std::vector<std::byte> packet(10 + b::PacketCipher::overhead);
  initiator.encrypt(std::vector<std::byte>(10), {}, false, packet);
  packet[8] ^= std::byte{1};
  CHECK(responder.decrypt_length(std::span(packet).first<3>()) == 10);
  bool ignore = false;
  CHECK_FALSE(responder.open(std::span(packet).subspan(3), {}, ignore));
}
