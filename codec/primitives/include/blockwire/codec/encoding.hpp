// The entry points: plain functions compiled into the library. They take a
// writer_ref / reader_ref (any sink or source), buffer it inside, and return
// a result: the first I/O error, or what was wrong with the input and at
// which byte.
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/decode_error.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/buffered_reader.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/reader.hpp>
#include <blockwire/io/writer.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace blockwire {

// witness::allow: BIP144 encoding (marker, flag, witness stacks) for
// transactions that have witness data. witness::disallow: the legacy form.
enum class witness { disallow, allow };

class DecodingContext;  // <blockwire/io/decoding_context.hpp>, the wire toolkit's

result<void> encode_block(const Block& block, writer_ref out, witness mode = witness::allow);
result<void> encode_transaction(const Transaction& tx, writer_ref out, witness mode = witness::allow);
result<void> encode_header(const BlockHeader& header, writer_ref out);

// Into the caller's buffer (as {fmt}'s vformat_to takes one), after what is
// already in it and without flushing: a caller frames the object and writes
// it in one pass (a block-file record: magic, length, block). Errors stay in
// the buffer; its flush() reports them.
void encode_block(const Block& block, StreamWriter& out, witness mode = witness::allow);
void encode_transaction(const Transaction& tx, StreamWriter& out, witness mode = witness::allow);
void encode_header(const BlockHeader& header, StreamWriter& out);

// Appending to a vector cannot fail, and the vector lends its own storage to
// the buffer: each byte is written once, in place.
void encode_block(const Block& block, std::vector<std::byte>& out, witness mode = witness::allow);
void encode_transaction(const Transaction& tx, std::vector<std::byte>& out, witness mode = witness::allow);
void encode_header(const BlockHeader& header, std::vector<std::byte>& out);

// Exact: all of `bytes` is the object; bytes after it are an error.
result<Block> decode_block(std::span<const std::byte> bytes, witness mode = witness::allow);
result<Transaction> decode_transaction(std::span<const std::byte> bytes, witness mode = witness::allow);
result<BlockHeader> decode_header(std::span<const std::byte> bytes);
// Decodes into `out`, reusing its vector of transactions (each transaction
// is one allocation either way): for loops over many blocks. On failure
// `out` holds what was decoded so far.
result<void> decode_block(std::span<const std::byte> bytes, Block& out, witness mode = witness::allow);

// Streaming: consumes exactly one object from `in` and not a byte more, so
// the next object can be decoded from the same source. It cannot read ahead,
// so each field is a read_some call: cheap for memory, a syscall for a bare
// file or socket. For those, use the BufferedReader overloads below.
result<Block> decode_block(reader_ref in, witness mode = witness::allow);
result<Transaction> decode_transaction(reader_ref in, witness mode = witness::allow);
result<BlockHeader> decode_header(reader_ref in);

// Streaming through a buffer you keep (StreamReader: a BufferedReader over a
// reader_ref): reads ahead into it, consumes exactly one object and leaves
// the rest buffered for the next call.
result<Block> decode_block(StreamReader& in, witness mode = witness::allow);
result<Transaction> decode_transaction(StreamReader& in, witness mode = witness::allow);
result<BlockHeader> decode_header(StreamReader& in);

// Inside your own format (the wire toolkit's DecodingContext): one object
// at the context's position; a failure is recorded in `ctx`, with the offset
// the context counts. The counterpart of the StreamWriter& encoders above.
void decode_transaction(DecodingContext& ctx, Transaction& out, witness mode = witness::allow);
// Room the decoder reuses from one transaction to the next: its buffers
// grow once. What it holds between calls means nothing.
struct TransactionScratch {
  std::vector<std::uint32_t> record;
  std::vector<std::byte> bytes;
};
// The same through `scratch`: for many transactions in a row, one
// allocation each.
void decode_transaction(DecodingContext& ctx, Transaction& out, TransactionScratch& scratch, witness mode = witness::allow);
void decode_header(DecodingContext& ctx, BlockHeader& out);

// The encoded size (a transaction knows its own: tx.size(), tx.stripped_size()).
std::size_t serialized_size(const Block& block, witness mode = witness::allow);
std::size_t serialized_size(const Transaction& tx, witness mode = witness::allow);

// BIP141: weight = 3 x the size without witness data + the size with it;
// virtual size = weight / 4, rounded up.
std::size_t weight(const Block& block);
std::size_t weight(const Transaction& tx);
std::size_t vsize(const Transaction& tx);

inline constexpr std::size_t header_size = 80;

}  // namespace blockwire
