// Zero-copy views: a block or a transaction read in place from bytes that
// outlive the view. The decoders' parser (one pass, the same rules, the same
// errors at the same byte offsets) records where each transaction, input,
// output and witness stack begins, in one vector of 32-bit offsets; a
// TransactionView reads those bytes through the same TransactionReader as
// an owned Transaction. Nothing is copied and nothing is allocated per
// element: memory is the input plus a few bytes per element.
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace blockwire {

class TransactionView : public TransactionReader<TransactionView> {
 public:
  // Exactly one transaction: bytes after it are an error (trailing_bytes),
  // as decode_transaction(span) says. The view holds its own offsets.
  static result<TransactionView> parse(std::span<const std::byte> bytes, witness mode = witness::allow);
  // An owned transaction's bytes, read in place: valid while `tx` is
  // neither destroyed nor moved (a transaction with no inputs and no
  // outputs keeps its 10 bytes in the object itself).
  explicit TransactionView(const Transaction& tx) noexcept;
  // Not of a temporary: the view would outlive its bytes.
  TransactionView(const Transaction&&) = delete;
  static result<TransactionView> parse(std::vector<std::byte>&& bytes, witness mode = witness::allow) = delete;

  // A standalone view owns its record: a copy copies it, a move takes it.
  // A moved-from view, of any origin, reads as the empty transaction
  // (Transaction's default): version 2, no inputs, no outputs, lock time 0,
  // its 10 bytes and their txid. It cannot point into the record it gave
  // away, so it reads static bytes instead.
  TransactionView(const TransactionView& other);
  TransactionView& operator=(const TransactionView& other);
  TransactionView(TransactionView&& other) noexcept;
  TransactionView& operator=(TransactionView&& other) noexcept;

  // An owned Transaction with the same content: one allocation, one copy.
  Transaction to_transaction() const;

 private:
  friend class TransactionReader<TransactionView>;
  friend class BlockView;
  TransactionView(const std::byte* base, const std::uint32_t* record, std::uint32_t size) noexcept
      : base_(base), record_(record), size_(size) {}
  const std::byte* tx_base() const noexcept { return base_; }
  std::size_t tx_size() const noexcept { return size_; }
  void make_empty() noexcept;
  const std::uint32_t* tx_fields() const noexcept { return record_; }

  const std::byte* base_ = nullptr;        // its first byte
  const std::uint32_t* record_ = nullptr;  // its record (see detail::tx_record)
  std::uint32_t size_ = 0;
  std::vector<std::uint32_t> owned_;  // a standalone view's record; empty inside a BlockView
};

// A visitor of a block's transactions, each handed over as soon as it is
// parsed: `visit(context, tx)`. The TransactionView is valid during the
// call only (its record is reused for the next transaction).
struct TransactionVisitor {
  void (*visit)(void* context, const TransactionView& tx);
  void* context;
};

class BlockView {
 public:
  // Exactly one block, as decode_block(span) takes it.
  static result<BlockView> parse(std::span<const std::byte> bytes, witness mode = witness::allow);
  // Not of a temporary's bytes (`BlockView::parse(read_block(b).value())`):
  // the view would outlive them.
  static result<BlockView> parse(std::vector<std::byte>&& bytes, witness mode = witness::allow) = delete;

  // The same parse in one pass that keeps nothing for later: each
  // transaction goes to `visitor` as soon as it is parsed, with a record of
  // its own (inputs, outputs and witness stacks still O(1) each), and the
  // header comes back. For programs that walk a block once: no offsets
  // for the whole block are written, so memory stays a transaction's. An
  // error comes back after the transactions before it were visited.
  static result<BlockHeader> visit(std::span<const std::byte> bytes, TransactionVisitor visitor, witness mode = witness::allow);
  // `each(const TransactionView&)` for every transaction, as above.
  template <class Each>
  static result<BlockHeader> visit(std::span<const std::byte> bytes, Each&& each, witness mode = witness::allow) {
    using F = std::remove_reference_t<Each>;
    return visit(bytes,
                 TransactionVisitor{[](void* f, const TransactionView& tx) { (*static_cast<F*>(f))(tx); },
                                    const_cast<void*>(static_cast<const void*>(&each))},
                 mode);
  }

  // A default or moved-from BlockView reads as the empty block: a default
  // header, no transactions, its 81 bytes (static ones, not the bytes it
  // was parsed from). A moved-from view has given away its offsets, so it
  // cannot keep its transaction count.
  BlockView() noexcept;
  BlockView(const BlockView&) = default;
  BlockView& operator=(const BlockView&) = default;
  BlockView(BlockView&& other) noexcept;
  BlockView& operator=(BlockView&& other) noexcept;

  const BlockHeader& header() const noexcept { return header_; }
  std::size_t transaction_count() const noexcept { return count_; }
  // Precondition: i < transaction_count() (asserted in debug builds; past
  // it, the offsets read are out of bounds).
  TransactionView transaction(std::size_t i) const noexcept {
    assert(i < count_);
    const std::uint32_t* record = offsets_.data() + offsets_[i];
    const std::uint32_t begin = record[detail::tx_record::begin];
    const std::uint32_t end =
        i + 1 < count_ ? offsets_[offsets_[i + 1] + detail::tx_record::begin] : static_cast<std::uint32_t>(bytes_.size());
    return TransactionView(bytes_.data() + begin, record, end - begin);
  }
  std::span<const std::byte> bytes() const noexcept { return bytes_; }
  std::size_t size() const noexcept { return bytes_.size(); }
  std::size_t stripped_size() const noexcept;
  std::size_t weight() const noexcept { return 3 * stripped_size() + size(); }

  // An owned Block with the same content.
  Block to_block() const;

 private:
  void make_empty() noexcept;

  std::span<const std::byte> bytes_;
  BlockHeader header_;
  std::size_t count_ = 0;
  std::vector<std::uint32_t> offsets_;  // where each transaction's record begins, then the records
};

}  // namespace blockwire
