// BIP324's rekeying ciphers on OpenSSL's ChaCha20 and ChaCha20-Poly1305.
// A failure of OpenSSL's on a context already set up is an allocation's:
// std::bad_alloc.
#include <blockwire/io/little_endian.hpp>
#include <blockwire/net/bip324.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <new>

namespace blockwire::net::bip324 {

struct detail::CipherContext {};  // never made: the pointer is OpenSSL's EVP_CIPHER_CTX

void detail::CipherContextFree::operator()(CipherContext* c) const noexcept { EVP_CIPHER_CTX_free(reinterpret_cast<EVP_CIPHER_CTX*>(c)); }

namespace {

EVP_CIPHER_CTX* evp(const detail::CipherContextPtr& c) noexcept { return reinterpret_cast<EVP_CIPHER_CTX*>(c.get()); }

detail::CipherContextPtr new_context() {
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  if (c == nullptr) throw std::bad_alloc();
  return detail::CipherContextPtr(reinterpret_cast<detail::CipherContext*>(c));
}

void check(int ok) {
  if (ok != 1) throw std::bad_alloc();
}

const unsigned char* bytes(const std::byte* p) noexcept { return reinterpret_cast<const unsigned char*>(p); }
unsigned char* bytes(std::byte* p) noexcept { return reinterpret_cast<unsigned char*>(p); }

// A 96-bit nonce: a 32-bit word, then a 64-bit one, both little-endian.
std::array<std::byte, 12> nonce(std::uint32_t first, std::uint64_t second) {
  std::array<std::byte, 12> n;
  const auto a = to_le(first);
  const auto b = to_le(second);
  std::copy(a.begin(), a.end(), n.begin());
  std::copy(b.begin(), b.end(), n.begin() + 4);
  return n;
}

// Runs `in` through the context into `out` (the same size), in bounded
// steps (OpenSSL counts in int).
void update(EVP_CIPHER_CTX* c, std::span<const std::byte> in, std::byte* out) {
  while (!in.empty()) {
    const int n = static_cast<int>(std::min<std::size_t>(in.size(), 1 << 30));
    int written = 0;
    check(EVP_CipherUpdate(c, bytes(out), &written, bytes(in.data()), n));
    in = in.subspan(static_cast<std::size_t>(n));
    out += n;
  }
}

}  // namespace

FSChaCha20::FSChaCha20(const Bytes32& key) : key_(key), context_(new_context()) { start(); }
FSChaCha20::~FSChaCha20() { OPENSSL_cleanse(key_.data(), key_.size()); }

void FSChaCha20::start() {
  // OpenSSL's ChaCha20 IV: the 32-bit block counter, then the nonce.
  std::array<std::byte, 16> iv{};
  const auto n = nonce(0, rekeys_);
  std::copy(n.begin(), n.end(), iv.begin() + 4);
  check(EVP_EncryptInit_ex(evp(context_), EVP_chacha20(), nullptr, bytes(key_.data()), bytes(iv.data())));
}

void FSChaCha20::crypt(std::span<const std::byte> in, std::span<std::byte> out) {
  update(evp(context_), in, out.data());
  if (++chunks_ == rekey_interval) {
    // The next 32 bytes of the stream are the next key; the rest of the
    // block is dropped (the block counter starts again at 0).
    std::array<std::byte, 32> zeros{};
    update(evp(context_), zeros, key_.data());
    ++rekeys_;
    chunks_ = 0;
    start();
  }
}

FSChaCha20Poly1305::FSChaCha20Poly1305(const Bytes32& key) : key_(key), context_(new_context()) {
  // The cipher once; each message then sets only its key and nonce.
  check(EVP_CipherInit_ex(evp(context_), EVP_chacha20_poly1305(), nullptr, nullptr, nullptr, 1));
}
FSChaCha20Poly1305::~FSChaCha20Poly1305() { OPENSSL_cleanse(key_.data(), key_.size()); }

bool FSChaCha20Poly1305::crypt(std::span<std::byte> text, std::span<const std::byte> aad, bool encrypt) {
  EVP_CIPHER_CTX* c = evp(context_);
  const std::size_t plain = text.size() - tag_size;
  const auto n = nonce(static_cast<std::uint32_t>(messages_ % rekey_interval), messages_ / rekey_interval);
  check(EVP_CipherInit_ex(c, nullptr, nullptr, bytes(key_.data()), bytes(n.data()), encrypt ? 1 : 0));
  int written = 0;
  if (!aad.empty()) check(EVP_CipherUpdate(c, nullptr, &written, bytes(aad.data()), static_cast<int>(aad.size())));
  update(c, text.first(plain), text.data());
  bool ok = true;
  std::array<std::byte, 16> none;  // a stream cipher leaves nothing for the end
  if (encrypt) {
    check(EVP_CipherFinal_ex(c, bytes(none.data()), &written));
    check(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, tag_size, text.data() + plain));
  } else {
    check(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, tag_size, text.data() + plain));
    ok = EVP_CipherFinal_ex(c, bytes(none.data()), &written) == 1;
  }
  if ((messages_ + 1) % rekey_interval == 0) {
    // The next key: the first 32 bytes of 32 zero bytes sealed with the
    // nonce's first word all ones.
    const auto k = nonce(0xffffffff, messages_ / rekey_interval);
    check(EVP_CipherInit_ex(c, nullptr, nullptr, bytes(key_.data()), bytes(k.data()), 1));
    std::array<std::byte, 32> zeros{};
    update(c, zeros, key_.data());
    check(EVP_CipherFinal_ex(c, bytes(none.data()), &written));
  }
  ++messages_;
  return ok;
}

void FSChaCha20Poly1305::seal(std::span<std::byte> text, std::span<const std::byte> aad) { (void)crypt(text, aad, true); }
bool FSChaCha20Poly1305::open(std::span<std::byte> text, std::span<const std::byte> aad) { return crypt(text, aad, false); }

}  // namespace blockwire::net::bip324
