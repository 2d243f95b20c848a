#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include <algorithm>

#include "test_support.hpp"

#include <vector>

using namespace blockwire;

namespace {

// Records the size of every write the buffer makes to it; can be told to
// fail from the n-th call on.
struct ScriptedWriter {
  std::vector<std::byte> bytes;
  std::vector<std::size_t> calls;
  std::size_t fail_from_call = ~std::size_t{0};
  result<void> write(std::span<const std::byte> data) {
    calls.push_back(data.size());
    if (calls.size() > fail_from_call) return error(std::make_error_code(std::errc::io_error));
    bytes.insert(bytes.end(), data.begin(), data.end());
    return success();
  }
};

}  // namespace

TEST_CASE("small writes stay in the buffer until it is full or flushed") {
  ScriptedWriter sink;
  BufferedWriter<writer_ref, 64> w{writer_ref(sink)};
  const auto data = test::random_bytes(100, 1);
  const std::span<const std::byte> in(data);
  for (std::size_t i = 0; i < 15; ++i) w.write(in.subspan(4 * i).first<4>());  // 60 bytes
  CHECK(sink.calls.empty());
  CHECK(w.bytes_written() == 60);
  w.write(in.subspan(60).first<8>());  // overflows: fills to 64, hands 64 over, keeps 4
  CHECK(sink.calls == std::vector<std::size_t>{64});
  REQUIRE(w.flush());
  CHECK(sink.calls == std::vector<std::size_t>{64, 4});
  CHECK(sink.bytes == std::vector<std::byte>(data.begin(), data.begin() + 68));
}

TEST_CASE("a span larger than the buffer goes straight to the sink after what is buffered") {
  ScriptedWriter sink;
  BufferedWriter<writer_ref, 64> w{writer_ref(sink)};
  const auto data = test::random_bytes(1000, 2);
  const std::span<const std::byte> in(data);
  w.write(in.first<1>());
  w.write(in.subspan(1, 999));
  // The 1 buffered byte is topped up to a full buffer, handed over, and the
  // remaining 936 bytes go to the sink in one call.
  CHECK(sink.calls == std::vector<std::size_t>{64, 936});
  REQUIRE(w.flush());
  CHECK(sink.bytes == data);
}

TEST_CASE("the first sink error is kept, later writes are dropped, flush reports it") {
  ScriptedWriter sink;
  sink.fail_from_call = 1;  // the second call fails
  BufferedWriter<writer_ref, 16> w{writer_ref(sink)};
  const auto data = test::random_bytes(200, 3);
  const std::span<const std::byte> in(data);
  for (std::size_t i = 0; i < 8; ++i) w.write(in.subspan(4 * i).first<4>());  // 32 bytes
  CHECK_FALSE(w.failed());                                                    // the first full buffer went through
  w.write(in.subspan(32).first<4>());                                         // hands over the second full buffer: fails
  CHECK(w.failed());
  CHECK(sink.calls == std::vector<std::size_t>{16, 16});
  for (std::size_t i = 9; i < 50; ++i) w.write(in.subspan(4 * i).first<4>());
  w.write(in);  // larger than the buffer: would go straight to the sink
  auto r = w.flush();
  CHECK(sink.calls.size() == 2);  // nothing reached the sink after the error
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == std::errc::io_error);
  CHECK_FALSE(w.flush());  // and it stays reported
  CHECK(sink.bytes == std::vector<std::byte>(data.begin(), data.begin() + 16));
}

TEST_CASE("N = 0 is unbuffered: every write is a call to the sink") {
  ScriptedWriter sink;
  BufferedWriter<writer_ref, 0> w{writer_ref(sink)};
  const auto data = test::random_bytes(13, 5);
  const std::span<const std::byte> in(data);
  w.write(in.first<4>());
  w.write(in.subspan(4).first<1>());
  w.write(in.subspan(5));
  CHECK(sink.calls == std::vector<std::size_t>{4, 1, 8});
  REQUIRE(w.flush());
  CHECK(sink.bytes == data);
}

TEST_CASE("a vector lends its storage: the bytes are the same as through the buffer") {
  const auto data = test::random_bytes(300'000, 6);
  std::vector<std::byte> lent;
  VectorWriter lender(lent);
  BufferedWriter<VectorWriter&, 4096> direct(lender);
  test::write_in_pieces(direct, data, 7);
  REQUIRE(direct.flush());
  CHECK(direct.bytes_written() == data.size());
  CHECK(lent == data);
  // Writing on after a flush appends.
  direct.write(std::span<const std::byte>(data).first<8>());
  REQUIRE(direct.flush());
  CHECK(lent.size() == data.size() + 8);
}

TEST_CASE("a SpanWriter behind the buffer reports running out of room at flush") {
  std::vector<std::byte> storage(100);
  SpanWriter sink(storage);
  BufferedWriter<writer_ref, 64> w{writer_ref(sink)};
  const auto data = test::random_bytes(120, 8);
  w.write(data);
  auto r = w.flush();
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == io::errc::no_room);
  CHECK(sink.written().size() == 100);
  CHECK(std::equal(storage.begin(), storage.end(), data.begin()));
}
