// FileWriter and FileReader: POSIX file descriptors as sink and source.
// Interrupted calls are retried, short writes completed; errno becomes the
// error (std::system_category), so "No space left on device" reaches you.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>

#include <cstddef>
#include <span>

namespace blockwire {

class FileWriter {
 public:
  // Creates or truncates `path` (mode 0644) and owns the descriptor.
  static result<FileWriter> create(const char* path) noexcept;
  // Opens `path` for appending, creating it if needed.
  static result<FileWriter> append(const char* path) noexcept;

  explicit FileWriter(int fd, ownership how = ownership::borrow) noexcept : fd_(fd, how) {}

  result<void> write(std::span<const std::byte> bytes) noexcept;
  // Closes an owned descriptor and reports its error; see FileDescriptor.
  result<void> close() noexcept { return fd_.close(); }
  int fd() const noexcept { return fd_.get(); }

 private:
  FileDescriptor fd_;
};

class FileReader {
 public:
  static result<FileReader> open(const char* path) noexcept;

  explicit FileReader(int fd, ownership how = ownership::borrow) noexcept : fd_(fd, how) {}

  result<std::size_t> read_some(std::span<std::byte> buffer) noexcept;
  result<void> close() noexcept { return fd_.close(); }
  int fd() const noexcept { return fd_.get(); }

 private:
  FileDescriptor fd_;
};

}  // namespace blockwire
