#include <blockwire/codec/transaction.hpp>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

namespace blockwire {

// The decoders' reservations count on it (see detail::decode_block).
static_assert(sizeof(Transaction) == 8 + sizeof(void*));
// Each part starts aligned for its items (see Transaction::Counts).
static_assert(alignof(TxOut) <= 16 && alignof(TxIn) <= alignof(TxOut) && alignof(ByteRange) <= alignof(TxOut));
static_assert(sizeof(TxOut) % alignof(TxIn) == 0 && sizeof(TxIn) % alignof(ByteRange) == 0);

namespace {

// Copies a part's items to `at` in the allocation, and says where it ends.
template <class T>
std::size_t copy_part(std::byte* base, std::size_t at, std::span<const T> items) {
  if (!items.empty()) std::memcpy(base + at, items.data(), items.size_bytes());
  return at + items.size_bytes();
}

}  // namespace

Transaction::Transaction(const Transaction& other) : version(other.version), lock_time(other.lock_time) {
  if (other.owns_parts()) {
    const std::size_t size = allocation_size(*other.parts_);
    parts_ = static_cast<Counts*>(::operator new(size));
    std::memcpy(parts_, other.parts_, size);  // every part is plain bytes and offsets
  }
}

Transaction& Transaction::operator=(const Transaction& other) {
  if (this != &other) *this = Transaction(other);
  return *this;
}

Transaction& Transaction::operator=(Transaction&& other) noexcept {
  if (this != &other) {
    if (owns_parts()) ::operator delete(parts_);
    version = other.version;
    lock_time = other.lock_time;
    parts_ = std::exchange(other.parts_, &no_parts_);
  }
  return *this;
}

Transaction::~Transaction() {
  if (owns_parts()) ::operator delete(parts_);
}

bool operator==(const Transaction& a, const Transaction& b) noexcept {
  const auto a_in = a.inputs(), b_in = b.inputs();
  const auto a_out = a.outputs(), b_out = b.outputs();
  if (a.version != b.version || a.lock_time != b.lock_time || a_in.size() != b_in.size() || a_out.size() != b_out.size()) {
    return false;
  }
  const auto same_bytes = [&](ByteRange x, ByteRange y) { return std::ranges::equal(a.bytes(x), b.bytes(y)); };
  for (std::size_t i = 0; i < a_in.size(); ++i) {
    const TxIn& x = a_in[i];
    const TxIn& y = b_in[i];
    if (x.prevout != y.prevout || x.sequence != y.sequence || !same_bytes(x.script_sig, y.script_sig)) return false;
    if (!std::ranges::equal(a.witness(x), b.witness(y), same_bytes)) return false;
  }
  for (std::size_t i = 0; i < a_out.size(); ++i) {
    const TxOut& x = a_out[i];
    const TxOut& y = b_out[i];
    if (x.value != y.value || !same_bytes(x.script_pubkey, y.script_pubkey)) return false;
  }
  return true;
}

TransactionBuilder::TransactionBuilder(const Transaction& tx)
    : version(tx.version),
      lock_time(tx.lock_time),
      inputs(tx.inputs().begin(), tx.inputs().end()),
      outputs(tx.outputs().begin(), tx.outputs().end()),
      payload(tx.payload().begin(), tx.payload().end()),
      witness_items(tx.witness_items().begin(), tx.witness_items().end()) {}

ByteRange TransactionBuilder::append(std::span<const std::byte> bytes) {
  // Offsets and sizes are 32 bits: checked before they are narrowed, as build() checks its parts.
  if (bytes.size() > std::numeric_limits<std::uint32_t>::max() - payload.size() || payload.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("blockwire::TransactionBuilder: a payload of 2^32 bytes or more");
  }
  const ByteRange range{static_cast<std::uint32_t>(payload.size()), static_cast<std::uint32_t>(bytes.size())};
  payload.insert(payload.end(), bytes.begin(), bytes.end());
  return range;
}

void TransactionBuilder::start_witness(TxIn& in) noexcept {
  in.witness_begin = static_cast<std::uint32_t>(witness_items.size());
  in.witness_size = 0;
}

void TransactionBuilder::add_witness_item(TxIn& in, std::span<const std::byte> item) {
  assert(in.witness_begin + in.witness_size == witness_items.size());  // the stack started last
  if (witness_items.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("blockwire::TransactionBuilder: 2^32 witness items or more");
  }
  witness_items.push_back(append(item));
  ++in.witness_size;
}

void TransactionBuilder::clear() noexcept {
  inputs.clear();
  outputs.clear();
  payload.clear();
  witness_items.clear();
}

Transaction TransactionBuilder::build() const {
#ifndef NDEBUG
  const auto inside = [](std::size_t offset, std::size_t size, std::size_t total) { return offset <= total && size <= total - offset; };
  for (const TxIn& in : inputs) {
    assert(inside(in.script_sig.offset, in.script_sig.size, payload.size()));
    assert(in.witness_size == 0 || inside(in.witness_begin, in.witness_size, witness_items.size()));
  }
  for (const TxOut& out : outputs) assert(inside(out.script_pubkey.offset, out.script_pubkey.size, payload.size()));
  for (const ByteRange& item : witness_items) assert(inside(item.offset, item.size, payload.size()));
#endif
  for (const std::size_t n : {outputs.size(), inputs.size(), witness_items.size(), payload.size()}) {
    if (n > UINT32_MAX) throw std::length_error("blockwire::TransactionBuilder::build: a part of 2^32 items or more");
  }
  Transaction tx;
  tx.version = version;
  tx.lock_time = lock_time;
  const Transaction::Counts counts{static_cast<std::uint32_t>(outputs.size()), static_cast<std::uint32_t>(inputs.size()),
                                   static_cast<std::uint32_t>(witness_items.size()), static_cast<std::uint32_t>(payload.size())};
  if (Transaction::allocation_size(counts) == sizeof counts) return tx;  // nothing to hold
  auto* base = static_cast<std::byte*>(::operator new(Transaction::allocation_size(counts)));
  std::memcpy(base, &counts, sizeof counts);
  std::size_t at = sizeof counts;
  at = copy_part(base, at, std::span<const TxOut>(outputs));
  at = copy_part(base, at, std::span<const TxIn>(inputs));
  at = copy_part(base, at, std::span<const ByteRange>(witness_items));
  copy_part(base, at, std::span<const std::byte>(payload));
  tx.parts_ = reinterpret_cast<Transaction::Counts*>(base);
  return tx;
}

}  // namespace blockwire
