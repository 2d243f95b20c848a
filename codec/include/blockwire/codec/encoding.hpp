// The entry points: plain functions compiled into the library. They take a
// writer_ref / reader_ref (any sink or source), buffer it inside, and return
// a result: the first I/O error, or what was wrong with the input and at
// which byte.
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/decode_error.hpp>
#include <blockwire/codec/transaction.hpp>
#include <blockwire/io/buffered_reader.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/reader.hpp>
#include <blockwire/io/writer.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace blockwire {

// witness::allow: BIP144 encoding (marker, flag, witness stacks) for
// transactions that have witness data. witness::disallow: the legacy form.
enum class witness { disallow, allow };

result<void> encode_block(const Block& block, writer_ref out, witness mode = witness::allow);
result<void> encode_transaction(const Transaction& tx, writer_ref out, witness mode = witness::allow);
result<void> encode_header(const BlockHeader& header, writer_ref out);

// Appending to a vector cannot fail, and the vector lends its own storage to
// the buffer: each byte is written once, in place.
void encode_block(const Block& block, std::vector<std::byte>& out, witness mode = witness::allow);
void encode_transaction(const Transaction& tx, std::vector<std::byte>& out, witness mode = witness::allow);
void encode_header(const BlockHeader& header, std::vector<std::byte>& out);

// Exact: all of `bytes` is the object; bytes after it are an error.
result<Block> decode_block(std::span<const std::byte> bytes, witness mode = witness::allow);
result<Transaction> decode_transaction(std::span<const std::byte> bytes, witness mode = witness::allow);
result<BlockHeader> decode_header(std::span<const std::byte> bytes);
// Decodes into `out`, reusing the memory of the block it held: for loops
// over many blocks, where it saves most allocations. On failure `out` holds
// what was decoded so far.
result<void> decode_block(std::span<const std::byte> bytes, Block& out, witness mode = witness::allow);

// Streaming: consumes exactly one object from `in` and not a byte more, so
// the next object can be decoded from the same source. It cannot read ahead,
// so each field is a read_some call: cheap for memory, a syscall for a bare
// file or socket. For those, use the BufferedReader overloads below.
result<Block> decode_block(reader_ref in, witness mode = witness::allow);
result<Transaction> decode_transaction(reader_ref in, witness mode = witness::allow);
result<BlockHeader> decode_header(reader_ref in);

// Streaming through a buffer you keep: reads ahead into it, consumes exactly
// one object and leaves the rest buffered for the next call.
using StreamReader = BufferedReader<reader_ref>;
result<Block> decode_block(StreamReader& in, witness mode = witness::allow);
result<Transaction> decode_transaction(StreamReader& in, witness mode = witness::allow);
result<BlockHeader> decode_header(StreamReader& in);

// The encoded size, computed from the object's counts and lengths.
std::size_t serialized_size(const Block& block, witness mode = witness::allow);
std::size_t serialized_size(const Transaction& tx, witness mode = witness::allow);

inline constexpr std::size_t header_size = 80;

}  // namespace blockwire
