#include <blockwire/io/file_descriptor.hpp>

#include <cerrno>
#include <system_error>
#include <unistd.h>

namespace blockwire {

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    (void)close();
    fd_ = other.fd_;
    owned_ = other.owned_;
    other.fd_ = -1;
  }
  return *this;
}

FileDescriptor::~FileDescriptor() { (void)close(); }

result<void> FileDescriptor::close() noexcept {
  const int fd = fd_;
  fd_ = -1;
  // Not retried on EINTR: on Linux the descriptor is released either way.
  if (fd >= 0 && owned_ && ::close(fd) != 0) return std::error_code(errno, std::system_category());
  return success();
}

}  // namespace blockwire
