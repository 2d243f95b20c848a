// DirectFileWriter: a new file written past the page cache (O_DIRECT), for
// output of many gigabytes that nothing reads back soon (blockwire export's
// tables). Through the page cache every byte is copied into a freshly
// allocated page, and the copy is the cost: about 330 MB/s a core on the
// machine of docs/benchmarks.md, where O_DIRECT writes 1.5 GB/s and leaves
// the cache to the blk files being read. Where the file system refuses
// O_DIRECT (tmpfs), the same writer goes through the cache.
//
// It is a lending sink: a BufferedWriter<DirectFileWriter&> formats into the
// writer's own aligned memory and writes never copy; whole 4 KiB blocks go
// to the disk as the memory fills, the tail at finish().
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace blockwire {

class DirectFileWriter {
 public:
  // Creates or truncates `path` (mode 0644).
  static result<DirectFileWriter> create(const char* path) noexcept;

  // LendingWriter: room for at least n bytes at the end; commit(k) keeps k
  // of them. A failed write to the disk is kept and given by finish(), and
  // what comes after it is dropped.
  std::span<std::byte> lend(std::size_t n);
  void commit(std::size_t n) noexcept { used_ += n; }
  result<void> write(std::span<const std::byte> bytes);

  // Writes what is held, syncs (fsync) and closes: the first error of any
  // write, the sync or the close. The file is whole only when this succeeds.
  result<void> finish() noexcept;
  // The file is written past the page cache.
  bool direct() const noexcept { return direct_; }

 private:
  struct Free {
    void operator()(std::byte* p) const noexcept;
  };
  DirectFileWriter(int fd, bool direct) noexcept : fd_(fd, ownership::own), direct_(direct) {}
  // Writes the whole blocks held; the tail (under a block) moves to the front.
  void write_blocks() noexcept;
  void write_out(std::span<const std::byte> bytes) noexcept;
  bool stop_direct() noexcept;

  FileDescriptor fd_;
  bool direct_;
  std::unique_ptr<std::byte[], Free> memory_;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  error error_{};
};

}  // namespace blockwire
