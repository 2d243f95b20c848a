#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace blockwire;
  const auto input = std::as_bytes(std::span(data, size));
  fuzz::check<Transaction>(
      input, [](auto in) { return decode_transaction(in); }, [](reader_ref in) { return decode_transaction(in); },
      [](const Transaction& tx, std::vector<std::byte>& out) { encode_transaction(tx, out); });
  // The legacy form too: no marker, no flag.
  fuzz::check<Transaction>(
      input, [](auto in) { return decode_transaction(in, witness::disallow); },
      [](reader_ref in) { return decode_transaction(in, witness::disallow); },
      [](const Transaction& tx, std::vector<std::byte>& out) { encode_transaction(tx, out, witness::disallow); });
  return 0;
}
