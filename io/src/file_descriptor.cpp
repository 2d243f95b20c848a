#include <blockwire/io/file_descriptor.hpp>

#include <algorithm>
#include <cerrno>
#include <sys/resource.h>
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

std::size_t connections_allowed(std::size_t cap, std::size_t kept) noexcept {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &files);
  }
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY) {
    return std::min<std::size_t>(cap, files.rlim_cur > kept ? files.rlim_cur - kept : 1);
  }
  return cap;
}

}  // namespace blockwire
