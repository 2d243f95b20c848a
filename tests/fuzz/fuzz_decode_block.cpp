#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace blockwire;
  fuzz::check<Block>(
      std::as_bytes(std::span(data, size)), [](auto in) { return decode_block(in); }, [](reader_ref in) { return decode_block(in); },
      [](const Block& b, std::vector<std::byte>& out) { encode_block(b, out); });
  return 0;
}
