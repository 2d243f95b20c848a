// SocketWriter and SocketReader: a connected stream socket as sink and
// source. Sends use MSG_NOSIGNAL: a peer that has gone away is an error
// result (EPIPE), never a SIGPIPE that kills the process.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>

#include <cstddef>
#include <span>

namespace blockwire {

class SocketWriter {
 public:
  explicit SocketWriter(int fd, ownership how = ownership::borrow) noexcept : fd_(fd, how) {}

  result<void> write(std::span<const std::byte> bytes) noexcept;
  result<void> close() noexcept { return fd_.close(); }
  int fd() const noexcept { return fd_.get(); }

 private:
  FileDescriptor fd_;
};

class SocketReader {
 public:
  explicit SocketReader(int fd, ownership how = ownership::borrow) noexcept : fd_(fd, how) {}

  result<std::size_t> read_some(std::span<std::byte> buffer) noexcept;
  result<void> close() noexcept { return fd_.close(); }
  int fd() const noexcept { return fd_.get(); }

 private:
  FileDescriptor fd_;
};

}  // namespace blockwire
