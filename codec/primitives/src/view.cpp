// The views: the decoders' parser over bytes in memory, keeping its record
// and leaving the bytes where they are.
#include "detail/decoders.hpp"

#include <blockwire/codec/view.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/io/decoding_context.hpp>

namespace blockwire {

namespace {

// Offsets are 32-bit: an input of 4 GiB or more is refused up front.
bool fits_offsets(std::span<const std::byte> bytes) { return bytes.size() < (std::uint64_t{1} << 32); }

std::span<const std::uint32_t> whole_record(const std::uint32_t* record) { return {record, detail::tx_record::words(record)}; }

}  // namespace

// TransactionView --------------------------------------------------------------

result<TransactionView> TransactionView::parse(std::span<const std::byte> bytes, witness mode) {
  if (!fits_offsets(bytes)) return error(codec::errc::size_too_large, 0);
  DecodingContext ctx(bytes);
  std::vector<std::uint32_t> record;
  detail::parse_transaction(ctx, record, mode);
  if (auto r = wire::finish_exact(ctx, bytes.size()); !r) return r.error();
  TransactionView view(bytes.data(), nullptr, static_cast<std::uint32_t>(bytes.size()));
  view.owned_ = std::move(record);
  view.record_ = view.owned_.data();
  return view;
}

TransactionView::TransactionView(const Transaction& tx) noexcept
    : base_(tx.tx_base()), record_(tx.tx_fields()), size_(static_cast<std::uint32_t>(tx.tx_size())) {}

TransactionView::TransactionView(const TransactionView& other)
    : base_(other.base_), record_(other.record_), size_(other.size_), owned_(other.owned_) {
  if (!owned_.empty()) record_ = owned_.data();
}

TransactionView& TransactionView::operator=(const TransactionView& other) {
  if (this != &other) {
    base_ = other.base_;
    size_ = other.size_;
    owned_ = other.owned_;
    record_ = owned_.empty() ? other.record_ : owned_.data();
  }
  return *this;
}

namespace {
// What a moved-from view reads: the default transaction (version 2, no
// inputs, no outputs, lock time 0) and its record (begin 0, no counts).
constexpr std::uint32_t empty_record[detail::tx_record::fields]{};
constexpr std::byte empty_bytes[10]{std::byte{2}};
}  // namespace

void TransactionView::make_empty() noexcept {
  base_ = empty_bytes;
  record_ = empty_record;
  size_ = sizeof empty_bytes;
  owned_.clear();
}

TransactionView::TransactionView(TransactionView&& other) noexcept
    : base_(other.base_), record_(other.record_), size_(other.size_), owned_(std::move(other.owned_)) {
  other.make_empty();  // its record_ would point into our owned_
}

TransactionView& TransactionView::operator=(TransactionView&& other) noexcept {
  if (this != &other) {
    base_ = other.base_;
    record_ = other.record_;
    size_ = other.size_;
    owned_ = std::move(other.owned_);  // the buffer moves: record_ still points into it
    other.make_empty();
  }
  return *this;
}

Transaction TransactionView::to_transaction() const { return detail::TransactionAccess::make(whole_record(record_), bytes()); }

// BlockView --------------------------------------------------------------------

namespace {
// What a default or moved-from view reads: a default (all-zero) header and
// a transaction count of 0.
constexpr std::byte empty_block[header_size + 1]{};
}  // namespace

void BlockView::make_empty() noexcept {
  bytes_ = empty_block;
  header_ = BlockHeader{};
  count_ = 0;
  offsets_.clear();
}

BlockView::BlockView() noexcept : bytes_(empty_block) {}

BlockView::BlockView(BlockView&& other) noexcept
    : bytes_(other.bytes_), header_(other.header_), count_(other.count_), offsets_(std::move(other.offsets_)) {
  other.make_empty();  // its count would index the offsets it no longer has
}

BlockView& BlockView::operator=(BlockView&& other) noexcept {
  if (this != &other) {
    bytes_ = other.bytes_;
    header_ = other.header_;
    count_ = other.count_;
    offsets_ = std::move(other.offsets_);
    other.make_empty();
  }
  return *this;
}

result<BlockView> BlockView::parse(std::span<const std::byte> bytes, witness mode) {
  if (!fits_offsets(bytes)) return error(codec::errc::size_too_large, 0);
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
  std::uint64_t i = 0;
  if (ctx.ok() && n <= indexed) {
    // One memory cursor over the whole block, the records written through
    // a pointer into room made up front (the vector's size): position and
    // pointer stay in registers from one transaction to the next. It stops
    // at the first thing it does not take, and the reference below goes on
    // from that transaction for the error and its byte.
    // Room for the index and a guess at the records (real blocks use about
    // one word for every 50-70 bytes), written as zeros: it follows the
    // bytes, not the count, beyond the index; the rest grows as parsed.
    view.offsets_.resize(indexed + bytes.size() / 32);
    detail::MemoryCursor c{ctx.position(), bytes.data() + bytes.size(), bytes.data(), 0};
    detail::RecordOut out(view.offsets_, indexed);
    for (; i < n; ++i) {
      const std::byte* at = c.pos;
      const std::size_t record = out.used();
      if (!detail::parse_transaction_with(c, out, mode)) [[unlikely]] {
        out.out = out.base + record;
        c.pos = at;
        break;
      }
      out.base[i] = static_cast<std::uint32_t>(record);
    }
    view.offsets_.resize(out.used());
    ctx.skip(static_cast<std::uint64_t>(c.pos - ctx.position()));
  } else {
    view.offsets_.reserve((1 + detail::tx_record::fields) * indexed + bytes.size() / 16);
    view.offsets_.resize(indexed);
  }
  for (; i < n && ctx.ok(); ++i) {
    const auto record = static_cast<std::uint32_t>(view.offsets_.size());
    detail::parse_transaction(ctx, view.offsets_, mode);
    if (i < indexed) view.offsets_[i] = record;  // past the index, the bytes have run out: ctx has failed
  }
  if (auto r = wire::finish_exact(ctx, bytes.size()); !r) return r.error();
  view.count_ = static_cast<std::size_t>(n);
  return view;
}

result<BlockHeader> BlockView::visit(std::span<const std::byte> bytes, TransactionVisitor visitor, witness mode) {
  if (!fits_offsets(bytes)) return error(codec::errc::size_too_large, 0);
  DecodingContext ctx(bytes);
  BlockHeader header;
  detail::decode_header(ctx, header);
  const std::uint64_t n = wire::decode_compact_size(ctx);
  // One transaction's record at a time, its room kept: after the first
  // few transactions nothing is allocated. As in parse, one memory cursor
  // over the block, and the reference from the first transaction it stops
  // at.
  std::vector<std::uint32_t> record(256);
  std::uint64_t i = 0;
  if (ctx.ok()) {
    detail::MemoryCursor c{ctx.position(), bytes.data() + bytes.size(), bytes.data(), 0};
    detail::RecordOut out(record, 0);
    for (; i < n; ++i) {
      const std::byte* at = c.pos;
      out.out = out.base;
      if (!detail::parse_transaction_with(c, out, mode)) [[unlikely]] {
        c.pos = at;
        break;
      }
      const TransactionView tx(at, out.base, static_cast<std::uint32_t>(c.pos - at));
      visitor.visit(visitor.context, tx);
    }
    ctx.skip(static_cast<std::uint64_t>(c.pos - ctx.position()));
  }
  record.clear();
  for (; i < n && ctx.ok(); ++i) {
    record.clear();
    detail::parse_transaction(ctx, record, mode);
    if (!ctx.ok()) break;
    const std::uint32_t begin = record[detail::tx_record::begin];
    const TransactionView tx(bytes.data() + begin, record.data(), static_cast<std::uint32_t>(ctx.offset() - begin));
    visitor.visit(visitor.context, tx);
  }
  if (auto r = wire::finish_exact(ctx, bytes.size()); !r) return r.error();
  return header;
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
  for (std::size_t i = 0; i < count_; ++i) block.transactions.push_back(transaction(i).to_transaction());
  return block;
}

}  // namespace blockwire
