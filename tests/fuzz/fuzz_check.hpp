// What every fuzz target checks of one input, for one kind of object:
//  - decoding never crashes, throws or hangs (the sanitizers watch);
//  - whatever decodes from a span re-encodes to exactly the same bytes;
//  - decoding the same bytes as a stream agrees with the span: the same
//    object and every byte consumed, or the same truncation at the same
//    offset (a stream has no notion of trailing bytes).
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

namespace fuzz {

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

template <class T, class DecodeSpan, class DecodeStream, class Encode>
void check(std::span<const std::byte> input, DecodeSpan decode_span, DecodeStream decode_stream, Encode encode) {
  const blockwire::result<T> from_span = decode_span(input);
  blockwire::SpanReader source(input);
  const blockwire::result<T> from_stream = decode_stream(blockwire::reader_ref(source));
  if (from_span) {
    std::vector<std::byte> out;
    encode(from_span.value(), out);
    if (out.size() != input.size() || std::memcmp(out.data(), input.data(), out.size()) != 0) fail("re-encoding differs");
    if (!from_stream || !(from_stream.value() == from_span.value()) || !source.remaining().empty()) fail("stream disagrees");
    return;
  }
  const blockwire::error& e = from_span.error();
  if (!e.has_offset() || e.offset() > input.size()) fail("error without a valid offset");
  if (e.code() == blockwire::io::errc::truncated) {
    if (from_stream || from_stream.error() != e) fail("stream disagrees on truncation");
  }
}

}  // namespace fuzz
