// Undo data (CBlockUndo) from hostile bytes: decoding never crashes or
// throws and errors carry an offset inside the input; what decodes from a
// span decodes the same from a stream; what decodes re-encodes to bytes
// that decode to the same value (a skipped oversized script stays an
// OP_RETURN, a restored key is compressed again) when every amount is
// money (at most 21,000,000 BTC): past that, Core's amount compression
// wraps around and is not its own inverse, in Core as here.
#include <blockwire/io.hpp>
#include <blockwire/undo.hpp>

#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace blockwire;
  const auto bytes = std::as_bytes(std::span(data, size));
  const auto from_span = decode_block_undo(bytes);
  SpanReader source(bytes);
  StreamReader in{reader_ref(source)};
  const auto from_stream = decode_block_undo(in);
  if (!from_span) {
    if (!from_span.error().has_offset() || from_span.error().offset() > size) fuzz::fail("error without a valid offset");
    return 0;
  }
  if (!from_stream || !(from_stream.value() == from_span.value())) fuzz::fail("stream disagrees");
  std::vector<std::byte> again;
  encode_block_undo(from_span.value(), again);
  if (again.size() != serialized_size(from_span.value())) fuzz::fail("serialized_size disagrees with the encoder");
  for (const TxUndo& tx : from_span.value().transactions)
    for (const SpentCoin& coin : tx.coins)
      if (!coin.value.in_money_range()) return 0;
  const auto back = decode_block_undo(again);
  if (!back || !(back.value() == from_span.value())) fuzz::fail("re-encoded undo data reads differently");
  return 0;
}
