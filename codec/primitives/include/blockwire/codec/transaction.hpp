// Transactions as plain data. No serialization code lives here.
//
// Storage: a Transaction keeps its outputs, inputs, witness items and every
// script and witness byte in one allocation (none at all when every part is
// empty); inputs and outputs refer to their bytes by
// offset and size. So a decoded transaction costs one allocation whatever it
// holds, the object itself is two words, and a copy stays valid (no pointers
// into itself). The counts are fixed once built: the fields can be edited in
// place through the spans, and a TransactionBuilder, which holds the same
// parts in vectors, adds or removes items.
#pragma once

#include <blockwire/io/hash256.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace blockwire {

// A run of bytes inside a transaction's payload.
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
  // This input's witness stack: `witness_size` of the transaction's
  // witness items, from `witness_begin` on.
  std::uint32_t witness_begin = 0;
  std::uint32_t witness_size = 0;
};

struct TxOut {
  std::int64_t value = 0;  // in satoshis
  ByteRange script_pubkey;
};

class TransactionBuilder;

class Transaction {
 public:
  std::uint32_t version = 2;
  std::uint32_t lock_time = 0;

  Transaction() noexcept = default;
  Transaction(const Transaction& other);
  Transaction(Transaction&& other) noexcept : version(other.version), lock_time(other.lock_time), parts_(other.parts_) {
    other.parts_ = &no_parts_;
  }
  Transaction& operator=(const Transaction& other);
  Transaction& operator=(Transaction&& other) noexcept;
  ~Transaction();

  std::span<const TxIn> inputs() const noexcept { return {part<TxIn>(inputs_at()), count(&Counts::inputs)}; }
  std::span<const TxOut> outputs() const noexcept { return {part<TxOut>(outputs_at()), count(&Counts::outputs)}; }
  // The ranges of every input's witness stack, input after input.
  std::span<const ByteRange> witness_items() const noexcept {
    return {part<ByteRange>(witness_items_at()), count(&Counts::witness_items)};
  }
  // Every script and witness item.
  std::span<const std::byte> payload() const noexcept { return {part<std::byte>(payload_at()), count(&Counts::payload)}; }
  // The same, to edit fields in place (the counts stay as built).
  std::span<TxIn> inputs() noexcept { return {part<TxIn>(inputs_at()), count(&Counts::inputs)}; }
  std::span<TxOut> outputs() noexcept { return {part<TxOut>(outputs_at()), count(&Counts::outputs)}; }
  std::span<ByteRange> witness_items() noexcept { return {part<ByteRange>(witness_items_at()), count(&Counts::witness_items)}; }
  std::span<std::byte> payload() noexcept { return {part<std::byte>(payload_at()), count(&Counts::payload)}; }

  std::span<const std::byte> bytes(ByteRange r) const noexcept { return payload().subspan(r.offset, r.size); }
  std::span<const std::byte> script_sig(const TxIn& in) const noexcept { return bytes(in.script_sig); }
  std::span<const std::byte> script_pubkey(const TxOut& out) const noexcept { return bytes(out.script_pubkey); }
  std::span<const ByteRange> witness(const TxIn& in) const noexcept {
    if (in.witness_size == 0) return {};  // its witness_begin may be anything
    return witness_items().subspan(in.witness_begin, in.witness_size);
  }

  // Bitcoin's HasWitness: some input has a non-empty witness stack. From
  // the inputs, not from the witness items: a stack emptied in place (or a
  // builder's replaced one) leaves its items behind as unused bytes.
  bool has_witness() const noexcept {
    if (count(&Counts::witness_items) == 0) return false;
    for (const TxIn& in : inputs()) {
      if (in.witness_size != 0) return true;
    }
    return false;
  }
  bool is_coinbase() const noexcept {
    const auto in = inputs();
    return in.size() == 1 && in[0].prevout.txid.is_zero() && in[0].prevout.index == 0xffffffff;
  }

  // Equal when every field and every referenced byte is equal, however the
  // payload happens to be laid out.
  friend bool operator==(const Transaction& a, const Transaction& b) noexcept;

 private:
  friend class TransactionBuilder;

  // The allocation begins with the counts, then come the outputs, inputs,
  // witness items and payload, in that order: after a 16-byte start, items
  // of 16, 56, 8 and 1 bytes, so each part is aligned for its type
  // (transaction.cpp asserts it).
  struct Counts {
    std::uint32_t outputs = 0;
    std::uint32_t inputs = 0;
    std::uint32_t witness_items = 0;
    std::uint32_t payload = 0;
  };
  static std::size_t allocation_size(const Counts& c) noexcept {
    return sizeof(Counts) + sizeof(TxOut) * std::size_t{c.outputs} + sizeof(TxIn) * std::size_t{c.inputs} +
           sizeof(ByteRange) * std::size_t{c.witness_items} + std::size_t{c.payload};
  }

  std::size_t count(std::uint32_t Counts::*field) const noexcept { return parts_->*field; }
  std::size_t outputs_at() const noexcept { return sizeof(Counts); }
  std::size_t inputs_at() const noexcept { return outputs_at() + sizeof(TxOut) * count(&Counts::outputs); }
  std::size_t witness_items_at() const noexcept { return inputs_at() + sizeof(TxIn) * count(&Counts::inputs); }
  std::size_t payload_at() const noexcept { return witness_items_at() + sizeof(ByteRange) * count(&Counts::witness_items); }
  template <class T>
  T* part(std::size_t at) const noexcept {
    return reinterpret_cast<T*>(reinterpret_cast<std::byte*>(parts_) + at);
  }

  // Whether parts_ is an allocation of ours. Decided by content too, not
  // by address alone (a library linked twice may hold two no_parts_):
  // build() never allocates for all-zero counts.
  bool owns_parts() const noexcept { return parts_ != &no_parts_ && allocation_size(*parts_) != sizeof(Counts); }

  // A transaction with no parts points here, never allocated or written
  // (every span of it is empty), so that no accessor tests for null.
  static Counts no_parts_;
  Counts* parts_ = &no_parts_;
};

inline Transaction::Counts Transaction::no_parts_{};

// A transaction's parts in vectors, to build one (or to change the number
// of inputs, outputs or bytes of one), then build() it. The decoders use
// one as their scratch space: parts grow once and are reused, and each
// transaction is then built at its exact size in a single allocation.
class TransactionBuilder {
 public:
  std::uint32_t version = 2;
  std::uint32_t lock_time = 0;
  std::vector<TxIn> inputs;
  std::vector<TxOut> outputs;
  std::vector<std::byte> payload;        // every script and witness item
  std::vector<ByteRange> witness_items;  // the items of every witness stack

  TransactionBuilder() = default;
  explicit TransactionBuilder(const Transaction& tx);  // its parts, to edit

  // Copies `bytes` to the end of the payload and says where. Throws
  // std::length_error when the payload would reach 2^32 bytes.
  ByteRange append(std::span<const std::byte> bytes);
  // Gives `in` a witness stack of copies of `items`: any range of byte
  // spans (an array or span of spans, a view's WitnessView).
  template <class Items>
  void set_witness(TxIn& in, const Items& items) {
    start_witness(in);
    for (const std::span<const std::byte> item : items) add_witness_item(in, item);
  }
  // The same, an item at a time: an empty stack for `in`, then its items
  // (`in` must be the input whose stack was started last).
  void start_witness(TxIn& in) noexcept;
  void add_witness_item(TxIn& in, std::span<const std::byte> item);
  // Empties every part, keeping their capacity.
  void clear() noexcept;

  // Precondition: every range lies inside the payload and every non-empty
  // witness stack inside the witness items (asserted). Throws
  // std::length_error for a part of 2^32 items or bytes or more.
  Transaction build() const;
};

}  // namespace blockwire
