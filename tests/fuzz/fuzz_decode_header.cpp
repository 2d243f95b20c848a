#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace blockwire;
  fuzz::check<BlockHeader>(
      std::as_bytes(std::span(data, size)), [](auto in) { return decode_header(in); }, [](reader_ref in) { return decode_header(in); },
      [](const BlockHeader& h, std::vector<std::byte>& out) { encode_header(h, out); });
  return 0;
}
