#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include <algorithm>

#include "test_support.hpp"

#include <cerrno>
#include <csignal>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

using namespace blockwire;

TEST_CASE("writing to /dev/full gives an error that says no space is left") {
  auto file = FileWriter::create("/dev/full");
  REQUIRE(file);
  BufferedWriter<writer_ref> w{writer_ref(file.value())};
  const auto data = test::random_bytes(100'000, 1);
  test::write_in_pieces(w, data, 2);
  auto r = w.flush();
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == std::errc::no_space_on_device);
  CHECK(r.error().message().find("No space left") != std::string::npos);
}

TEST_CASE("writing to a socket whose peer has closed gives an error, and the process lives on") {
  auto [client, server] = test::loopback_pair();
  ::close(server);
  SocketWriter sink(client, ownership::own);
  BufferedWriter<writer_ref> w{writer_ref(sink)};
  const auto data = test::random_bytes(64 * 1024, 3);
  // The first sends may still be accepted by the kernel; the peer's reset
  // makes a later one fail. Bounded: 200 rounds of 64 KiB at most.
  result<void> r = success();
  for (int round = 0; round < 200 && r; ++round) {
    w.write(data);
    r = w.flush();
    if (r) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE_FALSE(r);
  const int code = r.error().code().value();
  CHECK((code == EPIPE || code == ECONNRESET));
  CHECK(r.error().code().category() == std::system_category());
}

TEST_CASE("a SpanWriter written past its end reports no room and keeps what fit") {
  std::byte storage[10];
  SpanWriter sink(storage);
  const auto data = test::random_bytes(12, 4);
  REQUIRE(sink.write(std::span(data).first(8)));
  auto r = sink.write(std::span(data).subspan(8));
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == io::errc::no_room);
  CHECK(r.error().message() == "no room left in the output buffer");
  CHECK(sink.written().size() == 10);
  CHECK(std::equal(storage, storage + 10, data.begin()));
}

TEST_CASE("reading past the end of a file reports the offset at which the data ran out") {
  std::string path = "/tmp/blockwire-test-XXXXXX";
  const int fd = ::mkstemp(path.data());
  REQUIRE(fd >= 0);
  const auto data = test::random_bytes(100'000, 5);
  {
    FileWriter w(fd, ownership::own);
    REQUIRE(w.write(data));
  }
  auto file = FileReader::open(path.c_str());
  ::unlink(path.c_str());
  REQUIRE(file);
  BufferedReader<reader_ref> buffered{reader_ref(file.value())};
  DecodingContext ctx(buffered);
  std::vector<std::byte> out(60'000);
  REQUIRE(ctx.read(out));
  CHECK_FALSE(ctx.read(out));
  CHECK(ctx.failure().code() == io::errc::truncated);
  CHECK(ctx.failure().offset() == 100'000);
  CHECK(ctx.failure().message() == "input ends inside an object (truncated) at byte 100000");
}

TEST_CASE("opening a file that does not exist is an error result, not an exception") {
  auto file = FileReader::open("/nonexistent/blockwire/file");
  REQUIRE_FALSE(file);
  CHECK(file.error().code() == std::errc::no_such_file_or_directory);
}

TEST_CASE("a FileWriter on a pipe whose reader left gets EPIPE, the process lives and its SIGPIPE disposition is untouched") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);  // the reader leaves
  struct sigaction before {};
  ::sigaction(SIGPIPE, nullptr, &before);
  blockwire::FileWriter out(fds[1], blockwire::ownership::own);
  const std::byte data[100]{};
  const auto r = out.write(data);  // SIGPIPE's default action would kill this process here
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == std::errc::broken_pipe);
  struct sigaction after {};
  ::sigaction(SIGPIPE, nullptr, &after);
  CHECK(reinterpret_cast<void*>(after.sa_handler) == reinterpret_cast<void*>(before.sa_handler));
  sigset_t pending;
  ::sigpending(&pending);
  CHECK(sigismember(&pending, SIGPIPE) == 0);  // the signal the write raised was consumed
}

TEST_CASE("the system's failures are I/O whichever category reports them, the data's are not") {
  // std::filesystem reports errno values in the generic category.
  std::error_code from_filesystem;
  std::filesystem::create_directories("/proc/self/blockwire-cannot-be-made", from_filesystem);
  REQUIRE(from_filesystem);
  CHECK(error(from_filesystem).is_io());
  CHECK(error(std::error_code(EACCES, std::system_category())).is_io());
  CHECK(error(std::make_error_code(std::errc::permission_denied)).is_io());
  CHECK_FALSE(error(io::errc::truncated).is_io());
  CHECK_FALSE(error(io::errc::not_hex, 3).is_io());
}

TEST_CASE("an error's context and step travel with every copy, on any thread, and go with the last of them") {
  const error inner = error(io::errc::truncated, 12).in("blk00003.dat");
  std::vector<error> copies;
  {
    const error outer = inner.in("block 7").at_step(io::errc::stopped);  // (any error code enum names a step)
    for (int i = 0; i < 64; ++i) copies.push_back(outer);
  }  // the original gone: the copies hold what it said
  std::vector<std::thread> threads;
  std::vector<std::string> said(copies.size());
  for (std::size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = t; i < copies.size(); i += 4) {
        error mine = copies[i];         // copied, then
        error moved = std::move(mine);  // moved, then
        mine = moved;                   // assigned back over the moved-from one
        const error& same = moved;
        moved = same;  // and over itself
        said[i] = std::string(mine.context()) + " | " + std::to_string(mine.offset()) + " | " +
                  (mine.code() == io::errc::truncated ? "truncated" : "?") + " | " + (mine.step() == io::errc::stopped ? "stopped" : "?");
        copies[i] = error();  // the shared copy dropped here
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const std::string& s : said) CHECK(s == "block 7: blk00003.dat | 12 | truncated | stopped");
  CHECK(inner.context() == "blk00003.dat");  // an inner error is not changed by what an outer one says
  CHECK(inner.step() == std::error_code());
  error stepped = inner.at_step(io::errc::stopped);
  CHECK(stepped.step() == io::errc::stopped);
  CHECK(stepped == inner);  // the same failure at the same byte
}
