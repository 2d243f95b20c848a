// Transactions, read one way whether owned or viewed.
//
// A Transaction owns its wire bytes (BIP144, as they were decoded or built)
// and, before them in the same allocation, a record of where each input,
// output and witness stack begins: one allocation a transaction, a 16-byte
// object, and a copy that stays valid (offsets, never pointers). A
// TransactionView (<blockwire/codec/view.hpp>) reads the same record over
// bytes it does not own. Both read through TransactionReader below, so
// code that reads (JSON, scripts, filters, undo) is written once for both:
//
//   tx.version(), tx.lock_time(), tx.input_count(), tx.input(i), tx.inputs(),
//   tx.output_count(), tx.output(i), tx.outputs(), tx.has_witness(),
//   tx.bytes(), tx.txid(), tx.wtxid();
//   input.prevout(), input.sequence(), input.script_sig(), input.witness();
//   output.value(), output.script_pubkey().
//
// A Transaction cannot be edited: a TransactionBuilder holds the fields in
// vectors and builds one.
#pragma once

#include <blockwire/codec/amount.hpp>
#include <blockwire/codec/ids.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/io/little_endian.hpp>

#include <array>
#include <cassert>
#include <cstddef>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace blockwire {

struct OutPoint {
  Txid txid = Txid::all_zeros();
  std::uint32_t index = 0xffffffff;
  friend bool operator==(const OutPoint&, const OutPoint&) = default;
  friend auto operator<=>(const OutPoint&, const OutPoint&) = default;  // by txid's bytes, then index
};

// Implementation details, in this header only because the inline readers
// below need them: not an interface, and free to change.
namespace detail {

// The record of a transaction, made by the library's parser: its begin in
// the bytes the record was made for, its input count (with segwit_bit when
// it has witness data), its output count, then the offset, from the
// transaction's first byte, of each input, each output and (segwit) each
// witness stack.
namespace tx_record {
inline constexpr std::size_t begin = 0, inputs = 1, outputs = 2, fields = 3;
inline constexpr std::uint32_t segwit_bit = 0x80000000;

inline std::size_t input_count(const std::uint32_t* r) noexcept { return r[inputs] & ~segwit_bit; }
inline bool segwit(const std::uint32_t* r) noexcept { return (r[inputs] & segwit_bit) != 0; }
inline std::size_t words(const std::uint32_t* r) noexcept {
  const std::size_t in = input_count(r);
  return fields + in + r[outputs] + (segwit(r) ? in : 0);
}

// A CompactSize the parser has already checked.
inline std::uint64_t read_size(const std::byte*& p) noexcept {
  const auto first = std::to_integer<unsigned>(p[0]);
  ++p;
  if (first < 0xfd) return first;
  std::uint64_t n = 0;
  if (first == 0xfd)
    n = load_le<std::uint16_t>(p), p += 2;
  else if (first == 0xfe)
    n = load_le<std::uint32_t>(p), p += 4;
  else
    n = load_le<std::uint64_t>(p), p += 8;
  return n;
}
}  // namespace tx_record

// Where a transaction's bytes and record are: what every reader of it
// needs, and all the input and output ranges keep (never the address of
// the Transaction or TransactionView object, which may be a temporary).
struct TxBytes {
  const std::byte* base;        // its first byte
  const std::uint32_t* record;  // see tx_record
  std::size_t size;             // of its bytes
};

}  // namespace detail

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
      const auto n = static_cast<std::size_t>(detail::tx_record::read_size(p));
      return {p, n};
    }
    iterator& operator++() noexcept {
      const auto n = static_cast<std::size_t>(detail::tx_record::read_size(at_));
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
  // `stack`: its CompactSize count; `end`: one past its last item.
  WitnessView(const std::byte* stack, const std::byte* end) noexcept : start_(stack), end_(end) {
    const std::byte* p = stack;
    count_ = static_cast<std::size_t>(detail::tx_record::read_size(p));
    first_ = p;
  }
  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  iterator begin() const noexcept { return iterator(first_); }
  iterator end() const noexcept { return iterator(end_); }
  // The i-th item (i < size()): a walk over the items before it.
  std::span<const std::byte> operator[](std::size_t i) const noexcept {
    assert(i < count_);
    iterator it = begin();
    while (i-- != 0) ++it;
    return *it;
  }
  // The stack as on the wire: its count and its items.
  std::span<const std::byte> bytes() const noexcept { return {start_, end_}; }

  friend bool operator==(const WitnessView& a, const WitnessView& b) noexcept;

 private:
  const std::byte* start_ = nullptr;
  const std::byte* first_ = nullptr;
  const std::byte* end_ = nullptr;
  std::size_t count_ = 0;
};

// Equal when the items are (the wire bytes are then equal too).
inline bool operator==(const WitnessView& a, const WitnessView& b) noexcept {
  const auto x = a.bytes(), y = b.bytes();
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size()) == 0);
}

class InputView;
class OutputView;
namespace detail::tx_record {
InputView input(const TxBytes& tx, std::size_t i) noexcept;
OutputView output(const TxBytes& tx, std::size_t i) noexcept;
}  // namespace detail::tx_record

// One input as the transaction's bytes hold it: read-only, since writing a
// field of a view would change nothing (a TransactionBuilder edits).
class InputView {
 public:
  // A reference into this InputView, or a copy when it is a temporary
  // (tx.input(i).prevout()), which a reference would outlive.
  const OutPoint& prevout() const& noexcept { return prevout_; }
  OutPoint prevout() const&& noexcept { return prevout_; }
  std::uint32_t sequence() const noexcept { return sequence_; }
  std::span<const std::byte> script_sig() const noexcept { return script_sig_; }
  // Empty unless the transaction has witness data. By value: a view of the
  // transaction's bytes, valid while they are, not while this InputView is.
  WitnessView witness() const noexcept { return witness_; }

 private:
  friend InputView detail::tx_record::input(const detail::TxBytes&, std::size_t) noexcept;
  OutPoint prevout_;
  std::uint32_t sequence_ = 0xffffffff;
  std::span<const std::byte> script_sig_;
  WitnessView witness_;
};

// One output as the transaction's bytes hold it, read-only as InputView is.
class OutputView {
 public:
  Amount value() const noexcept { return value_; }
  std::span<const std::byte> script_pubkey() const noexcept { return script_pubkey_; }

 private:
  friend OutputView detail::tx_record::output(const detail::TxBytes&, std::size_t) noexcept;
  Amount value_;
  std::span<const std::byte> script_pubkey_;
};

inline InputView detail::tx_record::input(const TxBytes& tx, std::size_t i) noexcept {
  assert(i < input_count(tx.record));
  const std::byte* p = tx.base + tx.record[fields + i];
  InputView in;
  in.prevout_.txid = Txid::from_bytes(std::span<const std::byte, 32>(p, 32));
  in.prevout_.index = load_le<std::uint32_t>(p + 32);
  p += 36;
  const auto script = static_cast<std::size_t>(read_size(p));
  in.script_sig_ = {p, script};
  in.sequence_ = load_le<std::uint32_t>(p + script);
  if (segwit(tx.record)) {
    const std::size_t n = input_count(tx.record);
    const std::uint32_t* stacks = tx.record + fields + n + tx.record[outputs];
    const std::byte* end = i + 1 < n ? tx.base + stacks[i + 1] : tx.base + tx.size - 4;
    in.witness_ = WitnessView(tx.base + stacks[i], end);
  }
  return in;
}

inline OutputView detail::tx_record::output(const TxBytes& tx, std::size_t i) noexcept {
  assert(i < tx.record[outputs]);
  const std::byte* p = tx.base + tx.record[fields + input_count(tx.record) + i];
  OutputView out;
  out.value_ = Amount::from_sat(load_le<std::int64_t>(p));
  p += 8;
  const auto script = static_cast<std::size_t>(read_size(p));
  out.script_pubkey_ = {p, script};
  return out;
}

// The inputs or outputs of a transaction as a range, each read as it is
// reached (an InputView or OutputView by value). It keeps where the bytes
// are, so it outlives a temporary view: for (auto in : block.transaction(i).inputs()).
template <class Item, Item (*At)(const detail::TxBytes&, std::size_t) noexcept>
class ItemRange {
 public:
  class iterator {
   public:
    using value_type = Item;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    Item operator*() const noexcept { return At(tx_, i_); }
    iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++i_;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }

   private:
    friend class ItemRange;
    iterator(const detail::TxBytes& tx, std::size_t i) noexcept : tx_(tx), i_(i) {}
    detail::TxBytes tx_{};
    std::size_t i_ = 0;
  };

  ItemRange(const detail::TxBytes& tx, std::size_t size) noexcept : tx_(tx), size_(size) {}
  iterator begin() const noexcept { return {tx_, 0}; }
  iterator end() const noexcept { return {tx_, size_}; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  Item operator[](std::size_t i) const noexcept { return At(tx_, i); }
  Item front() const noexcept { return At(tx_, 0); }
  Item back() const noexcept { return At(tx_, size_ - 1); }

 private:
  detail::TxBytes tx_;
  std::size_t size_;
};

namespace detail {
// Compiled (hashes.cpp): the ids from a transaction's runs of bytes.
Hash256 hash_txid(const std::array<std::span<const std::byte>, 3>& parts);
Hash256 hash_wtxid(std::span<const std::byte> bytes);
}  // namespace detail

// The reading interface of Transaction and TransactionView: inline loads
// from the bytes at the offsets the record gives (the caller's compiler sees
// each field read, and drops those it does not use). `Tx` gives its bytes
// (tx_base(), tx_size()) and its record (tx_fields()).
class Transaction;
namespace detail {
// Whether a reader owns the bytes it reads (a Transaction), so that views
// of a temporary one would dangle. (A trait, not a member: the reader's
// requires-clauses are read while Tx is still incomplete.)
template <class Tx>
inline constexpr bool owns_bytes = false;
template <>
inline constexpr bool owns_bytes<Transaction> = true;
}  // namespace detail

template <class Tx>
class TransactionReader {
 public:
  std::uint32_t version() const noexcept { return load_le<std::uint32_t>(base()); }
  std::uint32_t lock_time() const noexcept { return load_le<std::uint32_t>(base() + size() - 4); }
  std::size_t input_count() const noexcept { return detail::tx_record::input_count(record()); }
  std::size_t output_count() const noexcept { return record()[detail::tx_record::outputs]; }
  // Inputs, outputs, their ranges and the bytes are views into the
  // transaction's bytes. Those of an owned transaction live in it, so of a
  // temporary one (`decode_transaction(b).value().inputs()` in a range-for)
  // they would dangle: they do not compile. A view's point into bytes it
  // does not own, and outlive it.
  // Precondition: i < input_count() (asserted in debug builds).
  InputView input(std::size_t i) const& noexcept { return detail::tx_record::input(where(), i); }
  InputView input(std::size_t i) const&& noexcept requires(!detail::owns_bytes<Tx>) { return detail::tx_record::input(where(), i); }
  InputView input(std::size_t i) const&& noexcept requires(detail::owns_bytes<Tx>) = delete;
  // Precondition: i < output_count() (asserted in debug builds).
  OutputView output(std::size_t i) const& noexcept { return detail::tx_record::output(where(), i); }
  OutputView output(std::size_t i) const&& noexcept requires(!detail::owns_bytes<Tx>) { return detail::tx_record::output(where(), i); }
  OutputView output(std::size_t i) const&& noexcept requires(detail::owns_bytes<Tx>) = delete;
  ItemRange<InputView, &detail::tx_record::input> inputs() const& noexcept { return {where(), input_count()}; }
  ItemRange<InputView, &detail::tx_record::input> inputs() const&& noexcept requires(!detail::owns_bytes<Tx>) {
    return {where(), input_count()};
  }
  ItemRange<InputView, &detail::tx_record::input> inputs() const&& noexcept requires(detail::owns_bytes<Tx>) = delete;
  ItemRange<OutputView, &detail::tx_record::output> outputs() const& noexcept { return {where(), output_count()}; }
  ItemRange<OutputView, &detail::tx_record::output> outputs() const&& noexcept requires(!detail::owns_bytes<Tx>) {
    return {where(), output_count()};
  }
  ItemRange<OutputView, &detail::tx_record::output> outputs() const&& noexcept requires(detail::owns_bytes<Tx>) = delete;
  // What the outputs take: their checked sum, or nothing when a value or
  // the sum is out of the money range (Core's CheckTransaction).
  std::optional<Amount> output_total() const noexcept {
    std::optional<Amount> total = Amount();
    for (std::size_t i = 0; i < output_count() && total; ++i) total = checked_add(*total, detail::tx_record::output(where(), i).value());
    return total;
  }
  // Bitcoin's HasWitness: some input has a non-empty witness stack (the
  // parser refuses a marker and flag with none).
  bool has_witness() const noexcept { return detail::tx_record::segwit(record()); }
  bool is_coinbase() const noexcept {
    if (input_count() != 1) return false;
    const OutPoint prevout = input(0).prevout();
    return prevout.txid.is_all_zeros() && prevout.index == 0xffffffff;
  }

  // The transaction as on the wire, with its witness data (what the wtxid
  // hashes).
  std::span<const std::byte> bytes() const& noexcept { return {base(), size()}; }
  std::span<const std::byte> bytes() const&& noexcept requires(!detail::owns_bytes<Tx>) { return {base(), size()}; }
  std::span<const std::byte> bytes() const&& noexcept requires(detail::owns_bytes<Tx>) = delete;
  std::size_t size() const noexcept { return self().tx_size(); }
  // What the txid hashes, in three runs: the version, the inputs and
  // outputs, the lock time (without the marker, flag and witnesses). The
  // legacy encoding is these runs one after another.
  std::array<std::span<const std::byte>, 3> txid_parts() const noexcept {
    const std::byte* p = base();
    const std::size_t body = has_witness() ? 6 : 4;
    const std::size_t body_end = has_witness() ? record()[detail::tx_record::fields + input_count() + output_count()] : size() - 4;
    return {std::span<const std::byte>(p, 4), std::span<const std::byte>(p + body, p + body_end),
            std::span<const std::byte>(p + size() - 4, 4)};
  }
  std::size_t stripped_size() const noexcept { return has_witness() ? 8 + txid_parts()[1].size() : size(); }
  // The txid hashes the transaction without witness data (what inputs
  // refer to), the wtxid with it (BIP141; the txid when it has none). Both
  // are hashed from the bytes themselves: nothing is encoded again.
  Txid txid() const { return Txid::from_raw_hash(has_witness() ? detail::hash_txid(txid_parts()) : detail::hash_wtxid(bytes())); }
  Wtxid wtxid() const { return Wtxid::from_raw_hash(detail::hash_wtxid(bytes())); }
  std::size_t weight() const noexcept { return 3 * stripped_size() + size(); }
  std::size_t vsize() const noexcept { return (weight() + 3) / 4; }

 private:
  const Tx& self() const noexcept { return static_cast<const Tx&>(*this); }
  const std::byte* base() const noexcept { return self().tx_base(); }
  const std::uint32_t* record() const noexcept { return self().tx_fields(); }
  detail::TxBytes where() const noexcept { return {base(), record(), size()}; }
};

// What reads like a transaction: Transaction, TransactionView.
template <class T>
concept TransactionLike = std::derived_from<T, TransactionReader<T>>;

class Transaction;
class TransactionView;
namespace detail {
struct TransactionAccess;
}

// A transaction that owns its bytes. A default one is the builder's default:
// version 2, no inputs, no outputs, lock time 0.
class Transaction : public TransactionReader<Transaction> {
 public:
  Transaction() noexcept = default;
  Transaction(const Transaction& other);
  Transaction(Transaction&& other) noexcept : rep_(other.rep_) { other.rep_ = Rep{}; }
  Transaction& operator=(const Transaction& other);
  Transaction& operator=(Transaction&& other) noexcept;
  ~Transaction();

  // The same bytes and the same reading of them.
  friend bool operator==(const Transaction& a, const Transaction& b) noexcept;

 private:
  friend class TransactionReader<Transaction>;
  friend class TransactionView;
  friend struct detail::TransactionAccess;

  // Either the allocation (the record's words, then the bytes) and the
  // sizes of its two parts, or, for a transaction with no inputs and no
  // outputs, its 10 bytes themselves: a block of such transactions (the
  // smallest there are) then costs 16 bytes of heap for each 10 it has,
  // not 54. The object's bytes, read as bytes: no pointer is made of them
  // in the inline form.
  static constexpr std::size_t small_size = 10;
  static constexpr std::uint32_t small_mark = 0xffffffff;  // in the words' place; a record has fewer than 2^27
  struct Rep {
    alignas(8) std::byte b[16]{std::byte{2},
                               {},
                               {},
                               {},
                               {},
                               {},
                               {},
                               {},
                               {},
                               {},  // version 2, 0 inputs, 0 outputs, lock time 0
                               {},
                               {},
                               std::byte{0xff},
                               std::byte{0xff},
                               std::byte{0xff},
                               std::byte{0xff}};
  };
  static constexpr std::uint32_t no_fields_[3]{0, 0, 0};

  std::uint32_t words() const noexcept { return load_word(8 + 4); }
  std::uint32_t heap_size() const noexcept { return load_word(8); }
  bool small() const noexcept { return words() == small_mark; }
  std::uint32_t* parts() const noexcept {
    std::uint32_t* p;
    std::memcpy(&p, rep_.b, sizeof p);
    return p;
  }
  std::uint32_t load_word(std::size_t at) const noexcept {
    std::uint32_t v;
    std::memcpy(&v, rep_.b + at, sizeof v);
    return v;
  }

  void set_heap(std::uint32_t* parts, std::uint32_t size, std::uint32_t words) noexcept;

  const std::byte* tx_base() const noexcept { return small() ? rep_.b : reinterpret_cast<const std::byte*>(parts() + words()); }
  std::size_t tx_size() const noexcept { return small() ? small_size : heap_size(); }
  const std::uint32_t* tx_fields() const noexcept { return small() ? no_fields_ : parts(); }

  Rep rep_;
};
static_assert(sizeof(void*) == 8, "Transaction keeps a pointer in 8 of its 16 bytes");

// A transaction's fields in vectors, to build one, or to edit one (the
// constructor from any transaction), then build() it.
class TransactionBuilder {
 public:
  struct Input {
    OutPoint prevout;
    std::vector<std::byte> script_sig;
    std::uint32_t sequence = 0xffffffff;
    std::vector<std::vector<std::byte>> witness;  // its stack's items
  };
  struct Output {
    Amount value;
    std::vector<std::byte> script_pubkey;
  };

  std::uint32_t version = 2;
  std::uint32_t lock_time = 0;
  std::vector<Input> inputs;
  std::vector<Output> outputs;

  TransactionBuilder() = default;
  template <TransactionLike Tx>
  explicit TransactionBuilder(const Tx& tx) : version(tx.version()), lock_time(tx.lock_time()) {
    inputs.reserve(tx.input_count());
    for (const InputView in : tx.inputs()) {
      Input& copy = add_input(in.prevout(), in.script_sig(), in.sequence());
      for (const std::span<const std::byte> item : in.witness()) copy.witness.emplace_back(item.begin(), item.end());
    }
    outputs.reserve(tx.output_count());
    for (const OutputView out : tx.outputs()) add_output(out.value(), out.script_pubkey());
  }

  // Compiled (transaction.cpp): the vectors' growth code is instantiated
  // once there, not in every program that includes this header.
  Input& add_input(const OutPoint& prevout, std::span<const std::byte> script_sig = {}, std::uint32_t sequence = 0xffffffff);
  Output& add_output(Amount value, std::span<const std::byte> script_pubkey);
  // Input `i`'s witness stack becomes copies of `items`: any range of byte
  // spans (an array or vector of spans, a WitnessView).
  template <class Items>
  void set_witness(std::size_t i, const Items& items) {
    auto& stack = inputs.at(i).witness;
    stack.clear();
    for (const std::span<const std::byte> item : items) stack.emplace_back(item.begin(), item.end());
  }

  // The transaction, encoded once and read back by the decoders' parser.
  // With witness data when some stack is not empty. Throws
  // std::length_error when the decoders would refuse it: a count or a
  // length over Bitcoin's MAX_SIZE (2^25), or 4 GiB of bytes or more.
  Transaction build() const;
};

}  // namespace blockwire
