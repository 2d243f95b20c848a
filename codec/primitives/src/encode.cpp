// The encoding entry points: each wraps its sink in a buffer (or takes the
// caller's), runs the encoders, and flushes once.
#include "detail/encoders.hpp"

#include <blockwire/codec/encoding.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/vector_writer.hpp>

namespace blockwire {

namespace {

template <class Encode>
result<void> encode_buffered(writer_ref out, Encode&& encode) {
  StreamWriter w(out);
  encode(w);
  return w.flush();
}

// Into a vector: the exact size is arithmetic over what the objects hold
// (serialized_size), so the vector grows once and each write is a copy to
// its end. A transaction is its wire bytes: a block is a few such copies,
// where a buffer in between copied every byte twice, and a lent buffer
// zeroed the vector's storage first (block 413567: 28 us this way, 39 and
// 48 us those).
template <class Encode>
void encode_reserved(std::vector<std::byte>& out, std::size_t size, Encode&& encode) {
  out.reserve(out.size() + size);
  VectorWriter sink(out);
  BufferedWriter<VectorWriter&, 0> w(sink);
  encode(w);
  (void)w.flush();  // a vector sink cannot fail
}

template <class Encode>
std::size_t size_of(Encode&& encode) {
  wire::SizeCounter size;
  encode(size);
  return size.size();
}

}  // namespace

void encode_block(const Block& block, StreamWriter& out, witness mode) { detail::encode_block(out, block, mode); }
void encode_transaction(const Transaction& tx, StreamWriter& out, witness mode) { detail::encode_transaction(out, tx, mode); }
void encode_header(const BlockHeader& header, StreamWriter& out) { detail::encode_header(out, header); }

void encode_block(const Block& block, std::vector<std::byte>& out, witness mode) {
  encode_reserved(out, serialized_size(block, mode), [&](auto& w) { detail::encode_block(w, block, mode); });
}

void encode_transaction(const Transaction& tx, std::vector<std::byte>& out, witness mode) {
  encode_reserved(out, serialized_size(tx, mode), [&](auto& w) { detail::encode_transaction(w, tx, mode); });
}

void encode_header(const BlockHeader& header, std::vector<std::byte>& out) {
  encode_reserved(out, header_size, [&](auto& w) { detail::encode_header(w, header); });
}

result<void> encode_block(const Block& block, writer_ref out, witness mode) {
  return encode_buffered(out, [&](auto& w) { detail::encode_block(w, block, mode); });
}

result<void> encode_transaction(const Transaction& tx, writer_ref out, witness mode) {
  return encode_buffered(out, [&](auto& w) { detail::encode_transaction(w, tx, mode); });
}

result<void> encode_header(const BlockHeader& header, writer_ref out) {
  return encode_buffered(out, [&](auto& w) { detail::encode_header(w, header); });
}

std::size_t serialized_size(const Block& block, witness mode) {
  return size_of([&](auto& w) { detail::encode_block(w, block, mode); });
}

std::size_t serialized_size(const Transaction& tx, witness mode) { return mode == witness::allow ? tx.size() : tx.stripped_size(); }

std::size_t weight(const Block& block) { return 3 * serialized_size(block, witness::disallow) + serialized_size(block); }
std::size_t weight(const Transaction& tx) { return tx.weight(); }
std::size_t vsize(const Transaction& tx) { return tx.vsize(); }

}  // namespace blockwire
