// Two connected local sockets: the test's Connection takes `ours`, and the
// test plays the peer on `theirs`, writing (and reading) bytes by hand.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/p2p.hpp>

#include <doctest/doctest.h>

#include <span>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace test {

struct SocketPair {
  int ours = -1, theirs = -1;
  SocketPair() {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    ours = fds[0];
    theirs = fds[1];
  }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
  ~SocketPair() {
    if (theirs >= 0) ::close(theirs);
  }
  // A v1 message in regtest's envelope.
  void send(const blockwire::p2p::Message& m) const {
    std::vector<std::byte> bytes;
    blockwire::p2p::encode_message(m, blockwire::network::regtest, bytes);
    send_raw(bytes);
  }
  void send_raw(std::span<const std::byte> bytes) const {
    REQUIRE(::write(theirs, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  void read_raw(std::span<std::byte> out) const {
    while (!out.empty()) {
      const ssize_t n = ::read(theirs, out.data(), out.size());
      REQUIRE(n > 0);
      out = out.subspan(static_cast<std::size_t>(n));
    }
  }
};

}  // namespace test
