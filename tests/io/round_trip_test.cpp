// Each sink round-trips 1 MiB of random bytes written in wire-format-like
// pieces through BufferedWriter<writer_ref>, read back through the buffered
// reader: vector, file, loopback TCP socket, pipe.
#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include "test_support.hpp"

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <string>
#include <thread>

using namespace blockwire;

namespace {

constexpr std::size_t one_mib = 1024 * 1024;

std::string temp_path() {
  std::string path = "/tmp/blockwire-test-XXXXXX";
  const int fd = ::mkstemp(path.data());
  REQUIRE(fd >= 0);
  ::close(fd);
  return path;
}

result<void> write_all_in_pieces(writer_ref sink, std::span<const std::byte> data, std::uint64_t seed) {
  BufferedWriter<writer_ref> w(sink);
  test::write_in_pieces(w, data, seed);
  return w.flush();
}

result<std::vector<std::byte>> read_back(reader_ref source, std::uint64_t seed) {
  BufferedReader<reader_ref> buffered(source);
  return test::read_all(buffered, seed);
}

// A reader that drains slowly: small reads with pauses, so that the writer
// keeps meeting a full socket or pipe buffer.
template <class R>
result<std::vector<std::byte>> read_slowly(R& source) {
  std::vector<std::byte> out;
  std::byte chunk[2048];
  for (int i = 0;; ++i) {
    auto got = source.read_some(chunk);
    if (!got) return got.error();
    if (got.value() == 0) return out;
    out.insert(out.end(), chunk, chunk + got.value());
    if (i % 8 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
}

// Runs `write` in a thread that SIGALRM interrupts every 500 us (blocking
// calls return short or with EINTR) and `read` in another that it does not.
template <class Write, class Read>
void under_interruptions(Write write, Read read) {
  sigset_t old;
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  ::pthread_sigmask(SIG_BLOCK, &alarm, &old);  // this thread and the reader: blocked
  {
    test::InterruptingTimer timer(500);
    std::thread writer([&] {
      ::pthread_sigmask(SIG_UNBLOCK, &alarm, nullptr);
      write();
    });
    std::thread reader(read);
    writer.join();
    reader.join();
    // While the handler is still installed: a SIGALRM pending here is harmless.
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
}

}  // namespace

TEST_CASE("vector: 1 MiB in random pieces round-trips byte for byte") {
  const auto data = test::random_bytes(one_mib, 11);
  std::vector<std::byte> out;
  VectorWriter sink(out);
  REQUIRE(write_all_in_pieces(sink, data, 12));
  CHECK(out == data);
  SpanReader source(out);
  auto back = read_back(source, 13);
  REQUIRE(back);
  CHECK(back.value() == data);
}

TEST_CASE("file: 1 MiB in random pieces round-trips byte for byte") {
  const auto data = test::random_bytes(one_mib, 21);
  const std::string path = temp_path();
  {
    auto file = FileWriter::create(path.c_str());
    REQUIRE(file);
    REQUIRE(write_all_in_pieces(file.value(), data, 22));
    REQUIRE(file.value().close());
  }
  auto file = FileReader::open(path.c_str());
  REQUIRE(file);
  auto back = read_back(file.value(), 23);
  ::unlink(path.c_str());
  REQUIRE(back);
  CHECK(back.value() == data);
}

TEST_CASE("loopback TCP: 1 MiB in random pieces, a writer thread and a reader thread") {
  const auto data = test::random_bytes(one_mib, 31);
  auto [client, server] = test::loopback_pair();
  result<void> written = success();
  result<std::vector<std::byte>> read = std::vector<std::byte>{};
  std::thread writer([&, client = client] {
    SocketWriter sink(client, ownership::own);
    written = write_all_in_pieces(sink, data, 32);
    ::shutdown(client, SHUT_WR);  // the reader sees the end of the stream
  });
  std::thread reader([&, server = server] {
    SocketReader source(server, ownership::own);
    read = read_back(source, 33);
  });
  writer.join();
  reader.join();
  REQUIRE(written);
  REQUIRE(read);
  CHECK(read.value() == data);
}

TEST_CASE("socket writes complete when sends are short: tiny SO_SNDBUF, slow reader, signals") {
  const auto data = test::random_bytes(one_mib, 41);
  auto [client, server] = test::loopback_pair();
  const int tiny = 16 * 1024;
  const int on = 1;
  REQUIRE(::setsockopt(client, SOL_SOCKET, SO_SNDBUF, &tiny, sizeof tiny) == 0);
  REQUIRE(::setsockopt(server, SOL_SOCKET, SO_RCVBUF, &tiny, sizeof tiny) == 0);
  // Without it, small segments wait for delayed ACKs and the test crawls.
  REQUIRE(::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) == 0);
  result<void> written = success();
  result<std::vector<std::byte>> read = std::vector<std::byte>{};
  const int signals_before = test::signals_received.load();
  under_interruptions(
      [&, client = client] {
        SocketWriter sink(client, ownership::own);
        written = write_all_in_pieces(sink, data, 42);
        ::shutdown(client, SHUT_WR);
      },
      [&, server = server] {
        SocketReader source(server, ownership::own);
        read = read_slowly(source);
      });
  CHECK(test::signals_received.load() > signals_before);  // sends were interrupted
  REQUIRE(written);
  REQUIRE(read);
  CHECK(read.value() == data);
}

TEST_CASE("pipe writes complete when the reader drains slowly, with signals interrupting") {
  const auto data = test::random_bytes(one_mib, 51);
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  ::fcntl(fds[1], F_SETPIPE_SZ, 4096);
  result<void> written = success();
  result<std::vector<std::byte>> read = std::vector<std::byte>{};
  const int signals_before = test::signals_received.load();
  under_interruptions(
      [&] {
        FileWriter sink(fds[1], ownership::own);
        written = write_all_in_pieces(sink, data, 52);
      },  // closing the write end ends the reader's stream
      [&] {
        FileReader source(fds[0], ownership::own);
        read = read_slowly(source);
      });
  CHECK(test::signals_received.load() > signals_before);
  REQUIRE(written);
  REQUIRE(read);
  CHECK(read.value() == data);
}
