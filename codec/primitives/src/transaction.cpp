// Transactions' storage, and the builder: its fields encoded once, then
// read back by the decoders' parser, so that a built transaction and a
// decoded one are the same thing (the parser's record over the bytes).
#include "detail/decoders.hpp"
#include "detail/encoders.hpp"

#include <blockwire/codec/transaction.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/span_writer.hpp>

#include <cstring>
#include <new>
#include <stdexcept>
#include <utility>

namespace blockwire {

// The decoders' reservations count on it (see detail::decode_block).
static_assert(sizeof(Transaction) == 8 + sizeof(void*));

void Transaction::set_heap(std::uint32_t* parts, std::uint32_t size, std::uint32_t words) noexcept {
  std::memcpy(rep_.b, &parts, sizeof parts);
  std::memcpy(rep_.b + 8, &size, sizeof size);
  std::memcpy(rep_.b + 12, &words, sizeof words);
}

Transaction detail::TransactionAccess::make(std::span<const std::uint32_t> record, std::span<const std::byte> bytes) {
  Transaction tx;
  if (record.size() == tx_record::fields && bytes.size() == Transaction::small_size) {  // no inputs, no outputs
    std::memcpy(tx.rep_.b, bytes.data(), bytes.size());
    return tx;
  }
  const std::size_t record_bytes = record.size_bytes();
  auto* parts = static_cast<std::uint32_t*>(::operator new(record_bytes + bytes.size()));
  std::memcpy(parts, record.data(), record_bytes);
  parts[tx_record::begin] = 0;  // its bytes are its own now
  if (!bytes.empty()) std::memcpy(reinterpret_cast<std::byte*>(parts) + record_bytes, bytes.data(), bytes.size());
  tx.set_heap(parts, static_cast<std::uint32_t>(bytes.size()), static_cast<std::uint32_t>(record.size()));
  return tx;
}

Transaction::Transaction(const Transaction& other) : rep_(other.rep_) {
  if (!other.small()) {
    const std::size_t n = std::size_t{words()} * sizeof(std::uint32_t) + heap_size();
    auto* parts = static_cast<std::uint32_t*>(::operator new(n));
    std::memcpy(parts, other.parts(), n);  // offsets and bytes: nothing points into itself
    set_heap(parts, heap_size(), words());
  }
}

Transaction& Transaction::operator=(const Transaction& other) {
  if (this != &other) *this = Transaction(other);
  return *this;
}

Transaction& Transaction::operator=(Transaction&& other) noexcept {
  if (this != &other) {
    if (!small()) ::operator delete(parts());
    rep_ = other.rep_;
    other.rep_ = Rep{};
  }
  return *this;
}

Transaction::~Transaction() {
  if (!small()) ::operator delete(parts());
}

bool operator==(const Transaction& a, const Transaction& b) noexcept {
  const auto x = a.bytes(), y = b.bytes();
  const std::uint32_t* rx = a.tx_fields();
  const std::uint32_t* ry = b.tx_fields();
  const std::size_t words = detail::tx_record::words(rx);
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size()) == 0 && words == detail::tx_record::words(ry) &&
         std::memcmp(rx + 1, ry + 1, (words - 1) * sizeof(std::uint32_t)) == 0;  // word 0, its begin, is always 0
}

// The builder ------------------------------------------------------------------

namespace {

using namespace wire;

inline constexpr struct {
  void operator()(ByteSink auto& w, const TransactionBuilder::Input& in) const {
    blockwire::detail::encode_outpoint(w, in.prevout);
    encode_bytes(w, in.script_sig);
    encode_u32(w, in.sequence);
  }
} encode_input;

inline constexpr struct {
  void operator()(ByteSink auto& w, const TransactionBuilder::Output& out) const {
    encode_amount(w, out.value);
    encode_bytes(w, out.script_pubkey);
  }
} encode_output;

inline constexpr struct {
  void operator()(ByteSink auto& w, const std::vector<std::byte>& item) const { encode_bytes(w, item); }
} encode_witness_item;

// BIP144: marker 0x00 and flag 0x01 before the inputs, the witness stacks
// after the outputs, when some stack is not empty.
inline constexpr struct {
  void operator()(ByteSink auto& w, const TransactionBuilder& tx, bool segwit) const {
    encode_u32(w, tx.version);
    if (segwit) {
      encode_u8(w, 0x00);  // marker: what an old parser reads as "no inputs"
      encode_u8(w, 0x01);  // flag: witness stacks follow the outputs
    }
    encode_range(w, tx.inputs, encode_input);
    encode_range(w, tx.outputs, encode_output);
    if (segwit) {
      for (const auto& in : tx.inputs) encode_range(w, in.witness, encode_witness_item);
    }
    encode_u32(w, tx.lock_time);
  }
} encode_built;

void check_size(std::size_t n) {
  if (n > wire::max_size) throw std::length_error("blockwire::TransactionBuilder::build: a count or length over 2^25");
}

}  // namespace

TransactionBuilder::Input& TransactionBuilder::add_input(const OutPoint& prevout, std::span<const std::byte> script_sig,
                                                         std::uint32_t sequence) {
  Input& in = inputs.emplace_back();
  in.prevout = prevout;
  in.script_sig.assign(script_sig.begin(), script_sig.end());
  in.sequence = sequence;
  return in;
}

TransactionBuilder::Output& TransactionBuilder::add_output(Amount value, std::span<const std::byte> script_pubkey) {
  Output& out = outputs.emplace_back();
  out.value = value;
  out.script_pubkey.assign(script_pubkey.begin(), script_pubkey.end());
  return out;
}

Transaction TransactionBuilder::build() const {
  // What the parser would refuse, refused first: it cannot fail after.
  bool segwit = false;
  check_size(inputs.size());
  check_size(outputs.size());
  for (const Input& in : inputs) {
    check_size(in.script_sig.size());
    check_size(in.witness.size());
    for (const auto& item : in.witness) check_size(item.size());
    segwit = segwit || !in.witness.empty();
  }
  for (const Output& out : outputs) check_size(out.script_pubkey.size());
  SizeCounter size;
  encode_built(size, *this, segwit);
  if (size.size() > UINT32_MAX) throw std::length_error("blockwire::TransactionBuilder::build: 4 GiB or more");

  std::vector<std::byte> bytes(size.size());
  SpanWriter sink(bytes);
  BufferedWriter<SpanWriter&, 0> out(sink);  // sized by the same encoder: it fits
  encode_built(out, *this, segwit);
  // Without witness data, read as the legacy form: a transaction with no
  // inputs would otherwise read as a marker and flag.
  DecodingContext ctx(bytes);
  std::vector<std::uint32_t> record;
  record.reserve(blockwire::detail::tx_record::fields + 2 * inputs.size() + outputs.size());
  blockwire::detail::parse_transaction(ctx, record, segwit ? witness::allow : witness::disallow);
  if (!ctx.ok() || ctx.offset() != bytes.size()) throw std::logic_error("blockwire::TransactionBuilder::build: the parser disagrees");
  return blockwire::detail::TransactionAccess::make(record, bytes);
}

}  // namespace blockwire
