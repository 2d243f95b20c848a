#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include <type_traits>
#include <vector>

using namespace blockwire;

namespace {

// A writer that records each call it receives.
struct RecordingWriter {
  std::vector<std::size_t> calls;
  result<void> write(std::span<const std::byte> bytes) {
    calls.push_back(bytes.size());
    return success();
  }
};

}  // namespace

TEST_CASE("writer_ref forwards each write to the writer it refers to") {
  RecordingWriter sink;
  const writer_ref ref(sink);
  const std::byte bytes[3]{};
  CHECK(ref.write(bytes));
  CHECK(ref.write(std::span(bytes).first(1)));
  CHECK(sink.calls == std::vector<std::size_t>{3, 1});
}

TEST_CASE("a copy of a writer_ref refers to the same writer, it does not wrap the first ref") {
  RecordingWriter sink;
  writer_ref first(sink);
  writer_ref second(first);  // the copy constructor, not the Writer template
  writer_ref third = first;
  third = second;
  const std::byte byte[1]{};
  CHECK(third.write(byte));
  CHECK(sink.calls.size() == 1);
  // Wrapping would need a writer_ref* inside a writer_ref; a copy is the
  // same two words.
  static_assert(std::is_trivially_copy_constructible_v<writer_ref>);
}

TEST_CASE("writer_ref reports the sink's error") {
  std::byte storage[2];
  SpanWriter sink(storage);
  const writer_ref ref(sink);
  const std::byte three[3]{};
  auto r = ref.write(three);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == io::errc::no_room);
}

TEST_CASE("reader_ref forwards read_some and its counts") {
  const std::byte data[5]{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}, std::byte{5}};
  SpanReader source(data);
  const reader_ref ref(source);
  std::byte out[3];
  auto first = ref.read_some(out);
  REQUIRE(first);
  CHECK(first.value() == 3);
  CHECK(out[2] == std::byte{3});
  auto second = ref.read_some(out);
  REQUIRE(second);
  CHECK(second.value() == 2);
  CHECK(out[0] == std::byte{4});
  auto end = ref.read_some(out);
  REQUIRE(end);
  CHECK(end.value() == 0);
}

TEST_CASE("error messages are readable and name the offset when there is one") {
  const error plain(io::errc::no_room);
  CHECK(plain.message() == "no room left in the output buffer");
  const error at(make_error_code(io::errc::truncated), 1234);
  CHECK(at.message() == "input ends inside an object (truncated) at byte 1234");
  CHECK(at.has_offset());
  CHECK_FALSE(plain.has_offset());
  CHECK_FALSE(error{});
}

TEST_CASE("value() of a failed result throws std::system_error with the code") {
  const result<int> failed = error(io::errc::end_of_stream);
  CHECK_THROWS_AS((void)failed.value(), std::system_error);
}
