// A v2 connection's packets (BIP324): the keys from HKDF-SHA256 over the
// shared secret, then each packet's length and contents sealed or opened.
#include <blockwire/io/little_endian.hpp>
#include <blockwire/net/bip324.hpp>
#include <blockwire/net/error.hpp>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string_view>

namespace blockwire::net::bip324 {
namespace {

struct KdfFree {
  void operator()(EVP_KDF* k) const noexcept { EVP_KDF_free(k); }
  void operator()(EVP_KDF_CTX* c) const noexcept { EVP_KDF_CTX_free(c); }
};

constexpr std::string_view salt_text = "bitcoin_v2_shared_secret";
using Salt = std::array<std::byte, salt_text.size() + 4>;

// HKDF-Expand(HKDF-Extract(salt, secret), info, 32). Owns its copy of the
// secret (wiped with it); OpenSSL's context clears its own when freed.
class Hkdf {
 public:
  Hkdf(const Salt& salt, Secret secret) noexcept : salt_(salt), secret_(std::move(secret)) {}

  result<void> start() {
    std::unique_ptr<EVP_KDF, KdfFree> kdf(EVP_KDF_fetch(nullptr, OSSL_KDF_NAME_HKDF, nullptr));
    // (no HKDF: a provider missing, not memory)
    if (!detail::openssl_succeeded(kdf != nullptr)) return detail::openssl_failure("EVP_KDF_fetch(HKDF)");
    context_.reset(EVP_KDF_CTX_new(kdf.get()));
    if (!detail::openssl_succeeded(context_ != nullptr)) return detail::openssl_failure("EVP_KDF_CTX_new");
    return success();
  }

  result<void> expand(std::string_view info, std::span<std::byte, 32> out) {
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<std::byte*>(secret_.get().data()), secret_.get().size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt_.data(), salt_.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(info.data()), info.size()),
        OSSL_PARAM_construct_end(),
    };
    const int ok = EVP_KDF_derive(context_.get(), reinterpret_cast<unsigned char*>(out.data()), out.size(), params);
    if (!detail::openssl_succeeded(ok == 1)) {
      OPENSSL_cleanse(out.data(), out.size());
      return detail::openssl_failure("EVP_KDF_derive(HKDF-SHA256)");
    }
    return success();
  }

 private:
  Salt salt_;
  Secret secret_;
  std::unique_ptr<EVP_KDF_CTX, KdfFree> context_;
};

error lost_place() { return error(net::errc::v2_crypto_failure).in("the packet cipher failed before: its streams have lost their place"); }

}  // namespace

std::vector<std::byte> random_garbage() {
  std::array<std::byte, 2> length;
  std::vector<std::byte> garbage;
  // None when the random source fails: still a valid handshake.
  if (!detail::openssl_succeeded(RAND_bytes(reinterpret_cast<unsigned char*>(length.data()), 2) == 1)) {
    ERR_clear_error();
    return garbage;
  }
  garbage.resize(from_le<std::uint16_t>(length) % (max_garbage + 1));
  if (!detail::openssl_succeeded(RAND_bytes(reinterpret_cast<unsigned char*>(garbage.data()), static_cast<int>(garbage.size())) == 1)) {
    ERR_clear_error();
    garbage.clear();
  }
  return garbage;
}

struct PacketCipher::Ciphers {
  Ciphers(const Secret& send_l, const Secret& send_p, const Secret& receive_l, const Secret& receive_p) noexcept
      : send_length(send_l.get()), send_contents(send_p.get()), receive_length(receive_l.get()), receive_contents(receive_p.get()) {}
  FSChaCha20 send_length;
  FSChaCha20Poly1305 send_contents;
  FSChaCha20 receive_length;
  FSChaCha20Poly1305 receive_contents;
  Terminator send_terminator;
  Terminator receive_terminator;
  Bytes32 session_id;
};

PacketCipher::PacketCipher(EllSwiftKey key) noexcept : key_(std::move(key)) {}
PacketCipher::PacketCipher(PacketCipher&&) noexcept = default;
PacketCipher& PacketCipher::operator=(PacketCipher&&) noexcept = default;
PacketCipher::~PacketCipher() = default;

result<void> PacketCipher::initialize(const EllSwiftPublicKey& theirs, bool initiator, network net) {
  assert(!ciphers_ && "initialize() once");
  auto secret = key_.shared_secret(theirs, initiator);
  if (!secret) return secret.error();
  Salt salt;
  std::memcpy(salt.data(), salt_text.data(), salt_text.size());
  const Magic m = magic(net);
  std::copy(m.begin(), m.end(), salt.begin() + salt_text.size());
  Hkdf hkdf(salt, std::move(secret).value());
  if (auto r = hkdf.start(); !r) return r;
  // Every key in a Secret: wiped on every way out, a failure's included.
  Secret initiator_l, initiator_p, responder_l, responder_p;
  Bytes32 terminators, session_id;
  for (const auto& [info, out] :
       {std::pair{"initiator_L", initiator_l.bytes()}, std::pair{"initiator_P", initiator_p.bytes()},
        std::pair{"responder_L", responder_l.bytes()}, std::pair{"responder_P", responder_p.bytes()},
        std::pair{"garbage_terminators", std::span(terminators)}, std::pair{"session_id", std::span(session_id)}}) {
    if (auto r = hkdf.expand(info, out); !r) return r;
  }
  auto made = initiator ? std::make_unique<Ciphers>(initiator_l, initiator_p, responder_l, responder_p)
                        : std::make_unique<Ciphers>(responder_l, responder_p, initiator_l, initiator_p);
  const auto first = std::span(terminators).first<garbage_terminator_size>();
  const auto second = std::span(terminators).last<garbage_terminator_size>();
  std::copy(first.begin(), first.end(), (initiator ? made->send_terminator : made->receive_terminator).begin());
  std::copy(second.begin(), second.end(), (initiator ? made->receive_terminator : made->send_terminator).begin());
  made->session_id = session_id;
  ciphers_ = std::move(made);
  // Forward secrecy: nothing the keys came from is kept, our ephemeral
  // secret included (the shared secret goes with `hkdf`).
  key_.wipe();
  return success();
}

const PacketCipher::Terminator& PacketCipher::send_garbage_terminator() const noexcept {
  assert(ciphers_ && "initialize() first");
  return ciphers_->send_terminator;
}
const PacketCipher::Terminator& PacketCipher::receive_garbage_terminator() const noexcept {
  assert(ciphers_ && "initialize() first");
  return ciphers_->receive_terminator;
}
const Bytes32& PacketCipher::session_id() const noexcept {
  assert(ciphers_ && "initialize() first");
  return ciphers_->session_id;
}

namespace {
// `r`, `failed` set when it is OpenSSL's failure: that leaves a stream out
// of step with the peer's (the caller's wrong sizes, which do nothing, and
// a bad tag, which counts the message as the peer did, do not).
result<void> tracked(result<void> r, bool& failed) {
  if (!r && r.error().code() == net::errc::v2_crypto_failure) failed = true;
  return r;
}
}  // namespace

result<void> PacketCipher::seal(std::span<std::byte> packet, std::span<const std::byte> aad, bool ignore) {
  assert(ciphers_ && "initialize() first");
  // The caller's sizes (the connection's are always right): errors.
  if (packet.size() < overhead || packet.size() - overhead > max_contents) return net::errc::v2_wrong_buffer_size;
  if (failed_) return lost_place();
  const std::size_t contents = packet.size() - overhead;
  const auto length = to_le(static_cast<std::uint32_t>(contents));
  packet[length_size] = ignore ? ignore_bit : std::byte{0};
  if (auto r = tracked(ciphers_->send_contents.seal(packet.subspan(length_size), aad), failed_); !r) return r;
  return tracked(ciphers_->send_length.crypt(std::span(length).first<length_size>(), packet.first<length_size>()), failed_);
}

result<void> PacketCipher::encrypt(std::span<const std::byte> contents, std::span<const std::byte> aad, bool ignore,
                                   std::span<std::byte> out) {
  if (out.size() != contents.size() + overhead) return net::errc::v2_wrong_buffer_size;
  if (!contents.empty()) std::memmove(out.data() + length_size + header_size, contents.data(), contents.size());
  return seal(out, aad, ignore);
}

result<std::uint32_t> PacketCipher::decrypt_length(std::span<const std::byte, length_size> encrypted) {
  assert(ciphers_ && "initialize() first");
  if (failed_) return lost_place();
  std::array<std::byte, 4> length{};
  if (auto r = tracked(ciphers_->receive_length.crypt(encrypted, std::span(length).first<length_size>()), failed_); !r) return r.error();
  return from_le<std::uint32_t>(length);
}

result<void> PacketCipher::open(std::span<std::byte> rest, std::span<const std::byte> aad, bool& ignore) {
  assert(ciphers_ && "initialize() first");
  // Shorter than a header and a tag: the caller's (a packet's length says
  // how many bytes follow it; the connection reads them all).
  if (rest.size() < header_size + FSChaCha20Poly1305::tag_size) return net::errc::v2_wrong_buffer_size;
  if (failed_) return lost_place();
  if (auto r = tracked(ciphers_->receive_contents.open(rest, aad), failed_); !r) return r;
  ignore = (rest[0] & ignore_bit) != std::byte{0};
  return success();
}

}  // namespace blockwire::net::bip324
