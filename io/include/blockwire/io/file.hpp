// FileWriter and FileReader: POSIX file descriptors as sink and source.
// Interrupted calls are retried, short writes completed; errno becomes the
// error (std::system_category), so "No space left on device" reaches you.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace blockwire {

class FileWriter {
 public:
  // Creates or truncates `path` (mode 0644) and owns the descriptor.
  static result<FileWriter> create(const char* path) noexcept;
  // Creates `path`, which must not exist (EEXIST otherwise): never
  // truncates or overwrites a file.
  static result<FileWriter> create_new(const char* path) noexcept;
  // Opens `path` for appending, creating it if needed.
  static result<FileWriter> append(const char* path) noexcept;

  explicit FileWriter(int fd, ownership how = ownership::borrow) noexcept : fd_(fd, how) {}

  // A pipe or socket whose reader left gives EPIPE here, never a SIGPIPE
  // that kills the process: the signal is blocked in this thread for the
  // write and the one it raised is consumed; the process's disposition is
  // left alone. (Regular files never raise it: they skip that work.)
  result<void> write(std::span<const std::byte> bytes) noexcept;
  // fsync(2): what was written is on the disk, not only in the page cache.
  result<void> sync() noexcept;
  // Closes an owned descriptor and reports its error; see FileDescriptor.
  result<void> close() noexcept { return fd_.close(); }
  int fd() const noexcept { return fd_.get(); }

 private:
  enum class pipe_kind : unsigned char { unknown, no, yes };
  FileDescriptor fd_;
  pipe_kind may_raise_sigpipe_ = pipe_kind::unknown;  // learnt at the first write
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

// Whether `name` is PREFIX, a process id and '-', and no such process runs:
// a temporary file or folder a killed process left (ReplacingFile's, the
// directory layer's LevelDB snapshots), for the next one to remove.
bool left_by_dead_process(std::string_view name, std::string_view prefix) noexcept;

// A file that takes `path`'s place whole or not at all, however long it is
// written: it grows under a temporary name beside `path` (mode 0644 less
// the umask); commit() syncs it, renames it over `path` and syncs the
// directory. A crash or a full disk leaves the old file (or none), never a
// short one; dropped uncommitted (a failure on the way), the temporary file
// is removed.
class ReplacingFile {
 public:
  static result<ReplacingFile> create(const char* path) noexcept;
  ReplacingFile(ReplacingFile&& other) noexcept
      : file_(std::move(other.file_)), path_(std::move(other.path_)), temporary_(std::exchange(other.temporary_, {})) {}
  ReplacingFile& operator=(ReplacingFile&&) = delete;
  ReplacingFile(const ReplacingFile&) = delete;
  ReplacingFile& operator=(const ReplacingFile&) = delete;
  ~ReplacingFile();

  result<void> write(std::span<const std::byte> bytes) noexcept;
  // Over bytes written before (a count known only at the end), at `offset`.
  result<void> write_at(std::span<const std::byte> bytes, std::uint64_t offset) noexcept;
  result<void> commit() noexcept;

 private:
  ReplacingFile(FileDescriptor file, std::string path, std::string temporary) noexcept
      : file_(std::move(file)), path_(std::move(path)), temporary_(std::move(temporary)) {}
  FileDescriptor file_;
  std::string path_;
  std::string temporary_;  // empty once renamed or removed
};

// `bytes` into `path` whole or not at all (a ReplacingFile).
result<void> write_file_atomically(const char* path, std::span<const std::byte> bytes) noexcept;
// fsync(2) of a directory: the names created, renamed or removed in it last.
result<void> sync_directory(const char* path) noexcept;

// Exactly out.size() bytes of `fd` from `offset` (pread(2): the file
// position does not move), interrupted and short reads retried. Errors:
// io::errc::truncated where the file ends first, the system's.
result<void> read_at(int fd, std::span<std::byte> out, std::uint64_t offset) noexcept;

// An exclusive lock on `path`, held while the descriptor returned is open.
// An open-file-description lock (F_OFD_SETLK): it conflicts with Bitcoin
// Core's classic fcntl lock on its .lock files, and with a second lock in
// this same process (classic locks belong to the process, and closing any
// descriptor of the file drops them). `create`: make the file (mode 0644)
// if it is not there; otherwise a missing file gives an empty descriptor
// (nothing to lock). Errors: io::errc::locked when someone else holds it,
// the system's.
result<FileDescriptor> lock_file(const char* path, bool create) noexcept;

}  // namespace blockwire
