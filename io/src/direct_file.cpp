#include <blockwire/io/direct_file.hpp>

#include <cerrno>
#include <cstring>
#include <new>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace blockwire {
namespace {

// O_DIRECT wants the memory, the length and the file offset aligned to the
// device's logical block: 4 KiB covers every device in use.
constexpr std::size_t block = 4096;
constexpr std::size_t chunk = 1 << 20;  // memory held: a megabyte a write

}  // namespace

void DirectFileWriter::Free::operator()(std::byte* p) const noexcept { ::operator delete[](p, std::align_val_t{block}); }

result<DirectFileWriter> DirectFileWriter::create(const char* path) noexcept {
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  int fd;
  do fd = ::open(path, flags | O_DIRECT, 0644);
  while (fd < 0 && errno == EINTR);
  bool direct = fd >= 0;
  if (fd < 0 && errno == EINVAL) {  // a file system without O_DIRECT
    do fd = ::open(path, flags, 0644);
    while (fd < 0 && errno == EINTR);
  }
  if (fd < 0) return last_system_error();
  return DirectFileWriter(fd, direct);
}

bool DirectFileWriter::stop_direct() noexcept {
  const int flags = ::fcntl(fd_.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd_.get(), F_SETFL, flags & ~O_DIRECT) < 0) {
    error_ = last_system_error();
    return false;
  }
  direct_ = false;
  return true;
}

void DirectFileWriter::write_out(std::span<const std::byte> bytes) noexcept {
  while (!bytes.empty() && !error_) {
    const ssize_t n = ::write(fd_.get(), bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      // A file system that opened with O_DIRECT but will not write so.
      if (errno == EINVAL && direct_ && stop_direct()) continue;
      error_ = last_system_error();
      return;
    }
    if (n == 0) {  // no progress, and no error to say why
      error_ = std::make_error_code(std::errc::io_error);
      return;
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));
    // A short write leaves the rest unaligned: it goes through the cache.
    if (direct_ && static_cast<std::size_t>(n) % block != 0) stop_direct();
  }
}

void DirectFileWriter::write_blocks() noexcept {
  const std::size_t whole = used_ / block * block;
  if (whole == 0) return;
  write_out({memory_.get(), whole});
  std::memmove(memory_.get(), memory_.get() + whole, used_ - whole);
  used_ -= whole;
}

std::span<std::byte> DirectFileWriter::lend(std::size_t n) {
  if (capacity_ - used_ < n) write_blocks();
  if (error_) used_ = 0;  // dropped: finish() says why
  if (capacity_ - used_ < n) {
    const std::size_t wanted = (used_ + n > chunk ? used_ + n : chunk) + block - 1;
    const std::size_t capacity = wanted / block * block;
    std::unique_ptr<std::byte[], Free> grown(new (std::align_val_t{block}) std::byte[capacity]);
    if (used_ != 0) std::memcpy(grown.get(), memory_.get(), used_);
    memory_ = std::move(grown);
    capacity_ = capacity;
  }
  return {memory_.get() + used_, capacity_ - used_};
}

result<void> DirectFileWriter::write(std::span<const std::byte> bytes) {
  const std::span<std::byte> room = lend(bytes.size());
  if (!bytes.empty()) std::memcpy(room.data(), bytes.data(), bytes.size());
  commit(bytes.size());
  if (error_) return error_;
  return success();
}

result<void> DirectFileWriter::finish() noexcept {
  write_blocks();
  if (used_ != 0 && !error_ && (!direct_ || stop_direct())) write_out({memory_.get(), used_});
  used_ = 0;
  if (!error_ && ::fsync(fd_.get()) != 0) error_ = last_system_error();
  auto closed = fd_.close();
  if (error_) return error_;
  return closed;
}

}  // namespace blockwire
