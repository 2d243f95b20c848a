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

using Bytes32 = std::array<std::byte, 32>;
// u then t, 32 bytes each (big-endian): a point's x, uniformly encoded.
using EllSwiftPublicKey = std::array<std::byte, 64>;

// XSwiftEC: the x coordinate on secp256k1 an encoding stands for. Every 64
// bytes decode to one (u and t are taken modulo p).
Bytes32 ellswift_decode(const EllSwiftPublicKey& encoded);

// XSwiftECInv: a t with XSwiftEC(u, t) = x, the one `which` (0..7) selects,
// or none. `x` must be on the curve.
std::optional<Bytes32> xswiftec_inv(const Bytes32& x, const Bytes32& u, unsigned which);

// An ephemeral key: the secret and its public key's encoding.
class EllSwiftKey {
 public:
  // A secret from OpenSSL's private random source, its x encoded with a
  // random u and case (XElligatorSwift). Fails only when the random
  // source does.
  static result<EllSwiftKey> generate();
  // A secret and an encoding given (BIP324's test vectors); the encoding
  // must be of the secret's public key.
  EllSwiftKey(const Bytes32& secret, const EllSwiftPublicKey& encoding) noexcept;
  EllSwiftKey(const EllSwiftKey&) = delete;
  EllSwiftKey& operator=(const EllSwiftKey&) = delete;
  EllSwiftKey(EllSwiftKey&&) noexcept;
  EllSwiftKey& operator=(EllSwiftKey&&) noexcept;
  ~EllSwiftKey();  // wipes the secret

  const EllSwiftPublicKey& public_key() const noexcept { return public_; }
  // Forgets the secret (the public key stays): once a session's keys are
  // derived, nothing that could derive them again is kept.
  void wipe() noexcept;
  // x(secret · lift_x(XSwiftEC(theirs))).
  Bytes32 ecdh_x(const EllSwiftPublicKey& theirs) const;
  // BIP324's shared secret: the tagged hash ("bip324_ellswift_xonly_ecdh")
  // of both encodings, the initiator's first, and the ECDH x.
  Bytes32 shared_secret(const EllSwiftPublicKey& theirs, bool initiator) const;

 private:
  Bytes32 secret_;
  EllSwiftPublicKey public_;
};

// Packets and messages a key serves before it is replaced.
inline constexpr std::uint32_t rekey_interval = 224;

// The garbage a side may send after its key, at most.
inline constexpr std::size_t max_garbage = 4095;
// Garbage for a handshake: a random length up to max_garbage, random bytes.
std::vector<std::byte> random_garbage();

namespace detail {
struct CipherContext;  // OpenSSL's, owned
struct CipherContextFree {
  void operator()(CipherContext* c) const noexcept;
};
using CipherContextPtr = std::unique_ptr<CipherContext, CipherContextFree>;
}  // namespace detail

// ChaCha20 as one stream over many chunks (the packets' lengths), a new key
// every rekey_interval chunks: the next 32 bytes of the stream.
class FSChaCha20 {
 public:
  explicit FSChaCha20(const Bytes32& key);
  ~FSChaCha20();  // wipes the key
  // `in` and `out` the same size; they may be the same bytes.
  void crypt(std::span<const std::byte> in, std::span<std::byte> out);

 private:
  void start();
  Bytes32 key_;
  std::uint64_t rekeys_ = 0;
  std::uint32_t chunks_ = 0;
  detail::CipherContextPtr context_;
};

// ChaCha20-Poly1305 (RFC 8439) with the nonce counting messages, a new key
// every rekey_interval messages.
class FSChaCha20Poly1305 {
 public:
  static constexpr std::size_t tag_size = 16;
  explicit FSChaCha20Poly1305(const Bytes32& key);
  ~FSChaCha20Poly1305();  // wipes the key
  // `text` (tag_size bytes longer than the plaintext, the tag last) sealed
  // in place: the plaintext in front is encrypted and the tag written.
  void seal(std::span<std::byte> text, std::span<const std::byte> aad);
  // The reverse, in place; false when the tag is not the text's (the
  // message counts all the same).
  bool open(std::span<std::byte> text, std::span<const std::byte> aad);

 private:
  bool crypt(std::span<std::byte> text, std::span<const std::byte> aad, bool encrypt);
  Bytes32 key_;
  std::uint64_t messages_ = 0;
  detail::CipherContextPtr context_;
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
  static constexpr std::byte ignore_bit{0x80};  // in the header: a decoy

  explicit PacketCipher(EllSwiftKey key) noexcept;
  PacketCipher(PacketCipher&&) noexcept;
  PacketCipher& operator=(PacketCipher&&) noexcept;
  ~PacketCipher();

  const EllSwiftPublicKey& our_public_key() const noexcept { return key_.public_key(); }
  // The ciphers from the peer's key (BIP324's HKDF over the shared secret,
  // salted with the network's magic).
  void initialize(const EllSwiftPublicKey& theirs, bool initiator, network net);

  using Terminator = std::array<std::byte, garbage_terminator_size>;
  const Terminator& send_garbage_terminator() const noexcept;
  const Terminator& receive_garbage_terminator() const noexcept;
  const Bytes32& session_id() const noexcept;

  // Seals a packet in place: `packet` is overhead bytes longer than its
  // contents, which are at packet[length_size + header_size...] already.
  void seal(std::span<std::byte> packet, std::span<const std::byte> aad, bool ignore);
  // The same from contents elsewhere (`out`: contents.size() + overhead).
  void encrypt(std::span<const std::byte> contents, std::span<const std::byte> aad, bool ignore, std::span<std::byte> out);
  // The contents' length of the next packet, from its first 3 bytes.
  std::uint32_t decrypt_length(std::span<const std::byte, length_size> encrypted);
  // The rest of it (header, contents, tag: decrypt_length + 17 bytes),
  // opened in place; false when its tag fails. `ignore` says a decoy.
  bool open(std::span<std::byte> rest, std::span<const std::byte> aad, bool& ignore);

 private:
  struct Ciphers;
  EllSwiftKey key_;
  std::unique_ptr<Ciphers> ciphers_;
};

}  // namespace blockwire::net::bip324
