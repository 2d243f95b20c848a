// Txid, Wtxid, BlockHash: 32 bytes of SHA-256d that say what they name, so
// that a txid passed where a block hash belongs does not compile (as
// rust-bitcoin's Txid and BlockHash). An id is made once and never changed.
// It becomes the plain Hash256 it holds only when asked by name
// (to_raw_hash: hex, hashing, a key), and is made from one only by code
// that knows what was hashed (from_raw_hash). An id of 32 zero bytes (a
// coinbase's previous output, the genesis block's parent) is all_zeros():
// there is no default id.
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
  static constexpr HashId from_raw_hash(const Hash256& hash) noexcept { return HashId(hash); }
  static HashId from_bytes(std::span<const std::byte, 32> bytes) noexcept { return HashId(Hash256(bytes)); }
  static constexpr HashId all_zeros() noexcept { return HashId(Hash256{}); }

  // From 64 hex digits in display order; errors as Hash256::from_hex's.
  static result<HashId> from_hex(std::string_view hex) {
    auto hash = Hash256::from_hex(hex);
    if (!hash) return hash.error();
    return HashId(hash.value());
  }
  std::string to_hex() const { return hash_.to_hex(); }

  std::span<const std::byte, 32> bytes() const noexcept { return hash_.bytes(); }
  bool is_all_zeros() const noexcept { return hash_.is_zero(); }
  const Hash256& to_raw_hash() const noexcept { return hash_; }

  friend bool operator==(const HashId&, const HashId&) = default;
  friend auto operator<=>(const HashId&, const HashId&) = default;

 private:
  constexpr explicit HashId(const Hash256& hash) noexcept : hash_(hash) {}

  Hash256 hash_;
};

// (The kinds are never defined: they only tell the types apart.)
using Txid = HashId<struct TxidKind>;            // a transaction without its witness data (what inputs spend)
using Wtxid = HashId<struct WtxidKind>;          // a transaction with its witness data (BIP141)
using BlockHash = HashId<struct BlockHashKind>;  // a block's 80-byte header

}  // namespace blockwire
