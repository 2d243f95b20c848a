// The decoding entry points: a DecodingContext over the span or stream, the
// decoders, and the context's first failure (with its offset) as the error.
#include "detail/decoders.hpp"

#include <blockwire/codec/encoding.hpp>
#include <blockwire/io/decoding_context.hpp>

namespace blockwire {

namespace {

// A span must hold exactly one object.
template <class T, class Decode>
result<T> decode_exact(std::span<const std::byte> bytes, Decode&& decode) {
  DecodingContext ctx(bytes);
  T value{};
  decode(ctx, value);
  if (auto r = wire::finish_exact(ctx, bytes.size()); !r) return r.error();
  return value;
}

// A stream, buffered (StreamReader) or read exactly (reader_ref).
template <class T, class Source, class Decode>
result<T> decode_stream(Source& in, Decode&& decode) {
  DecodingContext ctx(in);
  T value{};
  decode(ctx, value);
  if (!ctx.ok()) return ctx.failure();
  return value;
}

}  // namespace

result<Block> decode_block(std::span<const std::byte> bytes, witness mode) {
  return decode_exact<Block>(bytes, [&](DecodingContext& ctx, Block& b) { detail::decode_block(ctx, b, mode); });
}
result<void> decode_block(std::span<const std::byte> bytes, Block& out, witness mode) {
  DecodingContext ctx(bytes);
  detail::decode_block(ctx, out, mode);
  return wire::finish_exact(ctx, bytes.size());
}
result<Transaction> decode_transaction(std::span<const std::byte> bytes, witness mode) {
  return decode_exact<Transaction>(bytes, [&](DecodingContext& ctx, Transaction& tx) {
    TransactionScratch scratch;
    detail::decode_transaction(ctx, tx, scratch, mode);
  });
}
result<BlockHeader> decode_header(std::span<const std::byte> bytes) { return decode_exact<BlockHeader>(bytes, detail::decode_header); }

void decode_transaction(DecodingContext& ctx, Transaction& out, TransactionScratch& scratch, witness mode) {
  detail::decode_transaction(ctx, out, scratch, mode);
}
void decode_transaction(DecodingContext& ctx, Transaction& out, witness mode) {
  TransactionScratch scratch;
  detail::decode_transaction(ctx, out, scratch, mode);
}
void decode_header(DecodingContext& ctx, BlockHeader& out) { detail::decode_header(ctx, out); }

result<Block> decode_block(StreamReader& in, witness mode) {
  return decode_stream<Block>(in, [&](DecodingContext& ctx, Block& b) { detail::decode_block(ctx, b, mode); });
}
result<Transaction> decode_transaction(StreamReader& in, witness mode) {
  return decode_stream<Transaction>(in, [&](DecodingContext& ctx, Transaction& tx) { decode_transaction(ctx, tx, mode); });
}
result<BlockHeader> decode_header(StreamReader& in) { return decode_stream<BlockHeader>(in, detail::decode_header); }

result<Block> decode_block(reader_ref in, witness mode) {
  return decode_stream<Block>(in, [&](DecodingContext& ctx, Block& b) { detail::decode_block(ctx, b, mode); });
}
result<Transaction> decode_transaction(reader_ref in, witness mode) {
  return decode_stream<Transaction>(in, [&](DecodingContext& ctx, Transaction& tx) { decode_transaction(ctx, tx, mode); });
}
result<BlockHeader> decode_header(reader_ref in) { return decode_stream<BlockHeader>(in, detail::decode_header); }

}  // namespace blockwire
