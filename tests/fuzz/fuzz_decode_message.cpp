// P2P messages from hostile bytes: decoding never crashes or throws; what
// decodes from a span decodes the same from a stream; and a message that
// decodes re-encodes to a message that decodes to the same value. A
// cmpctblock is also rebuilt (from an empty pool): hostile indexes and
// counts end in an error, never out of bounds. The payload after the
// envelope is also read as BIP324's v2 contents, typed by the envelope's
// command: never a crash, an error within the contents, and the same
// message as v1 reads when v1 reads one.
#include <blockwire/io.hpp>
#include <blockwire/p2p.hpp>
#include <blockwire/p2p/compact_blocks.hpp>

#include "fuzz_check.hpp"

#include <algorithm>
#include <optional>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace blockwire;
  const auto bytes = std::as_bytes(std::span(data, size));
  const auto from_span = p2p::decode_message(bytes, network::mainnet);
  SpanReader source(bytes);
  StreamReader in{reader_ref(source)};
  const auto from_stream = p2p::decode_message(in, network::mainnet);
  std::optional<p2p::Message> from_v2;
  if (size >= p2p::envelope_size) {
    const auto command = bytes.subspan(4, 12);
    const auto name_end = std::find(command.begin(), command.end(), std::byte{0});
    const std::string name(reinterpret_cast<const char*>(command.data()), static_cast<std::size_t>(name_end - command.begin()));
    std::vector<std::byte> contents;
    p2p::encode_v2_contents(name, bytes.subspan(p2p::envelope_size), contents);
    auto v2 = p2p::decode_v2_contents(contents);
    if (!v2 && (!v2.error().has_offset() || v2.error().offset() > contents.size())) fuzz::fail("v2 error without a valid offset");
    if (v2) from_v2 = std::move(v2).value();
  }
  if (!from_span) {
    if (!from_span.error().has_offset() || from_span.error().offset() > size) fuzz::fail("error without a valid offset");
    return 0;
  }
  if (!from_stream || !(from_stream.value() == from_span.value())) fuzz::fail("stream disagrees");
  if (std::holds_alternative<p2p::Unknown>(from_span.value())) return 0;  // no payload kept to encode
  if (!from_v2 || !(*from_v2 == from_span.value())) fuzz::fail("v2 contents read the payload otherwise");
  std::vector<std::byte> again;
  p2p::encode_message(from_span.value(), network::mainnet, again);
  const auto back = p2p::decode_message(again, network::mainnet);
  if (!back || !(back.value() == from_span.value())) fuzz::fail("re-encoded message reads differently");
  if (const auto* cmpct = std::get_if<p2p::CmpctBlock>(&from_span.value())) {
    if (auto partial = p2p::PartialBlock::start(*cmpct, {})) {
      const auto missing = partial.value().missing();
      if (missing.size() != cmpct->short_ids.size()) fuzz::fail("an empty pool filled a place");
      (void)partial.value().finish(std::span<const Transaction>{});
    }
  }
  return 0;
}
