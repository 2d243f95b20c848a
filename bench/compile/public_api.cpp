// What a program using blockwire compiles: the public header, and a block
// encoded through a writer_ref to a sink of its own.
#include <blockwire/codec.hpp>

namespace {

struct Counter {
  std::size_t bytes = 0;
  blockwire::result<void> write(std::span<const std::byte> b) {
    bytes += b.size();
    return blockwire::success();
  }
};

}  // namespace

std::size_t encoded_size(const blockwire::Block& block) {
  Counter sink;
  if (!blockwire::encode_block(block, sink)) return 0;
  return sink.bytes;
}
