// Zero-copy views: a block or a transaction read in place from bytes that
// outlive the view. One validating pass, with the same rules, in the same
// order, as decode_block and decode_transaction (so the same errors at the
// same byte offsets), records where each transaction, input, output and
// witness stack begins, in one vector of 32-bit offsets; the accessors then
// read fields from the bytes. Nothing is copied and nothing is allocated
// per element: memory is the input plus a few bytes per element.
#pragma once

#include <cassert>

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/io/little_endian.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <span>
#include <vector>

namespace blockwire {

// The accessors are inline, the one pass that validates is compiled: a
// field read is a load the caller's compiler sees (and drops when unused),
// not a call.
namespace view_detail {

// A transaction's record in a view's offsets (see view.cpp): three words,
// then one offset per input, per output, and per witness stack (segwit).
inline constexpr std::size_t rec_begin = 0, rec_inputs = 1, rec_outputs = 2, rec_fields = 3;
inline constexpr std::uint32_t segwit_bit = 0x80000000;

// A CompactSize the pass has already checked.
inline std::uint64_t read_size(const std::byte*& p) noexcept {
  const auto first = std::to_integer<unsigned>(p[0]);
  if (first < 0xfd) {
    ++p;
    return first;
  }
  const std::size_t width = first == 0xfd ? 2 : first == 0xfe ? 4 : 8;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < width; ++i) n |= std::uint64_t{std::to_integer<unsigned>(p[1 + i])} << (8 * i);
  p += 1 + width;
  return n;
}

}  // namespace view_detail

// The items of one witness stack, read as they are iterated.
class WitnessView {
 public:
  class iterator {
   public:
    using value_type = std::span<const std::byte>;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    value_type operator*() const noexcept {
      const std::byte* p = at_;
      const auto n = static_cast<std::size_t>(view_detail::read_size(p));
      return {p, n};
    }
    iterator& operator++() noexcept {
      const auto n = static_cast<std::size_t>(view_detail::read_size(at_));
      at_ += n;
      return *this;
    }
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
  WitnessView(const std::byte* stack, const std::byte* end) noexcept : start_(stack), end_(end) {
    const std::byte* p = stack;
    count_ = static_cast<std::size_t>(view_detail::read_size(p));
    first_ = p;
  }
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

  std::uint32_t version() const noexcept { return load_le<std::uint32_t>(base_ + at(view_detail::rec_begin)); }
  std::uint32_t lock_time() const noexcept { return load_le<std::uint32_t>(base_ + end_ - 4); }
  std::size_t input_count() const noexcept { return at(view_detail::rec_inputs) & ~view_detail::segwit_bit; }
  std::size_t output_count() const noexcept { return at(view_detail::rec_outputs); }
  InputView input(std::size_t i) const noexcept;
  OutputView output(std::size_t i) const noexcept;
  bool has_witness() const noexcept { return (at(view_detail::rec_inputs) & view_detail::segwit_bit) != 0; }
  bool is_coinbase() const noexcept;

  // The transaction as on the wire (what the wtxid hashes).
  std::span<const std::byte> bytes() const noexcept { return {base_ + at(view_detail::rec_begin), base_ + end_}; }
  std::size_t size() const noexcept { return bytes().size(); }
  std::size_t stripped_size() const noexcept;
  std::size_t weight() const noexcept { return 3 * stripped_size() + size(); }
  std::size_t vsize() const noexcept { return (weight() + 3) / 4; }
  // Hashed from the bytes themselves: nothing is encoded again.
  Hash256 txid() const;
  Hash256 wtxid() const;
  // What the txid hashes, in three runs: the version, the inputs and
  // outputs, the lock time (the marker, flag and witnesses left out).
  std::array<std::span<const std::byte>, 3> txid_parts() const noexcept;

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
  // Precondition: i < transaction_count() (asserted in debug builds; past
  // it, the offsets read are out of bounds).
  TransactionView transaction(std::size_t i) const noexcept {
    assert(i < count_);
    const std::uint32_t end =
        i + 1 < count_ ? offsets_[offsets_[i + 1] + view_detail::rec_begin] : static_cast<std::uint32_t>(bytes_.size());
    return TransactionView(bytes_.data(), offsets_.data() + offsets_[i], end);
  }
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

inline InputView TransactionView::input(std::size_t i) const noexcept {
  using namespace view_detail;
  const std::byte* p = base_ + at(rec_fields + i);
  InputView in;
  in.prevout.txid = Hash256(std::span<const std::byte, 32>(p, 32));
  in.prevout.index = load_le<std::uint32_t>(p + 32);
  p += 36;
  const auto script = static_cast<std::size_t>(read_size(p));
  in.script_sig = {p, script};
  in.sequence = load_le<std::uint32_t>(p + script);
  if (has_witness()) {
    const std::size_t stacks = rec_fields + input_count() + output_count();
    const std::byte* end = i + 1 < input_count() ? base_ + at(stacks + i + 1) : base_ + end_ - 4;
    in.witness = WitnessView(base_ + at(stacks + i), end);
  }
  return in;
}

inline OutputView TransactionView::output(std::size_t i) const noexcept {
  using namespace view_detail;
  const std::byte* p = base_ + at(rec_fields + input_count() + i);
  const auto value = load_le<std::int64_t>(p);
  p += 8;
  const auto script = static_cast<std::size_t>(read_size(p));
  return {value, {p, script}};
}

inline bool TransactionView::is_coinbase() const noexcept {
  if (input_count() != 1) return false;
  const InputView in = input(0);
  return in.prevout.txid.is_zero() && in.prevout.index == 0xffffffff;
}

}  // namespace blockwire
