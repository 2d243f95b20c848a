// FileDescriptor: a POSIX file descriptor that is either owned (closed when
// dropped) or borrowed (left open). Shared by the file and socket sinks.
#pragma once

#include <blockwire/io/error.hpp>

#include <cstddef>

namespace blockwire {

enum class ownership { borrow, own };

class FileDescriptor {
 public:
  FileDescriptor() noexcept = default;
  FileDescriptor(int fd, ownership how) noexcept : fd_(fd), owned_(how == ownership::own) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.fd_), owned_(other.owned_) { other.fd_ = -1; }
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  // Closes an owned descriptor, ignoring errors; call close() to see them.
  ~FileDescriptor();

  int get() const noexcept { return fd_; }

  // Closes an owned descriptor now and reports what close(2) said (a file
  // system may report a failed write only here). A borrowed one is let go.
  result<void> close() noexcept;

 private:
  int fd_ = -1;
  bool owned_ = false;
};

// The connections a server may hold, a descriptor each: the process's soft
// limit of descriptors raised to its hard limit, less `kept` for its
// files, at most `cap`.
std::size_t connections_allowed(std::size_t cap, std::size_t kept = 64) noexcept;

}  // namespace blockwire
