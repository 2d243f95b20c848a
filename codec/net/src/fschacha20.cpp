// BIP324's rekeying ciphers on OpenSSL's ChaCha20 and ChaCha20-Poly1305,
// and what every BIP324 file here does with a failed OpenSSL call: an
// error, v2_crypto_failure, never an exception (detail::openssl_failure).
#include <blockwire/io/little_endian.hpp>
#include <blockwire/net/bip324.hpp>
#include <blockwire/net/error.hpp>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

namespace blockwire::net::bip324 {

namespace detail {

// The tests' seam, declared in no header (the tests declare it
// themselves): when not 0, the checked OpenSSL calls of this thread count
// it down, and the call that brings it to 0 is taken as failed, as an
// allocation failing or a provider missing would make it. Nothing in the
// library sets it.
thread_local std::uint64_t fail_openssl_call = 0;

bool openssl_succeeded(bool ok) noexcept {
  if (fail_openssl_call != 0 && --fail_openssl_call == 0) return false;
  return ok;
}

error openssl_failure(const char* call) {
  std::string what = std::string("OpenSSL's ") + call;
  // The first error queued is the cause (a fetch's "unsupported", a
  // malloc's failure); none when the tests injected it.
  if (const unsigned long code = ERR_get_error(); code != 0) {
    char reason[256];
    ERR_error_string_n(code, reason, sizeof reason);
    what += std::string(" (") + reason + ")";
  }
  ERR_clear_error();  // what is said is said: nothing is left for another call to find
  return error(net::errc::v2_crypto_failure).in(what);
}

}  // namespace detail

struct detail::CipherContext {};  // never made: the pointer is OpenSSL's EVP_CIPHER_CTX

void detail::CipherContextFree::operator()(CipherContext* c) const noexcept { EVP_CIPHER_CTX_free(reinterpret_cast<EVP_CIPHER_CTX*>(c)); }

namespace {

EVP_CIPHER_CTX* evp(const detail::CipherContextPtr& c) noexcept { return reinterpret_cast<EVP_CIPHER_CTX*>(c.get()); }

// A context for `cipher` (encrypting), when `context` has none yet.
result<void> make_context(detail::CipherContextPtr& context, const EVP_CIPHER* cipher) {
  if (context) return success();
  detail::CipherContextPtr made(reinterpret_cast<detail::CipherContext*>(EVP_CIPHER_CTX_new()));
  if (!detail::openssl_succeeded(made != nullptr)) return detail::openssl_failure("EVP_CIPHER_CTX_new");
  // The cipher once; each message or rekeying then sets only the key and nonce.
  const int ok = EVP_CipherInit_ex(evp(made), cipher, nullptr, nullptr, nullptr, 1);
  if (!detail::openssl_succeeded(ok == 1)) return detail::openssl_failure("EVP_CipherInit_ex (the cipher)");
  context = std::move(made);
  return success();
}

result<void> check(int ok, const char* call) {
  if (!detail::openssl_succeeded(ok == 1)) return detail::openssl_failure(call);
  return success();
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
result<void> update(EVP_CIPHER_CTX* c, std::span<const std::byte> in, std::byte* out) {
  while (!in.empty()) {
    const int n = static_cast<int>(std::min<std::size_t>(in.size(), 1 << 30));
    int written = 0;
    if (auto r = check(EVP_CipherUpdate(c, bytes(out), &written, bytes(in.data()), n), "EVP_CipherUpdate"); !r) return r;
    in = in.subspan(static_cast<std::size_t>(n));
    out += n;
  }
  return success();
}

// A cipher that failed part way has lost its place in the stream: it says
// so again at every later call.
error lost_place() { return error(net::errc::v2_crypto_failure).in("a BIP324 cipher failed before and has lost its place in the stream"); }

}  // namespace

FSChaCha20::FSChaCha20(const Bytes32& key) noexcept : key_(key) {}
FSChaCha20::FSChaCha20(FSChaCha20&&) noexcept = default;
FSChaCha20& FSChaCha20::operator=(FSChaCha20&&) noexcept = default;
FSChaCha20::~FSChaCha20() = default;  // (the key a Secret)

result<void> FSChaCha20::start() {
  if (auto r = make_context(context_, EVP_chacha20()); !r) return r;
  // OpenSSL's ChaCha20 IV: the 32-bit block counter, then the nonce.
  std::array<std::byte, 16> iv{};
  const auto n = nonce(0, rekeys_);
  std::copy(n.begin(), n.end(), iv.begin() + 4);
  return check(EVP_CipherInit_ex(evp(context_), nullptr, nullptr, bytes(key_.get().data()), bytes(iv.data()), 1), "EVP_CipherInit_ex");
}

result<void> FSChaCha20::crypt(std::span<const std::byte> in, std::span<std::byte> out) {
  // The caller's mistake, whatever a peer sends (a length is always 3
  // bytes): an error, with nothing done.
  if (out.size() != in.size()) return net::errc::v2_wrong_buffer_size;
  if (failed_) return lost_place();
  auto r = [&]() -> result<void> {
    if (!context_) {
      if (auto s = start(); !s) return s;
    }
    if (auto s = update(evp(context_), in, out.data()); !s) return s;
    if (++chunks_ == rekey_interval) {
      // The next 32 bytes of the stream are the next key; the rest of the
      // block is dropped (the block counter starts again at 0).
      std::array<std::byte, 32> zeros{};
      if (auto s = update(evp(context_), zeros, key_.bytes().data()); !s) return s;
      ++rekeys_;
      chunks_ = 0;
      return start();
    }
    return success();
  }();
  if (!r) {
    failed_ = true;
    OPENSSL_cleanse(out.data(), out.size());  // (a half-made output is nobody's)
  }
  return r;
}

FSChaCha20Poly1305::FSChaCha20Poly1305(const Bytes32& key) noexcept : key_(key) {}
FSChaCha20Poly1305::FSChaCha20Poly1305(FSChaCha20Poly1305&&) noexcept = default;
FSChaCha20Poly1305& FSChaCha20Poly1305::operator=(FSChaCha20Poly1305&&) noexcept = default;
FSChaCha20Poly1305::~FSChaCha20Poly1305() = default;  // (the key a Secret)

// Opening decrypts as it authenticates (OpenSSL's AEAD checks the tag at
// the end, in constant time): a tag that fails, or any failure after the
// first byte was decrypted, zeroes the text, so that no unauthenticated
// plaintext is left in the caller's buffer. (Checking the tag first, as
// Core does, would take Poly1305 and ChaCha20 apart: two passes over every
// block where this takes one.)
result<void> FSChaCha20Poly1305::crypt(std::span<std::byte> text, std::span<const std::byte> aad, bool encrypt) {
  // The caller's mistake: a packet's length says its size, the tag included.
  if (text.size() < tag_size || aad.size() > INT_MAX) return net::errc::v2_wrong_buffer_size;
  if (failed_) return lost_place();
  const std::size_t plain = text.size() - tag_size;
  bool authentic = true;
  auto r = [&]() -> result<void> {
    if (auto s = make_context(context_, EVP_chacha20_poly1305()); !s) return s;
    EVP_CIPHER_CTX* c = evp(context_);
    const auto n = nonce(static_cast<std::uint32_t>(messages_ % rekey_interval), messages_ / rekey_interval);
    if (auto s =
            check(EVP_CipherInit_ex(c, nullptr, nullptr, bytes(key_.get().data()), bytes(n.data()), encrypt ? 1 : 0), "EVP_CipherInit_ex");
        !s)
      return s;
    int written = 0;
    if (!aad.empty()) {
      if (auto s = check(EVP_CipherUpdate(c, nullptr, &written, bytes(aad.data()), static_cast<int>(aad.size())), "EVP_CipherUpdate (AAD)");
          !s)
        return s;
    }
    if (auto s = update(c, text.first(plain), text.data()); !s) return s;
    std::array<std::byte, 16> none;  // a stream cipher leaves nothing for the end
    if (encrypt) {
      if (auto s = check(EVP_CipherFinal_ex(c, bytes(none.data()), &written), "EVP_CipherFinal_ex"); !s) return s;
      if (auto s = check(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, tag_size, text.data() + plain), "EVP_CIPHER_CTX_ctrl (get tag)"); !s)
        return s;
    } else {
      if (auto s = check(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, tag_size, text.data() + plain), "EVP_CIPHER_CTX_ctrl (set tag)"); !s)
        return s;
      // 0: the tag is not the text's (OpenSSL compares with CRYPTO_memcmp).
      authentic = EVP_CipherFinal_ex(c, bytes(none.data()), &written) == 1;
      if (!authentic) ERR_clear_error();
    }
    if ((messages_ + 1) % rekey_interval == 0) {
      // The next key: the first 32 bytes of 32 zero bytes sealed with the
      // nonce's first word all ones.
      const auto k = nonce(0xffffffff, messages_ / rekey_interval);
      if (auto s = check(EVP_CipherInit_ex(c, nullptr, nullptr, bytes(key_.get().data()), bytes(k.data()), 1), "EVP_CipherInit_ex (rekey)");
          !s)
        return s;
      std::array<std::byte, 32> zeros{};
      if (auto s = update(c, zeros, key_.bytes().data()); !s) return s;
      if (auto s = check(EVP_CipherFinal_ex(c, bytes(none.data()), &written), "EVP_CipherFinal_ex (rekey)"); !s) return s;
    }
    ++messages_;
    return success();
  }();
  if (!r) failed_ = true;
  if (!r || !authentic) OPENSSL_cleanse(text.data(), text.size());
  if (!r) return r;
  if (!authentic) return net::errc::v2_bad_tag;
  return success();
}

result<void> FSChaCha20Poly1305::seal(std::span<std::byte> text, std::span<const std::byte> aad) { return crypt(text, aad, true); }
result<void> FSChaCha20Poly1305::open(std::span<std::byte> text, std::span<const std::byte> aad) { return crypt(text, aad, false); }

}  // namespace blockwire::net::bip324
