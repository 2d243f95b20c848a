// BIP324's cryptography, the v2 transport's: ElligatorSwift-encoded
// public keys and the x-only ECDH over them, the rekeying ciphers
// (FSChaCha20 for lengths, FSChaCha20Poly1305 for contents) and the packet
// cipher a connection holds. Built on OpenSSL (its secp256k1 group, big
// numbers, ChaCha20, Poly1305, HKDF and random source): Debian 12's
// libsecp256k1 has no ElligatorSwift module.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace blockwire::net::bip324 {

// Failures (every function that can fail returns result<>; nothing here
// throws but std::bad_alloc from the standard library's own containers):
// net::errc::v2_crypto_failure when OpenSSL fails (an allocation, a
// provider or algorithm it cannot load), its context naming the call and
// OpenSSL's reason, OpenSSL's error queue cleared; v2_wrong_buffer_size
// when a buffer given is not the size the call needs (nothing done then);
// v2_bad_tag when a packet does not authenticate. A cipher that failed
// part way (OpenSSL, not the caller's buffers) has lost its place in the
// stream: every later call fails with v2_crypto_failure. Calling the
// packet cipher before `initialize` succeeded is a bug of the caller's,
// never something a peer causes: asserted.

using Bytes32 = std::array<std::byte, 32>;
// u then t, 32 bytes each (big-endian): a point's x, uniformly encoded.
using EllSwiftPublicKey = std::array<std::byte, 64>;

// 32 secret bytes (a private key, an ECDH x, a shared secret, a cipher's
// key): wiped (OPENSSL_cleanse) when dropped, when moved from and before
// being overwritten. Not copyable: each secret lives in one place.
class Secret {
 public:
  Secret() noexcept : bytes_{} {}
  explicit Secret(const Bytes32& bytes) noexcept : bytes_(bytes) {}
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  Secret(Secret&& other) noexcept;
  Secret& operator=(Secret&& other) noexcept;
  ~Secret() { wipe(); }
  void wipe() noexcept;

  const Bytes32& get() const noexcept { return bytes_; }
  std::span<std::byte, 32> bytes() noexcept { return bytes_; }
  // In constant time.
  friend bool operator==(const Secret& a, const Secret& b) noexcept;

 private:
  Bytes32 bytes_;
};

// XSwiftEC: the x coordinate on secp256k1 an encoding stands for. Every 64
// bytes decode to one (u and t are taken modulo p).
result<Bytes32> ellswift_decode(const EllSwiftPublicKey& encoded);

// XSwiftECInv: a t with XSwiftEC(u, t) = x, the one `which` (0..7) selects,
// or none. `x` must be on the curve.
result<std::optional<Bytes32>> xswiftec_inv(const Bytes32& x, const Bytes32& u, unsigned which);

// An ephemeral key: the secret and its public key's encoding.
class EllSwiftKey {
 public:
  // A secret from OpenSSL's private random source, its x encoded with a
  // random u and case (XElligatorSwift).
  static result<EllSwiftKey> generate();
  // A secret and an encoding given (BIP324's test vectors); the encoding
  // must be of the secret's public key.
  EllSwiftKey(const Bytes32& secret, const EllSwiftPublicKey& encoding) noexcept;
  EllSwiftKey(EllSwiftKey&&) noexcept = default;
  EllSwiftKey& operator=(EllSwiftKey&&) noexcept = default;

  const EllSwiftPublicKey& public_key() const noexcept { return public_; }
  // Forgets the secret (the public key stays): once a session's keys are
  // derived, nothing that could derive them again is kept.
  void wipe() noexcept { secret_.wipe(); }
  // x(secret · lift_x(XSwiftEC(theirs))).
  result<Secret> ecdh_x(const EllSwiftPublicKey& theirs) const;
  // BIP324's shared secret: the tagged hash ("bip324_ellswift_xonly_ecdh")
  // of both encodings, the initiator's first, and the ECDH x.
  result<Secret> shared_secret(const EllSwiftPublicKey& theirs, bool initiator) const;

 private:
  Secret secret_;  // (wiped when the key is dropped)
  EllSwiftPublicKey public_;
};

// Packets and messages a key serves before it is replaced.
inline constexpr std::uint32_t rekey_interval = 224;

// The garbage a side may send after its key, at most.
inline constexpr std::size_t max_garbage = 4095;
// Garbage for a handshake: a random length up to max_garbage, random bytes
// (none when the random source fails: still a valid handshake).
std::vector<std::byte> random_garbage();

namespace detail {
struct CipherContext;  // OpenSSL's, owned
struct CipherContextFree {
  void operator()(CipherContext* c) const noexcept;
};
using CipherContextPtr = std::unique_ptr<CipherContext, CipherContextFree>;

// For the net library's own files: whether an OpenSSL call that returned
// `ok` succeeded (a countdown that only the tests can reach may fail it),
// and the error a failed one is (v2_crypto_failure, with `call` and
// OpenSSL's reason as context; the error queue then cleared).
bool openssl_succeeded(bool ok) noexcept;
error openssl_failure(const char* call);
}  // namespace detail

// ChaCha20 as one stream over many chunks (the packets' lengths), a new key
// every rekey_interval chunks: the next 32 bytes of the stream.
class FSChaCha20 {
 public:
  explicit FSChaCha20(const Bytes32& key) noexcept;
  FSChaCha20(FSChaCha20&&) noexcept;
  FSChaCha20& operator=(FSChaCha20&&) noexcept;
  ~FSChaCha20();  // wipes the key
  // `in` and `out` the same size (else v2_wrong_buffer_size); they may be
  // the same bytes.
  result<void> crypt(std::span<const std::byte> in, std::span<std::byte> out);

 private:
  result<void> start();
  Secret key_;
  std::uint64_t rekeys_ = 0;
  std::uint32_t chunks_ = 0;
  bool failed_ = false;
  detail::CipherContextPtr context_;  // made at the first chunk
};

// ChaCha20-Poly1305 (RFC 8439) with the nonce counting messages, a new key
// every rekey_interval messages.
class FSChaCha20Poly1305 {
 public:
  static constexpr std::size_t tag_size = 16;
  explicit FSChaCha20Poly1305(const Bytes32& key) noexcept;
  FSChaCha20Poly1305(FSChaCha20Poly1305&&) noexcept;
  FSChaCha20Poly1305& operator=(FSChaCha20Poly1305&&) noexcept;
  ~FSChaCha20Poly1305();  // wipes the key
  // `text` (tag_size bytes longer than the plaintext, the tag last) sealed
  // in place: the plaintext in front is encrypted and the tag written.
  // A text shorter than the tag: v2_wrong_buffer_size, the message not
  // counted.
  result<void> seal(std::span<std::byte> text, std::span<const std::byte> aad);
  // The reverse, in place. A tag that is not the text's: v2_bad_tag, the
  // text zeroed (no unauthenticated plaintext is left), the message
  // counted all the same.
  result<void> open(std::span<std::byte> text, std::span<const std::byte> aad);

 private:
  result<void> crypt(std::span<std::byte> text, std::span<const std::byte> aad, bool encrypt);
  Secret key_;
  std::uint64_t messages_ = 0;
  bool failed_ = false;
  detail::CipherContextPtr context_;  // made at the first message
};

// One side of a v2 connection's packets: its ephemeral key, then (once the
// peer's key is known) the ciphers of both directions, the garbage
// terminators and the session id.
//
// A packet is: its contents' length (3 bytes, FSChaCha20), then the header
// byte and the contents with the tag (FSChaCha20Poly1305).
class PacketCipher {
 public:
  static constexpr std::size_t length_size = 3;
  static constexpr std::size_t header_size = 1;
  static constexpr std::size_t overhead = length_size + header_size + FSChaCha20Poly1305::tag_size;
  static constexpr std::size_t garbage_terminator_size = 16;
  static constexpr std::size_t max_contents = (std::size_t{1} << (8 * length_size)) - 1;  // what 3 bytes say
  static constexpr std::byte ignore_bit{0x80};                                            // in the header: a decoy

  explicit PacketCipher(EllSwiftKey key) noexcept;
  PacketCipher(PacketCipher&&) noexcept;
  PacketCipher& operator=(PacketCipher&&) noexcept;
  ~PacketCipher();

  const EllSwiftPublicKey& our_public_key() const noexcept { return key_.public_key(); }
  // The ciphers from the peer's key (BIP324's HKDF over the shared secret,
  // salted with the network's magic); our ephemeral secret is wiped then.
  // Once only. On failure nothing is made (the calls below stay barred).
  result<void> initialize(const EllSwiftPublicKey& theirs, bool initiator, network net);
  bool initialized() const noexcept { return ciphers_ != nullptr; }

  // After initialize (asserted).
  using Terminator = std::array<std::byte, garbage_terminator_size>;
  const Terminator& send_garbage_terminator() const noexcept;
  const Terminator& receive_garbage_terminator() const noexcept;
  const Bytes32& session_id() const noexcept;

  // Seals a packet in place: `packet` is overhead bytes longer than its
  // contents (at most max_contents), which are at
  // packet[length_size + header_size...] already.
  result<void> seal(std::span<std::byte> packet, std::span<const std::byte> aad, bool ignore);
  // The same from contents elsewhere (`out`: contents.size() + overhead).
  result<void> encrypt(std::span<const std::byte> contents, std::span<const std::byte> aad, bool ignore, std::span<std::byte> out);
  // The contents' length of the next packet, from its first 3 bytes.
  result<std::uint32_t> decrypt_length(std::span<const std::byte, length_size> encrypted);
  // The rest of it (header, contents, tag: decrypt_length + 17 bytes),
  // opened in place: v2_bad_tag when its tag fails (`rest` zeroed).
  // `ignore` says a decoy.
  result<void> open(std::span<std::byte> rest, std::span<const std::byte> aad, bool& ignore);

 private:
  struct Ciphers;
  EllSwiftKey key_;
  std::unique_ptr<Ciphers> ciphers_;
  bool failed_ = false;  // a cipher lost its place: every later call fails
};

}  // namespace blockwire::net::bip324
