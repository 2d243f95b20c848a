// Transactions as plain data. No serialization code lives here.
//
// Storage: all script and witness bytes of a transaction sit back to back in
// one buffer, `payload`; inputs and outputs refer to them by offset and size.
// Decoding a transaction therefore costs a handful of allocations, not one
// per script or witness item, and a copy of a Transaction stays valid (no
// pointers into itself).
#pragma once

#include <blockwire/io/hash256.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace blockwire {

// A run of bytes inside Transaction::payload.
struct ByteRange {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

struct OutPoint {
  Hash256 txid;
  std::uint32_t index = 0xffffffff;
  friend bool operator==(const OutPoint&, const OutPoint&) = default;
  friend auto operator<=>(const OutPoint&, const OutPoint&) = default;  // by txid's bytes, then index
};

struct TxIn {
  OutPoint prevout;
  ByteRange script_sig;
  std::uint32_t sequence = 0xffffffff;
  // This input's witness stack: `witness_size` items of
  // Transaction::witness_items, from `witness_begin` on.
  std::uint32_t witness_begin = 0;
  std::uint32_t witness_size = 0;
};

struct TxOut {
  std::int64_t value = 0;  // in satoshis
  ByteRange script_pubkey;
};

struct Transaction {
  std::uint32_t version = 2;
  std::uint32_t lock_time = 0;  // beside the version: no padding after either (104 bytes, not 112)
  std::vector<TxIn> inputs;
  std::vector<TxOut> outputs;
  std::vector<std::byte> payload;         // every script and witness item
  std::vector<ByteRange> witness_items;   // the items of every witness stack

  std::span<const std::byte> bytes(ByteRange r) const noexcept {
    return std::span<const std::byte>(payload).subspan(r.offset, r.size);
  }
  std::span<const std::byte> script_sig(const TxIn& in) const noexcept { return bytes(in.script_sig); }
  std::span<const std::byte> script_pubkey(const TxOut& out) const noexcept {
    return bytes(out.script_pubkey);
  }
  std::span<const ByteRange> witness(const TxIn& in) const noexcept {
    return std::span<const ByteRange>(witness_items).subspan(in.witness_begin, in.witness_size);
  }

  // Bitcoin's HasWitness: some input has a non-empty witness stack. O(1):
  // witness_items holds the items of the inputs' stacks and nothing else.
  bool has_witness() const noexcept { return !witness_items.empty(); }
  bool is_coinbase() const noexcept {
    return inputs.size() == 1 && inputs[0].prevout.txid.is_zero() && inputs[0].prevout.index == 0xffffffff;
  }

  // Building: copies `bytes` to the end of the payload and says where.
  ByteRange append(std::span<const std::byte> bytes);
  // Building: adds a witness stack of copies of `items` to `in`.
  void set_witness(TxIn& in, std::span<const std::span<const std::byte>> items);

  // Equal when every field and every referenced byte is equal, however the
  // payload happens to be laid out.
  friend bool operator==(const Transaction& a, const Transaction& b) noexcept;
};

}  // namespace blockwire
