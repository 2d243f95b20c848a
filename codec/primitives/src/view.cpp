// The views' one pass: the rules and the field order of detail::decode_transaction
// and detail::decode_block, step for step, recording offsets instead of
// copying bytes. (A fuzz target checks that the two accept and reject the
// same inputs, with the same errors at the same offsets.)
#include "detail/decoders.hpp"

#include <blockwire/codec/view.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/io/sha256.hpp>


namespace blockwire {

namespace {

// A transaction's record in the offsets vector (view_detail's rec_*
// fields); the offsets count from the view's base (the block's first byte,
// or the transaction's own). Three words a transaction, so that a block of
// many tiny transactions stays small: the rest is derived. Its end is where
// the next transaction begins (or the input's end); the body (inputs and
// outputs) begins 6 bytes in with a marker and flag, else 4; it ends where
// the first witness stack begins (a segwit transaction has at least one
// input), else 4 bytes before the end.
using namespace view_detail;

std::uint32_t offset32(const DecodingContext& ctx) { return static_cast<std::uint32_t>(ctx.offset()); }

// One transaction, appended to `out` as a record. On failure the context
// holds the error, at the offset decode_transaction would give.
void parse_transaction(DecodingContext& ctx, std::vector<std::uint32_t>& out, witness mode) {
  const std::size_t rec = out.size();
  out.resize(rec + rec_fields);
  const std::uint32_t begin = offset32(ctx);
  ctx.skip(4);  // version
  const auto inputs = [&] {
    const std::uint64_t n = wire::decode_compact_size(ctx);
    for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) {
      out.push_back(offset32(ctx));
      ctx.skip(32 + 4);                          // prevout
      ctx.skip(wire::decode_compact_size(ctx));  // script_sig
      ctx.skip(4);                               // sequence
    }
    return n;
  };
  const auto outputs = [&] {
    const std::uint64_t n = wire::decode_compact_size(ctx);
    for (std::uint64_t i = 0; i < n && ctx.ok(); ++i) {
      out.push_back(offset32(ctx));
      ctx.skip(8);                               // value
      ctx.skip(wire::decode_compact_size(ctx));  // script_pubkey
    }
    return n;
  };
  std::uint64_t n_in = inputs();
  std::uint64_t n_out = 0;
  std::uint8_t flags = 0;
  if (n_in == 0 && mode == witness::allow && ctx.ok()) {
    flags = wire::decode_u8(ctx);  // the "no inputs" was the marker
    if (flags != 0) {
      n_in = inputs();
      n_out = outputs();
    }
  } else {
    n_out = outputs();
  }
  bool segwit = false;
  if ((flags & 1) != 0 && mode == witness::allow && ctx.ok()) {
    flags ^= 1;
    segwit = true;
    bool any_item = false;
    for (std::uint64_t i = 0; i < n_in && ctx.ok(); ++i) {
      out.push_back(offset32(ctx));
      const std::uint64_t items = wire::decode_compact_size(ctx);
      any_item = any_item || items != 0;
      for (std::uint64_t k = 0; k < items && ctx.ok(); ++k) ctx.skip(wire::decode_compact_size(ctx));
    }
    if (ctx.ok() && !any_item) ctx.fail(decode_errc::superfluous_witness);
  }
  if (flags != 0 && ctx.ok()) ctx.fail(decode_errc::unknown_witness_flag);
  ctx.skip(4);  // lock time
  std::uint32_t* r = out.data() + rec;
  r[rec_begin] = begin;
  r[rec_inputs] = static_cast<std::uint32_t>(n_in) | (segwit ? segwit_bit : 0);
  r[rec_outputs] = static_cast<std::uint32_t>(n_out);
}

// Offsets are 32-bit: an input of 4 GiB or more is refused up front.
bool fits_offsets(std::span<const std::byte> bytes) { return bytes.size() < (std::uint64_t{1} << 32); }

}  // namespace

// TransactionView --------------------------------------------------------------

result<TransactionView> TransactionView::parse(std::span<const std::byte> bytes, witness mode) {
  if (!fits_offsets(bytes)) return error(decode_errc::size_too_large, 0);
  DecodingContext ctx(bytes);
  std::vector<std::uint32_t> offsets;
  parse_transaction(ctx, offsets, mode);
  if (auto r = wire::finish_exact(ctx, bytes.size()); !r) return r.error();
  TransactionView view(bytes.data(), nullptr, static_cast<std::uint32_t>(bytes.size()));
  view.owned_ = std::move(offsets);
  view.record_ = view.owned_.data();
  return view;
}

TransactionView::TransactionView(const TransactionView& other)
    : base_(other.base_), record_(other.record_), end_(other.end_), owned_(other.owned_) {
  if (!owned_.empty()) record_ = owned_.data();
}

TransactionView& TransactionView::operator=(const TransactionView& other) {
  if (this != &other) {
    base_ = other.base_;
    end_ = other.end_;
    owned_ = other.owned_;
    record_ = owned_.empty() ? other.record_ : owned_.data();
  }
  return *this;
}


std::uint32_t TransactionView::body_begin() const noexcept { return at(rec_begin) + (has_witness() ? 6 : 4); }
std::uint32_t TransactionView::body_end() const noexcept {
  return has_witness() ? at(rec_fields + input_count() + output_count()) : end_ - 4;
}


std::size_t TransactionView::stripped_size() const noexcept { return 4 + (body_end() - body_begin()) + 4; }

Hash256 TransactionView::wtxid() const { return sha256d(bytes()); }

std::array<std::span<const std::byte>, 3> TransactionView::txid_parts() const noexcept {
  return {std::span<const std::byte>(base_ + at(rec_begin), 4), std::span<const std::byte>(base_ + body_begin(), base_ + body_end()),
          std::span<const std::byte>(base_ + end_ - 4, 4)};
}

Hash256 TransactionView::txid() const {
  if (!has_witness()) return wtxid();  // the same bytes
  Sha256 sha;
  for (const auto& part : txid_parts()) sha.update(part);
  return sha256d_of(sha);
}

namespace {

// The view's transaction into `tx` (cleared first), to be built.
void fill(const TransactionView& view, TransactionBuilder& tx) {
  tx.clear();
  tx.version = view.version();
  tx.lock_time = view.lock_time();
  tx.inputs.reserve(view.input_count());
  for (std::size_t i = 0; i < view.input_count(); ++i) {
    const InputView in = view.input(i);
    TxIn& out = tx.inputs.emplace_back();
    out.prevout = in.prevout;
    out.script_sig = tx.append(in.script_sig);
    out.sequence = in.sequence;
    tx.set_witness(out, in.witness);
  }
  tx.outputs.reserve(view.output_count());
  for (std::size_t i = 0; i < view.output_count(); ++i) {
    const OutputView o = view.output(i);
    tx.outputs.push_back({o.value, tx.append(o.script_pubkey)});
  }
}

}  // namespace

Transaction TransactionView::to_transaction() const {
  TransactionBuilder tx;
  tx.payload.reserve(size());  // at most the bytes it came from
  fill(*this, tx);
  return tx.build();
}

// BlockView --------------------------------------------------------------------

result<BlockView> BlockView::parse(std::span<const std::byte> bytes, witness mode) {
  if (!fits_offsets(bytes)) return error(decode_errc::size_too_large, 0);
  DecodingContext ctx(bytes);
  BlockView view;
  view.bytes_ = bytes;
  detail::decode_header(ctx, view.header_);
  const std::uint64_t n = wire::decode_compact_size(ctx);
  // The index first (where each record begins), then the records. The
  // index holds no more entries than the bytes left can hold transactions:
  // a count beyond that runs out of bytes first. A guess at the records'
  // size saves most regrowth on real blocks.
  const std::size_t indexed = wire::reserve_for(ctx, n, detail::min_tx_size);
  view.offsets_.reserve((1 + rec_fields) * indexed + bytes.size() / 16);
  view.offsets_.resize(indexed);
  std::uint64_t i = 0;
  for (; i < n && ctx.ok(); ++i) {
    const auto record = static_cast<std::uint32_t>(view.offsets_.size());
    parse_transaction(ctx, view.offsets_, mode);
    if (i < indexed) view.offsets_[i] = record;  // past the index, the bytes have run out: ctx has failed
  }
  if (auto r = wire::finish_exact(ctx, bytes.size()); !r) return r.error();
  view.count_ = static_cast<std::size_t>(n);
  return view;
}

std::size_t BlockView::stripped_size() const noexcept {
  wire::SizeCounter count_size;
  wire::encode_compact_size(count_size, count_);
  std::size_t size = header_size + count_size.size();
  for (std::size_t i = 0; i < count_; ++i) size += transaction(i).stripped_size();
  return size;
}

Block BlockView::to_block() const {
  Block block;
  block.header = header_;
  block.transactions.reserve(count_);
  TransactionBuilder scratch;  // reused: one allocation a transaction
  for (std::size_t i = 0; i < count_; ++i) {
    fill(transaction(i), scratch);
    block.transactions.push_back(scratch.build());
  }
  return block;
}

}  // namespace blockwire
