// Zero-copy views: a block or a transaction read in place from bytes that
// outlive the view. One validating pass, with the same rules, in the same
// order, as decode_block and decode_transaction (so the same errors at the
// same byte offsets), records where each transaction, input, output and
// witness stack begins, in one vector of 32-bit offsets; the accessors then
// read fields from the bytes. Nothing is copied and nothing is allocated
// per element: memory is the input plus a few bytes per element.
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace blockwire {

// The items of one witness stack, read as they are iterated.
class WitnessView {
 public:
  class iterator {
   public:
    using value_type = std::span<const std::byte>;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    value_type operator*() const noexcept;
    iterator& operator++() noexcept;
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.at_ == b.at_; }

   private:
    friend class WitnessView;
    explicit iterator(const std::byte* at) noexcept : at_(at) {}
    const std::byte* at_ = nullptr;  // an item's CompactSize length
  };

  WitnessView() = default;
  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  iterator begin() const noexcept { return iterator(first_); }
  iterator end() const noexcept { return iterator(end_); }
  // The stack as on the wire: its count and its items.
  std::span<const std::byte> bytes() const noexcept { return {start_, end_}; }

 private:
  friend class TransactionView;
  WitnessView(const std::byte* stack, const std::byte* end) noexcept;
  const std::byte* start_ = nullptr;
  const std::byte* first_ = nullptr;
  const std::byte* end_ = nullptr;
  std::size_t count_ = 0;
};

struct InputView {
  OutPoint prevout;
  std::span<const std::byte> script_sig;
  std::uint32_t sequence;
  WitnessView witness;  // empty unless the transaction has witness data
};

struct OutputView {
  std::int64_t value;  // in satoshis
  std::span<const std::byte> script_pubkey;
};

class TransactionView {
 public:
  // Exactly one transaction: bytes after it are an error (trailing_bytes),
  // as decode_transaction(span) says. The view holds its own offsets.
  static result<TransactionView> parse(std::span<const std::byte> bytes, witness mode = witness::allow);

  TransactionView(const TransactionView& other);
  TransactionView& operator=(const TransactionView& other);
  TransactionView(TransactionView&&) noexcept = default;
  TransactionView& operator=(TransactionView&&) noexcept = default;

  std::uint32_t version() const noexcept;
  std::uint32_t lock_time() const noexcept;
  std::size_t input_count() const noexcept;
  std::size_t output_count() const noexcept;
  InputView input(std::size_t i) const noexcept;
  OutputView output(std::size_t i) const noexcept;
  bool has_witness() const noexcept;
  bool is_coinbase() const noexcept;

  // The transaction as on the wire (what the wtxid hashes).
  std::span<const std::byte> bytes() const noexcept;
  std::size_t size() const noexcept { return bytes().size(); }
  std::size_t stripped_size() const noexcept;
  std::size_t weight() const noexcept { return 3 * stripped_size() + size(); }
  std::size_t vsize() const noexcept { return (weight() + 3) / 4; }
  // Hashed from the bytes themselves: nothing is encoded again.
  Hash256 txid() const;
  Hash256 wtxid() const;

  // An owned Transaction with the same content.
  Transaction to_transaction() const;

 private:
  friend class BlockView;
  TransactionView(const std::byte* base, const std::uint32_t* record, std::uint32_t end) noexcept
      : base_(base), record_(record), end_(end) {}
  std::uint32_t at(std::size_t i) const noexcept { return record_[i]; }
  std::uint32_t body_begin() const noexcept;
  std::uint32_t body_end() const noexcept;

  const std::byte* base_ = nullptr;          // the offsets count from here
  const std::uint32_t* record_ = nullptr;    // this transaction's offsets (see view.cpp)
  std::uint32_t end_ = 0;                    // one past its lock time
  std::vector<std::uint32_t> owned_;         // a standalone view's offsets; empty inside a BlockView
};

class BlockView {
 public:
  // Exactly one block, as decode_block(span) takes it.
  static result<BlockView> parse(std::span<const std::byte> bytes, witness mode = witness::allow);

  const BlockHeader& header() const noexcept { return header_; }
  std::size_t transaction_count() const noexcept { return count_; }
  TransactionView transaction(std::size_t i) const noexcept;
  std::span<const std::byte> bytes() const noexcept { return bytes_; }
  std::size_t size() const noexcept { return bytes_.size(); }
  std::size_t stripped_size() const noexcept;
  std::size_t weight() const noexcept { return 3 * stripped_size() + size(); }

  // An owned Block with the same content.
  Block to_block() const;

 private:
  std::span<const std::byte> bytes_;
  BlockHeader header_;
  std::size_t count_ = 0;
  std::vector<std::uint32_t> offsets_;  // where each transaction's record begins, then the records
};

}  // namespace blockwire
