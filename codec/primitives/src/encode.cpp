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

template <class Encode>
void encode_lending(std::vector<std::byte>& out, Encode&& encode) {
  VectorWriter sink(out);
  BufferedWriter<VectorWriter&> w(sink);
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
  encode_lending(out, [&](auto& w) { detail::encode_block(w, block, mode); });
}

void encode_transaction(const Transaction& tx, std::vector<std::byte>& out, witness mode) {
  encode_lending(out, [&](auto& w) { detail::encode_transaction(w, tx, mode); });
}

void encode_header(const BlockHeader& header, std::vector<std::byte>& out) {
  encode_lending(out, [&](auto& w) { detail::encode_header(w, header); });
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
