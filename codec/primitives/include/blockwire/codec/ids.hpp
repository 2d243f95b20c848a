// Txid, Wtxid, BlockHash: 32 bytes of SHA-256d that say what they name, so
// that a txid passed where a block hash belongs does not compile (as
// rust-bitcoin's Txid and BlockHash). Each converts to the Hash256 it holds
// where any hash will do (hex, hashing, a key); from a Hash256 it is made
// explicitly, by code that knows what was hashed.
#pragma once

#include <blockwire/io/hash256.hpp>

#include <compare>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace blockwire {

template <class Kind>
class HashId {
 public:
  constexpr HashId() noexcept = default;  // all zero
  constexpr explicit HashId(const Hash256& hash) noexcept : hash_(hash) {}
  explicit HashId(std::span<const std::byte, 32> bytes) noexcept : hash_(bytes) {}

  // From 64 hex digits in display order; errors as Hash256::from_hex's.
  static result<HashId> from_hex(std::string_view hex) {
    auto hash = Hash256::from_hex(hex);
    if (!hash) return hash.error();
    return HashId(hash.value());
  }
  std::string to_hex() const { return hash_.to_hex(); }

  std::span<const std::byte, 32> bytes() const noexcept { return hash_.bytes(); }
  std::span<std::byte, 32> bytes() noexcept { return hash_.bytes(); }
  bool is_zero() const noexcept { return hash_.is_zero(); }
  const Hash256& hash() const noexcept { return hash_; }
  operator const Hash256&() const noexcept { return hash_; }  // NOLINT(google-explicit-constructor): any hash will do there

  friend bool operator==(const HashId&, const HashId&) = default;
  friend auto operator<=>(const HashId&, const HashId&) = default;

 private:
  Hash256 hash_;
};

// (The kinds are never defined: they only tell the types apart.)
using Txid = HashId<struct TxidKind>;            // a transaction without its witness data (what inputs spend)
using Wtxid = HashId<struct WtxidKind>;          // a transaction with its witness data (BIP141)
using BlockHash = HashId<struct BlockHashKind>;  // a block's 80-byte header

}  // namespace blockwire
