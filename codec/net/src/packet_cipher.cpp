// A v2 connection's packets (BIP324): the keys from HKDF-SHA256 over the
// shared secret, then each packet's length and contents sealed or opened.
#include <blockwire/io/little_endian.hpp>
#include <blockwire/net/bip324.hpp>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

namespace blockwire::net::bip324 {
namespace {

struct KdfFree {
  void operator()(EVP_KDF* k) const noexcept { EVP_KDF_free(k); }
  void operator()(EVP_KDF_CTX* c) const noexcept { EVP_KDF_CTX_free(c); }
};

// HKDF-Expand(HKDF-Extract(salt, secret), info, 32).
class Hkdf {
 public:
  Hkdf(std::span<const std::byte> salt, const Bytes32& secret) : salt_(salt), secret_(secret) {
    std::unique_ptr<EVP_KDF, KdfFree> kdf(EVP_KDF_fetch(nullptr, OSSL_KDF_NAME_HKDF, nullptr));
    if (!kdf) throw std::bad_alloc();
    context_.reset(EVP_KDF_CTX_new(kdf.get()));
    if (!context_) throw std::bad_alloc();
  }

  template <std::size_t N>
  std::array<std::byte, N> expand(std::string_view info) {
    std::array<std::byte, N> out;
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<std::byte*>(secret_.data()), secret_.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<std::byte*>(salt_.data()), salt_.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(info.data()), info.size()),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_KDF_derive(context_.get(), reinterpret_cast<unsigned char*>(out.data()), N, params) != 1) throw std::bad_alloc();
    return out;
  }

 private:
  std::span<const std::byte> salt_;
  const Bytes32& secret_;
  std::unique_ptr<EVP_KDF_CTX, KdfFree> context_;
};

}  // namespace

std::vector<std::byte> random_garbage() {
  std::array<std::byte, 2> length;
  std::vector<std::byte> garbage;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(length.data()), 2) != 1) return garbage;  // none: still a valid handshake
  garbage.resize(from_le<std::uint16_t>(length) % (max_garbage + 1));
  if (RAND_bytes(reinterpret_cast<unsigned char*>(garbage.data()), static_cast<int>(garbage.size())) != 1) garbage.clear();
  return garbage;
}

struct PacketCipher::Ciphers {
  Ciphers(const Bytes32& send_l, const Bytes32& send_p, const Bytes32& receive_l, const Bytes32& receive_p)
      : send_length(send_l), send_contents(send_p), receive_length(receive_l), receive_contents(receive_p) {}
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

void PacketCipher::initialize(const EllSwiftPublicKey& theirs, bool initiator, network net) {
  Bytes32 secret = key_.shared_secret(theirs, initiator);
  constexpr std::string_view salt_text = "bitcoin_v2_shared_secret";
  std::array<std::byte, salt_text.size() + 4> salt;
  std::memcpy(salt.data(), salt_text.data(), salt_text.size());
  const Magic m = magic(net);
  std::copy(m.begin(), m.end(), salt.begin() + salt_text.size());
  Hkdf hkdf(salt, secret);
  auto initiator_l = hkdf.expand<32>("initiator_L");
  auto initiator_p = hkdf.expand<32>("initiator_P");
  auto responder_l = hkdf.expand<32>("responder_L");
  auto responder_p = hkdf.expand<32>("responder_P");
  const auto terminators = hkdf.expand<32>("garbage_terminators");
  if (initiator) {
    ciphers_ = std::make_unique<Ciphers>(initiator_l, initiator_p, responder_l, responder_p);
  } else {
    ciphers_ = std::make_unique<Ciphers>(responder_l, responder_p, initiator_l, initiator_p);
  }
  const auto first = std::span(terminators).first<garbage_terminator_size>();
  const auto second = std::span(terminators).last<garbage_terminator_size>();
  std::copy(first.begin(), first.end(), (initiator ? ciphers_->send_terminator : ciphers_->receive_terminator).begin());
  std::copy(second.begin(), second.end(), (initiator ? ciphers_->receive_terminator : ciphers_->send_terminator).begin());
  ciphers_->session_id = hkdf.expand<32>("session_id");
  // Forward secrecy: nothing the keys came from is kept, our ephemeral
  // secret included.
  for (auto* k : {&secret, &initiator_l, &initiator_p, &responder_l, &responder_p}) OPENSSL_cleanse(k->data(), k->size());
  key_.wipe();
}

const PacketCipher::Terminator& PacketCipher::send_garbage_terminator() const noexcept { return ciphers_->send_terminator; }
const PacketCipher::Terminator& PacketCipher::receive_garbage_terminator() const noexcept { return ciphers_->receive_terminator; }
const Bytes32& PacketCipher::session_id() const noexcept { return ciphers_->session_id; }

void PacketCipher::seal(std::span<std::byte> packet, std::span<const std::byte> aad, bool ignore) {
  const std::size_t contents = packet.size() - overhead;
  const auto length = to_le(static_cast<std::uint32_t>(contents));
  packet[length_size] = ignore ? ignore_bit : std::byte{0};
  ciphers_->send_contents.seal(packet.subspan(length_size), aad);
  ciphers_->send_length.crypt(std::span(length).first<length_size>(), packet.first<length_size>());
}

void PacketCipher::encrypt(std::span<const std::byte> contents, std::span<const std::byte> aad, bool ignore, std::span<std::byte> out) {
  std::copy(contents.begin(), contents.end(), out.begin() + length_size + header_size);
  seal(out.first(contents.size() + overhead), aad, ignore);
}

std::uint32_t PacketCipher::decrypt_length(std::span<const std::byte, length_size> encrypted) {
  std::array<std::byte, 4> length{};
  ciphers_->receive_length.crypt(encrypted, std::span(length).first<length_size>());
  return from_le<std::uint32_t>(length);
}

bool PacketCipher::open(std::span<std::byte> rest, std::span<const std::byte> aad, bool& ignore) {
  if (!ciphers_->receive_contents.open(rest, aad)) return false;
  ignore = (rest[0] & ignore_bit) != std::byte{0};
  return true;
}

}  // namespace blockwire::net::bip324
