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
  // In both modes: a view of the bytes accepts and rejects what the decoder
  // does, and reads the same transaction; a builder made from what decodes
  // (its fields copied into vectors) builds the same transaction again.
  for (witness mode : {witness::allow, witness::disallow}) {
    const auto decoded = decode_transaction(input, mode);
    const auto view = TransactionView::parse(input, mode);
    if (decoded.has_value() != view.has_value()) fuzz::fail("view and decoder disagree on accepting");
    if (!decoded) {
      if (!(decoded.error() == view.error())) fuzz::fail("view and decoder fail differently");
      continue;
    }
    if (!(view.value().to_transaction() == decoded.value())) fuzz::fail("view and decoder read different content");
    if (!(TransactionBuilder(decoded.value()).build() == decoded.value())) fuzz::fail("a builder of a decoded transaction builds another");
    if (!(TransactionBuilder(view.value()).build() == decoded.value())) fuzz::fail("a builder of a view builds another transaction");
  }
  return 0;
}
