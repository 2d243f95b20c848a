// BIP324's cryptography against the BIP's own test vectors
// (tests/data/bip324/, from bitcoin/bips): every row of the three files.
// Then its failures: buffers of the wrong size, a bad tag, OpenSSL failing
// at each of its calls (the net library's test seam) and with no provider
// to fetch its algorithms from (a real failure).
#include <blockwire/io/hex.hpp>
#include <blockwire/net/bip324.hpp>
#include <blockwire/net/error.hpp>

#include <doctest/doctest.h>

#include <openssl/err.h>
#include <openssl/provider.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

// The net library's seam for tests (codec/net/src/fschacha20.cpp), in no
// header: the Nth checked OpenSSL call of this thread from now fails.
namespace blockwire::net::bip324::detail {
extern thread_local std::uint64_t fail_openssl_call;
}

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
    CHECK(hex(b::ellswift_decode(array<64>(row.at("ellswift"))).value()) == row.at("x"));
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
      const auto t = b::xswiftec_inv(x, u, which).value();
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
      CHECK(b::ellswift_decode(encoded).value() == x);
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
    CHECK(hex(b::ellswift_decode(ours).value()) == row.at("mid_x_ours"));
    CHECK(hex(b::ellswift_decode(theirs).value()) == row.at("mid_x_theirs"));
    b::EllSwiftKey key(array<32>(row.at("in_priv_ours")), ours);
    CHECK(hex(key.ecdh_x(theirs).value().get()) == row.at("mid_x_shared"));
    CHECK(hex(key.shared_secret(theirs, initiating).value().get()) == row.at("mid_shared_secret"));

    b::PacketCipher cipher(std::move(key));
    REQUIRE(cipher.initialize(theirs, initiating, network::mainnet));
    CHECK(hex(cipher.send_garbage_terminator()) == row.at("mid_send_garbage_terminator"));
    CHECK(hex(cipher.receive_garbage_terminator()) == row.at("mid_recv_garbage_terminator"));
    CHECK(hex(cipher.session_id()) == row.at("out_session_id"));

    std::vector<std::byte> packet(b::PacketCipher::overhead);
    for (int i = 0; i < std::stoi(row.at("in_idx")); ++i) REQUIRE(cipher.encrypt({}, {}, false, packet));
    const auto piece = bytes(row.at("in_contents"));
    std::vector<std::byte> contents;
    for (int i = 0; i < std::stoi(row.at("in_multiply")); ++i) contents.insert(contents.end(), piece.begin(), piece.end());
    packet.resize(contents.size() + b::PacketCipher::overhead);
    REQUIRE(cipher.encrypt(contents, bytes(row.at("in_aad")), row.at("in_ignore") == "1", packet));
    const std::string got = hex(packet);
    if (!row.at("out_ciphertext").empty()) CHECK(got == row.at("out_ciphertext"));
    const std::string& tail = row.at("out_ciphertext_endswith");
    if (!tail.empty()) CHECK((got.size() >= tail.size() && got.compare(got.size() - tail.size(), tail.size(), tail) == 0));
  }
}

TEST_CASE("bip324: both ends of generated keys agree, a packet opens on the other side, a flipped bit does not") {
  auto a = b::EllSwiftKey::generate();
  auto c = b::EllSwiftKey::generate();
  REQUIRE(a);
  REQUIRE(c);
  // The encoding is of the key: both sides reach the same secret.
  const auto a_public = a.value().public_key();
  const auto c_public = c.value().public_key();
  CHECK(a.value().shared_secret(c_public, true).value() == c.value().shared_secret(a_public, false).value());
  b::PacketCipher initiator(std::move(a).value());
  b::PacketCipher responder(std::move(c).value());
  REQUIRE(initiator.initialize(c_public, true, network::regtest));
  REQUIRE(responder.initialize(a_public, false, network::regtest));
  CHECK(initiator.session_id() == responder.session_id());
  CHECK(initiator.send_garbage_terminator() == responder.receive_garbage_terminator());
  CHECK(initiator.receive_garbage_terminator() == responder.send_garbage_terminator());
  const std::vector<std::byte> aad = bytes("00ff");
  for (int i = 0; i < 500; ++i) {  // past two rekeyings of each cipher
    CAPTURE(i);
    std::vector<std::byte> contents(static_cast<std::size_t>(i % 7) * 100, std::byte(i));
    std::vector<std::byte> packet(contents.size() + b::PacketCipher::overhead);
    REQUIRE(initiator.encrypt(contents, i == 0 ? std::span<const std::byte>(aad) : std::span<const std::byte>{}, i % 5 == 0, packet));
    const auto length = responder.decrypt_length(std::span(packet).first<3>());
    REQUIRE(length.value() == contents.size());
    auto rest = std::span(packet).subspan(3);
    bool ignore = false;
    REQUIRE(responder.open(rest, i == 0 ? std::span<const std::byte>(aad) : std::span<const std::byte>{}, ignore));
    CHECK(ignore == (i % 5 == 0));
    CHECK(std::equal(contents.begin(), contents.end(), rest.begin() + 1));
  }
  // The next packet with one bit flipped fails its tag.
  std::vector<std::byte> packet(10 + b::PacketCipher::overhead);
  REQUIRE(initiator.encrypt(std::vector<std::byte>(10), {}, false, packet));
  packet[8] ^= std::byte{1};
  CHECK(responder.decrypt_length(std::span(packet).first<3>()).value() == 10);
  bool ignore = false;
  CHECK(responder.open(std::span(packet).subspan(3), {}, ignore).error().code() == net::errc::v2_bad_tag);
}

namespace {

bool all_zero(std::span<const std::byte> b) {
  return std::all_of(b.begin(), b.end(), [](std::byte x) { return x == std::byte{0}; });
}

// Two ends of a session from fresh keys.
struct Pair {
  b::PacketCipher initiator{b::EllSwiftKey::generate().value()};
  b::PacketCipher responder{b::EllSwiftKey::generate().value()};
  Pair() {
    const auto i = initiator.our_public_key();
    const auto r = responder.our_public_key();
    REQUIRE(initiator.initialize(r, true, network::regtest));
    REQUIRE(responder.initialize(i, false, network::regtest));
  }
  // `contents` from the initiator opened by the responder.
  result<std::vector<std::byte>> travel(std::span<const std::byte> contents) {
    std::vector<std::byte> packet(contents.size() + b::PacketCipher::overhead);
    if (auto r = initiator.encrypt(contents, {}, false, packet); !r) return r.error();
    auto length = responder.decrypt_length(std::span(packet).first<3>());
    if (!length) return length.error();
    if (length.value() != contents.size()) return net::errc::v2_bad_tag;  // (a length out of step: said as a failure)
    bool ignore = true;
    if (auto r = responder.open(std::span(packet).subspan(3), {}, ignore); !r) return r.error();
    return std::vector<std::byte>(packet.begin() + 4, packet.end() - 16);
  }
};

// The seam armed: the nth checked OpenSSL call from now fails.
struct Seam {
  bool armed = false;
  bool reached = false;
};
thread_local Seam seam;
void arm(std::uint64_t n) {
  b::detail::fail_openssl_call = n;
  seam = {true, false};
}
// Stops counting; whether the call armed for was reached (and failed).
bool disarm() {
  if (seam.armed) {
    seam = {false, b::detail::fail_openssl_call == 0};
    b::detail::fail_openssl_call = 0;
  }
  return seam.reached;
}

// `attempt(n)`, which arms the seam for n where it chooses, for n = 1, 2,
// ... until a run makes fewer calls than n, which must succeed. Each run
// whose call failed must give v2_crypto_failure naming the call and leave
// OpenSSL's error queue empty. Returns the calls of the last run.
template <class F>
std::uint64_t fail_each_call(F attempt) {
  for (std::uint64_t n = 1; n < 100'000; ++n) {
    CAPTURE(n);
    seam = {};
    const error e = attempt(n);
    const bool failed_one = disarm();
    if (!failed_one) {
      CHECK_FALSE(e);
      return n - 1;
    }
    CHECK(e.code() == net::errc::v2_crypto_failure);
    CHECK(e.context().starts_with("OpenSSL's "));
    CHECK(ERR_peek_error() == 0);
  }
  FAIL("no run made fewer calls than the failure was armed for");
  return 0;
}

template <class T>
error error_of(const result<T>& r) {
  return r ? error() : r.error();
}

}  // namespace

TEST_CASE("bip324: the new codes' conditions: OpenSSL's failure is the system's, a wrong buffer the caller's") {
  for (const condition c : {condition::io, condition::bad_data, condition::usage, condition::peer}) {
    CHECK((make_error_code(net::errc::v2_crypto_failure) == c) == (c == condition::io));
    CHECK((make_error_code(net::errc::v2_wrong_buffer_size) == c) == (c == condition::usage));
  }
}

TEST_CASE("bip324: buffers of the wrong size are refused (v2_wrong_buffer_size) with nothing done: the streams stay in step") {
  SUBCASE("FSChaCha20: an output not the input's size") {
    // RFC 8439 A.1, test vector #1: key and nonce zero, block 0 begins
    // 76b8e0ada0f13d90; FSChaCha20's first chunks under a zero key are it.
    b::FSChaCha20 lengths(b::Bytes32{});
    const std::array<std::byte, 3> zeros{};
    std::array<std::byte, 2> shorter;
    std::array<std::byte, 4> longer;
    CHECK(lengths.crypt(zeros, shorter).error().code() == net::errc::v2_wrong_buffer_size);
    CHECK(lengths.crypt(zeros, longer).error().code() == net::errc::v2_wrong_buffer_size);
    std::array<std::byte, 3> out;
    REQUIRE(lengths.crypt(zeros, out));
    CHECK(hex(out) == "76b8e0");
    CHECK(lengths.crypt(std::span(zeros).first(2), out).error().code() == net::errc::v2_wrong_buffer_size);
    REQUIRE(lengths.crypt(zeros, out));
    CHECK(hex(out) == "ada0f1");
  }
  SUBCASE("FSChaCha20Poly1305: a text shorter than its tag, sealed or opened") {
    const b::Bytes32 key = array<32>("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    b::FSChaCha20Poly1305 sender(key), receiver(key);
    std::vector<std::byte> text(15);
    CHECK(sender.seal(text, {}).error().code() == net::errc::v2_wrong_buffer_size);
    CHECK(receiver.open(text, {}).error().code() == net::errc::v2_wrong_buffer_size);
    CHECK(receiver.open({}, {}).error().code() == net::errc::v2_wrong_buffer_size);
    // Neither counted a message: the first sealed opens as the first.
    text.assign(21, std::byte{0x42});
    REQUIRE(sender.seal(text, bytes("aa")));
    REQUIRE(receiver.open(text, bytes("aa")));
    CHECK(std::all_of(text.begin(), text.begin() + 5, [](std::byte x) { return x == std::byte{0x42}; }));
  }
  SUBCASE("PacketCipher: a packet shorter than its overhead, an output of another size, a rest shorter than header and tag") {
    Pair p;
    std::vector<std::byte> packet(b::PacketCipher::overhead - 1);
    CHECK(p.initiator.seal(packet, {}, false).error().code() == net::errc::v2_wrong_buffer_size);
    CHECK(p.initiator.seal({}, {}, false).error().code() == net::errc::v2_wrong_buffer_size);
    const std::vector<std::byte> contents(5, std::byte{9});
    for (const std::size_t size :
         {std::size_t{0}, contents.size() + b::PacketCipher::overhead - 1, contents.size() + b::PacketCipher::overhead + 1}) {
      CAPTURE(size);
      std::vector<std::byte> out(size);
      CHECK(p.initiator.encrypt(contents, {}, false, out).error().code() == net::errc::v2_wrong_buffer_size);
    }
    bool ignore = false;
    std::vector<std::byte> rest(b::PacketCipher::header_size + 15);
    CHECK(p.responder.open(rest, {}, ignore).error().code() == net::errc::v2_wrong_buffer_size);
    // Nothing counted on either side: the next packet travels.
    CHECK(p.travel(contents).value() == contents);
  }
  SUBCASE("PacketCipher: contents longer than 3 bytes of length can say") {
    Pair p;
    std::vector<std::byte> packet(b::PacketCipher::overhead + (std::size_t{1} << 24));
    CHECK(p.initiator.seal(packet, {}, false).error().code() == net::errc::v2_wrong_buffer_size);
    packet.resize(b::PacketCipher::overhead + (std::size_t{1} << 24) - 1);  // the most it can say
    REQUIRE(p.initiator.seal(packet, {}, false));
    CHECK(p.responder.decrypt_length(std::span(packet).first<3>()).value() == (1u << 24) - 1);
  }
}

TEST_CASE("bip324: a bad tag leaves no unauthenticated plaintext: the packet is zeroed, v2_bad_tag, and the next packet opens") {
  Pair p;
  const std::vector<std::byte> contents(300, std::byte{0xab});
  std::vector<std::byte> packet(contents.size() + b::PacketCipher::overhead);
  REQUIRE(p.initiator.encrypt(contents, {}, false, packet));
  packet.back() ^= std::byte{0x01};  // the tag's last byte
  REQUIRE(p.responder.decrypt_length(std::span(packet).first<3>()).value() == contents.size());
  bool ignore = false;
  const auto rest = std::span(packet).subspan(3);
  CHECK(p.responder.open(rest, {}, ignore).error().code() == net::errc::v2_bad_tag);
  CHECK(all_zero(rest));
  // The message counted on both sides, as the BIP has it: still in step.
  CHECK(p.travel(contents).value() == contents);
}

TEST_CASE(
    "bip324: OpenSSL failing at each of its calls: v2_crypto_failure naming the call, never an exception, and a cipher that failed stays "
    "failed") {
  const auto row = read_csv("packet_encoding_test_vectors.csv").at(0);
  const auto secret = array<32>(row.at("in_priv_ours"));
  const auto ours = array<64>(row.at("in_ellswift_ours"));
  const auto theirs = array<64>(row.at("in_ellswift_theirs"));
  const bool initiating = row.at("in_initiating") == "1";
  SUBCASE("ellswift_decode and xswiftec_inv") {
    CHECK(fail_each_call([&](std::uint64_t n) {
            arm(n);
            return error_of(b::ellswift_decode(theirs));
          }) > 10);
    const auto x = b::ellswift_decode(ours).value();
    b::Bytes32 u;
    std::copy(ours.begin(), ours.begin() + 32, u.begin());
    CHECK(fail_each_call([&](std::uint64_t n) {
            arm(n);
            for (unsigned which = 0; which < 8; ++which) {
              if (auto t = b::xswiftec_inv(x, u, which); !t) return t.error();
            }
            return error();
          }) > 10);
  }
  SUBCASE("EllSwiftKey::generate, ecdh_x and shared_secret") {
    CHECK(fail_each_call([&](std::uint64_t n) {
            arm(n);
            return error_of(b::EllSwiftKey::generate());
          }) > 20);
    const b::EllSwiftKey key(secret, ours);
    CHECK(fail_each_call([&](std::uint64_t n) {
            arm(n);
            auto x = key.shared_secret(theirs, initiating);
            if (x) CHECK(hex(x.value().get()) == row.at("mid_shared_secret"));
            return error_of(x);
          }) > 20);
  }
  SUBCASE("PacketCipher::initialize: nothing made on failure; the BIP's keys when it succeeds") {
    CHECK(fail_each_call([&](std::uint64_t n) {
            b::PacketCipher cipher(b::EllSwiftKey(secret, ours));
            arm(n);
            auto r = cipher.initialize(theirs, initiating, network::mainnet);
            CHECK(cipher.initialized() == bool(r));
            if (r) CHECK(hex(cipher.session_id()) == row.at("out_session_id"));
            return error_of(r);
          }) > 20);
  }
  SUBCASE("a packet sealed, its length and contents opened; then every call of the cipher that failed fails") {
    CHECK(fail_each_call([&](std::uint64_t n) {
            Pair p;
            const std::vector<std::byte> contents(100, std::byte{7});
            arm(n);
            auto got = p.travel(contents);
            disarm();
            if (got) {
              CHECK(got.value() == contents);
            } else {
              // Whichever side failed has lost its place: it fails again,
              // the seam disarmed.
              CHECK(error_of(p.travel(contents)).code() == net::errc::v2_crypto_failure);
            }
            return error_of(got);
          }) >= 4);
  }
  SUBCASE("FSChaCha20 and FSChaCha20Poly1305 at their rekeying (the 224th chunk or message) and just after") {
    const b::Bytes32 key{};
    CHECK(fail_each_call([&](std::uint64_t n) {
            b::FSChaCha20 c(key);
            std::array<std::byte, 3> chunk{};
            for (std::uint32_t i = 0; i + 1 < b::rekey_interval; ++i) REQUIRE(c.crypt(chunk, chunk));
            arm(n);
            auto r = c.crypt(chunk, chunk);
            if (r) r = c.crypt(chunk, chunk);
            return error_of(r);
          }) >= 3);
    CHECK(fail_each_call([&](std::uint64_t n) {
            b::FSChaCha20Poly1305 sender(key), receiver(key);
            std::vector<std::byte> text(40, std::byte{1});
            for (std::uint32_t i = 0; i + 1 < b::rekey_interval; ++i) {
              REQUIRE(sender.seal(text, {}));
              REQUIRE(receiver.open(text, {}));
            }
            arm(n);
            result<void> r = success();
            for (int i = 0; i < 2 && r; ++i) {
              r = sender.seal(text, {});
              if (r) r = receiver.open(text, {});
            }
            return error_of(r);
          }) >= 8);
  }
}

TEST_CASE(
    "bip324: with no provider to fetch algorithms from, a real failure: v2_crypto_failure with OpenSSL's reason, its error queue left "
    "empty") {
  // A library context with OpenSSL's null provider alone (no fallback to
  // the default one), made this thread's default: the random source, HKDF
  // and ChaCha20 cannot be fetched.
  const auto key = b::EllSwiftKey::generate();  // (in the ordinary context)
  REQUIRE(key);
  const auto peer = b::EllSwiftKey::generate().value().public_key();
  std::thread bare([&] {
    OSSL_LIB_CTX* context = OSSL_LIB_CTX_new();
    REQUIRE(context != nullptr);
    OSSL_PROVIDER* null = OSSL_PROVIDER_load(context, "null");
    REQUIRE(null != nullptr);
    OSSL_LIB_CTX* previous = OSSL_LIB_CTX_set0_default(context);
    const auto said = [](const error& e) {
      CAPTURE(e.message());
      CHECK(e.code() == net::errc::v2_crypto_failure);
      CHECK(e.code() == condition::io);
      CHECK(ERR_peek_error() == 0);
      return std::string(e.context());
    };
    const auto generated = b::EllSwiftKey::generate();
    REQUIRE_FALSE(generated);
    CHECK(said(generated.error()).starts_with("OpenSSL's RAND_priv_bytes ("));
    {
      b::PacketCipher c(b::EllSwiftKey(array<32>("0000000000000000000000000000000000000000000000000000000000000001"), peer));
      const auto r = c.initialize(peer, true, network::regtest);
      REQUIRE_FALSE(r);
      // (the ECDH's ladder draws blinding from the random source: the
      // failure comes there, before HKDF)
      const std::string context = said(r.error());
      CHECK(context.starts_with("OpenSSL's "));
      CHECK(context.find("unsupported") != std::string::npos);
      CHECK_FALSE(c.initialized());
    }
    b::FSChaCha20 lengths(b::Bytes32{});
    std::array<std::byte, 3> chunk{};
    const auto crypted = lengths.crypt(chunk, chunk);
    REQUIRE_FALSE(crypted);
    CHECK(said(crypted.error()).starts_with("OpenSSL's EVP_CipherInit_ex"));
    b::FSChaCha20Poly1305 contents(b::Bytes32{});
    std::vector<std::byte> text(20);
    const auto sealed = contents.seal(text, {});
    REQUIRE_FALSE(sealed);
    CHECK(said(sealed.error()).starts_with("OpenSSL's EVP_CipherInit_ex"));
    OSSL_LIB_CTX_set0_default(previous);
    OSSL_PROVIDER_unload(null);
    OSSL_LIB_CTX_free(context);
  });
  bare.join();
}
