#include <blockwire/io/file.hpp>

#include <cerrno>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace blockwire {
namespace {

std::error_code last_error() noexcept { return {errno, std::system_category()}; }

result<int> open_file(const char* path, int flags) noexcept {
  int fd;
  do fd = ::open(path, flags | O_CLOEXEC, 0644);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return last_error();
  return fd;
}

}  // namespace

result<FileWriter> FileWriter::create(const char* path) noexcept {
  auto fd = open_file(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (!fd) return fd.error();
  return FileWriter(fd.value(), ownership::own);
}

result<FileWriter> FileWriter::append(const char* path) noexcept {
  auto fd = open_file(path, O_WRONLY | O_CREAT | O_APPEND);
  if (!fd) return fd.error();
  return FileWriter(fd.value(), ownership::own);
}

result<void> FileWriter::write(std::span<const std::byte> bytes) noexcept {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_.get(), bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return last_error();
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));  // a short write: go on
  }
  return success();
}

result<FileReader> FileReader::open(const char* path) noexcept {
  auto fd = open_file(path, O_RDONLY);
  if (!fd) return fd.error();
  return FileReader(fd.value(), ownership::own);
}

result<std::size_t> FileReader::read_some(std::span<std::byte> buffer) noexcept {
  for (;;) {
    const ssize_t n = ::read(fd_.get(), buffer.data(), buffer.size());
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) return last_error();
  }
}

}  // namespace blockwire
