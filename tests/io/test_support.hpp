// Helpers shared by the io tests: random data, writes in random-sized
// pieces, loopback sockets, a signal timer that interrupts blocking calls.
#pragma once

#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <netinet/in.h>
#include <random>
#include <span>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace test {

inline std::vector<std::byte> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> out(n);
  for (auto& b : out) b = static_cast<std::byte>(rng());
  return out;
}

// Writes `data` in pieces shaped like the wire format: mostly 1-, 4- and
// 8-byte fields (through the fixed-size overloads), some short spans, and
// now and then a large one of up to 64 KiB.
template <class W>
void write_in_pieces(W& w, std::span<const std::byte> data, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  while (!data.empty()) {
    const unsigned kind = rng() % 100;
    std::size_t n;
    if (kind < 35)
      n = 1;
    else if (kind < 60)
      n = 4;
    else if (kind < 80)
      n = 8;
    else if (kind < 97)
      n = 1 + rng() % 300;
    else
      n = 1 + rng() % (64 * 1024);
    if (n > data.size()) n = data.size();
    if (n == 1)
      w.write(data.first<1>());
    else if (n == 4)
      w.write(data.first<4>());
    else if (n == 8)
      w.write(data.first<8>());
    else
      w.write(data.first(n));
    data = data.subspan(n);
  }
}

// Reads a stream to its end through read_some in random-sized requests.
// Safe to call from any thread: it asserts nothing, it returns the error.
template <class R>
blockwire::result<std::vector<std::byte>> read_all(R& source, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> out;
  std::vector<std::byte> chunk(70 * 1024);
  for (;;) {
    const std::size_t want = rng() % 4 == 0 ? 1 + rng() % chunk.size() : 1 + rng() % 16;
    auto got = source.read_some(std::span(chunk).first(want));
    if (!got) return got.error();
    if (got.value() == 0) return out;
    out.insert(out.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(got.value()));
  }
}

// A connected pair of TCP sockets over 127.0.0.1 (ephemeral port).
inline std::pair<int, int> loopback_pair() {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener, 1) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(client >= 0);
  REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  const int server = ::accept(listener, nullptr, nullptr);
  REQUIRE(server >= 0);
  ::close(listener);
  return {client, server};
}

// While alive, SIGALRM arrives every `interval_us` microseconds with a
// handler installed without SA_RESTART: blocking writes and reads in the
// thread that receives it return early, short or with EINTR.
inline std::atomic<int> signals_received{0};

class InterruptingTimer {
 public:
  explicit InterruptingTimer(long interval_us) {
    struct sigaction action {};
    action.sa_handler = [](int) { signals_received.fetch_add(1, std::memory_order_relaxed); };
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART
    ::sigaction(SIGALRM, &action, &old_);
    itimerval timer{{0, interval_us}, {0, interval_us}};
    ::setitimer(ITIMER_REAL, &timer, nullptr);
  }
  ~InterruptingTimer() {
    itimerval off{};
    ::setitimer(ITIMER_REAL, &off, nullptr);
    ::sigaction(SIGALRM, &old_, nullptr);
  }
  InterruptingTimer(const InterruptingTimer&) = delete;
  InterruptingTimer& operator=(const InterruptingTimer&) = delete;

 private:
  struct sigaction old_ {};
};

}  // namespace test
