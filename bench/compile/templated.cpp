// The templated approach: the same work with the encoders included and
// instantiated here, on a concrete writer, as a header-only library would.
#include "detail/encoders.hpp"

#include <blockwire/io/buffered_writer.hpp>

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
  blockwire::BufferedWriter<Counter&> w(sink);
  blockwire::detail::encode_block(w, block, blockwire::witness::allow);
  if (!w.flush()) return 0;
  return sink.bytes;
}
