#include <blockwire/io/socket.hpp>

#include <cerrno>
#include <sys/socket.h>
#include <system_error>

namespace blockwire {

result<void> SocketWriter::write(std::span<const std::byte> bytes) noexcept {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::error_code(errno, std::system_category());
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));  // a partial send: go on
  }
  return success();
}

result<std::size_t> SocketReader::read_some(std::span<std::byte> buffer) noexcept {
  for (;;) {
    const ssize_t n = ::recv(fd_.get(), buffer.data(), buffer.size(), 0);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) return std::error_code(errno, std::system_category());
  }
}

}  // namespace blockwire
