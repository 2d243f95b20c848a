// The encoding entry points: each wraps the writer_ref in a BufferedWriter
// on its stack, runs the encoders, and flushes once.
#include "detail/encoders.hpp"

#include <blockwire/codec/encoding.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/vector_writer.hpp>

namespace blockwire {

namespace {

template <class Encode>
result<void> encode_buffered(writer_ref out, Encode&& encode) {
  BufferedWriter<writer_ref> w(out);
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

}  // namespace

void encode_block(const Block& block, std::vector<std::byte>& out, witness mode) {
  encode_lending(out, [&](auto& w) { detail::encode_full_block(w, block, mode); });
}

void encode_transaction(const Transaction& tx, std::vector<std::byte>& out, witness mode) {
  encode_lending(out, [&](auto& w) { detail::encode_tx(w, tx, mode); });
}

void encode_header(const BlockHeader& header, std::vector<std::byte>& out) {
  encode_lending(out, [&](auto& w) { detail::encode_block_header(w, header); });
}

result<void> encode_block(const Block& block, writer_ref out, witness mode) {
  return encode_buffered(out, [&](auto& w) { detail::encode_full_block(w, block, mode); });
}

result<void> encode_transaction(const Transaction& tx, writer_ref out, witness mode) {
  return encode_buffered(out, [&](auto& w) { detail::encode_tx(w, tx, mode); });
}

result<void> encode_header(const BlockHeader& header, writer_ref out) {
  return encode_buffered(out, [&](auto& w) { detail::encode_block_header(w, header); });
}

std::size_t serialized_size(const Block& block, witness mode) {
  detail::SizeCounter size;
  detail::encode_full_block(size, block, mode);
  return size.size();
}

std::size_t serialized_size(const Transaction& tx, witness mode) {
  detail::SizeCounter size;
  detail::encode_tx(size, tx, mode);
  return size.size();
}

}  // namespace blockwire
