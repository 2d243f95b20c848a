#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include <algorithm>

#include "test_support.hpp"

#include <array>
#include <cstring>
#include <optional>

using namespace blockwire;

namespace {

// A source that hands out at most `max` bytes per read_some.
struct TrickleReader {
  std::span<const std::byte> data;
  std::size_t max;
  std::size_t calls = 0;
  result<std::size_t> read_some(std::span<std::byte> out) {
    ++calls;
    const std::size_t n = std::min({out.size(), data.size(), max});
    std::memcpy(out.data(), data.data(), n);
    data = data.subspan(n);
    return n;
  }
};

struct FailingReader {
  result<std::size_t> read_some(std::span<std::byte>) { return error(std::make_error_code(std::errc::connection_reset)); }
};

std::uint32_t read_u32(DecodingContext& ctx) {
  std::array<std::byte, 4> b;
  ctx.read(std::span(b));
  std::uint32_t v;
  std::memcpy(&v, b.data(), 4);
  return v;
}

}  // namespace

TEST_CASE("exact reads from a span count the offset, running out reports where") {
  const auto data = test::random_bytes(10, 1);
  DecodingContext ctx(data);
  std::array<std::byte, 4> four;
  CHECK(ctx.read(std::span(four)));
  CHECK(std::equal(four.begin(), four.end(), data.begin()));
  CHECK(ctx.offset() == 4);
  CHECK(ctx.remaining_bound() == 6);
  std::array<std::byte, 8> eight;
  eight.fill(std::byte{0xAA});
  CHECK_FALSE(ctx.read(std::span(eight)));
  CHECK_FALSE(ctx.ok());
  CHECK(ctx.failure().code() == io::errc::truncated);
  CHECK(ctx.failure().offset() == 10);  // where the data ran out
  // A failed read yields zeros, not stale bytes.
  CHECK(eight == std::array<std::byte, 8>{});
  CHECK_FALSE(ctx.read(std::span(four)));
  CHECK(ctx.failure().offset() == 10);  // the first failure is kept
}

TEST_CASE("a decoder's own failure is recorded at the current offset and stops later reads") {
  const auto data = test::random_bytes(16, 2);
  DecodingContext ctx(data);
  (void)read_u32(ctx);
  ctx.fail(std::make_error_code(std::errc::invalid_argument));
  CHECK(ctx.failure().offset() == 4);
  CHECK(read_u32(ctx) == 0);
  CHECK(ctx.failure().code() == std::errc::invalid_argument);
  ctx.fail(io::errc::truncated);  // a later finding does not replace the first
  CHECK(ctx.failure().code() == std::errc::invalid_argument);
}

TEST_CASE("a source that yields one byte per read_some gives the same bytes") {
  const auto data = test::random_bytes(5000, 3);
  for (std::size_t max : {std::size_t{1}, std::size_t{3}}) {
    CAPTURE(max);
    TrickleReader source{data, max};
    BufferedReader<TrickleReader&, 64> buffered(source);
    std::vector<std::byte> out(data.size());
    {
      DecodingContext ctx(buffered);
      std::span<std::byte> rest(out);
      std::mt19937_64 rng(max);
      while (!rest.empty()) {
        const std::size_t n = std::min<std::size_t>(rest.size(), rng() % 4 == 0 ? 200 : 1 + rng() % 9);
        REQUIRE(ctx.read(rest.first(n)));
        rest = rest.subspan(n);
      }
      CHECK(ctx.offset() == data.size());
    }
    CHECK(out == data);
  }
}

TEST_CASE("a stream context consumes exactly what it read: the next object starts right after") {
  const auto data = test::random_bytes(3000, 4);
  TrickleReader source{data, 700};
  BufferedReader<TrickleReader&, 256> buffered(source);
  std::vector<std::byte> first(1234), second(data.size() - 1234);
  {
    DecodingContext ctx(buffered);
    REQUIRE(ctx.read(first));
  }
  {
    DecodingContext ctx(buffered);
    CHECK(ctx.offset() == 0);  // offsets count from the start of each object
    REQUIRE(ctx.read(second));
    std::array<std::byte, 1> one;
    CHECK_FALSE(ctx.read(std::span(one)));
    CHECK(ctx.failure().code() == io::errc::truncated);
    CHECK(ctx.failure().offset() == second.size());
  }
  CHECK(std::equal(first.begin(), first.end(), data.begin()));
  CHECK(std::equal(second.begin(), second.end(), data.begin() + 1234));
}

TEST_CASE("an I/O error while refilling is reported as that error, with the offset") {
  FailingReader source;
  BufferedReader<FailingReader&, 64> buffered(source);
  DecodingContext ctx(buffered);
  std::array<std::byte, 2> two;
  CHECK_FALSE(ctx.read(std::span(two)));
  CHECK(ctx.failure().code() == std::errc::connection_reset);
  CHECK(ctx.failure().offset() == 0);
}

TEST_CASE("BufferedReader is a Reader: small reads are served from one large read") {
  const auto data = test::random_bytes(1000, 5);
  TrickleReader source{data, 10'000};
  BufferedReader<TrickleReader&, 4096> buffered(source);
  const auto out = test::read_all(buffered, 6);
  REQUIRE(out);
  CHECK(out.value() == data);
  CHECK(source.calls <= 3);  // one fill, then the end of the stream
}

TEST_CASE("DecodingContext: a temporary reader or reader_ref is refused at compile time (the context keeps its address)") {
  // A named reader_ref is taken; one that would die at the end of the
  // full expression is not (SocketReader{fd} makes one implicitly).
  static_assert(std::is_constructible_v<blockwire::DecodingContext, const blockwire::reader_ref&>);
  static_assert(!std::is_constructible_v<blockwire::DecodingContext, blockwire::reader_ref&&>);
  static_assert(!std::is_constructible_v<blockwire::DecodingContext, blockwire::SocketReader&&>);
  static_assert(!std::is_constructible_v<blockwire::DecodingContext, blockwire::SpanReader&&>);
  blockwire::SocketReader socket(-1);
  const blockwire::reader_ref named(socket);
  blockwire::DecodingContext ctx(named);
  CHECK(ctx.offset() == 0);
}

TEST_CASE("a capture keeps exactly the bytes consumed, across refills and in exact mode, and stops at its limit") {
  const auto data = test::random_bytes(5000, 9);
  const std::error_code too_long = std::make_error_code(std::errc::value_too_large);
  // Reads and skips of mixed sizes, 1 to 300 bytes: the capture must hold
  // the stream's first `total` bytes, in order, whichever way they came.
  const auto consume = [&](DecodingContext& ctx, std::size_t total) {
    std::mt19937_64 rng(total);
    std::size_t done = 0;
    std::array<std::byte, 300> scratch{};
    while (done < total && ctx.ok()) {
      const std::size_t n = std::min<std::size_t>(total - done, 1 + rng() % 300);
      if (rng() % 2 == 0) {
        ctx.read(std::span<std::byte>(scratch.data(), n));
      } else {
        ctx.skip(n);
      }
      done += n;
    }
  };
  SUBCASE("through a BufferedReader's window, refilled many times") {
    TrickleReader source{data, 37};
    BufferedReader<TrickleReader&, 64> buffered(source);
    DecodingContext ctx(buffered);
    ctx.skip(11);  // before the capture: not kept
    std::vector<std::byte> kept;
    ctx.begin_capture(kept, 10'000, too_long);
    consume(ctx, 4000);
    kept.resize(ctx.end_capture());
    REQUIRE(ctx.ok());
    CHECK(kept == std::vector<std::byte>(data.begin() + 11, data.begin() + 4011));
  }
  SUBCASE("exact mode (reader_ref): every read_some's bytes once") {
    TrickleReader source{data, 5};
    const reader_ref ref(source);
    DecodingContext ctx(ref);
    std::vector<std::byte> kept(100, std::byte{0x55});  // what the buffer held is written over
    ctx.begin_capture(kept, 10'000, too_long);
    consume(ctx, 4500);
    kept.resize(ctx.end_capture());
    REQUIRE(ctx.ok());
    CHECK(kept == std::vector<std::byte>(data.begin(), data.begin() + 4500));
  }
  SUBCASE("past the limit: the context fails with the code given, and memory stays near the limit") {
    for (const bool exact : {false, true}) {
      CAPTURE(exact);
      TrickleReader source{data, 64};
      BufferedReader<TrickleReader&, 64> buffered(source);
      const reader_ref ref(source);
      std::optional<DecodingContext> ctx;
      if (exact) {
        ctx.emplace(ref);
      } else {
        ctx.emplace(buffered);
      }
      std::vector<std::byte> kept;
      ctx->begin_capture(kept, 1000, too_long);
      consume(*ctx, 4000);
      CHECK(ctx->end_capture() <= 1000);
      CHECK(ctx->failure().code() == too_long);
      CHECK(kept.size() <= 2000);  // grown geometrically, up to the limit
    }
  }
}
