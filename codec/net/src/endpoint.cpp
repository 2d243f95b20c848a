#include <blockwire/net/endpoint.hpp>
#include <blockwire/net/error.hpp>

#include <arpa/inet.h>
#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace blockwire::net {
namespace {

struct AddrInfo {
  addrinfo* list = nullptr;
  ~AddrInfo() {
    if (list != nullptr) freeaddrinfo(list);
  }
};

result<void> resolve(const Endpoint& where, bool passive, AddrInfo& out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : AI_ADDRCONFIG;
  const std::string port = std::to_string(where.port);
  const int rc = getaddrinfo(where.host.empty() ? nullptr : where.host.c_str(), port.c_str(), &hints, &out.list);
  if (rc == EAI_SYSTEM) return last_system_error();
  if (rc != 0 || out.list == nullptr) return net::errc::unknown_host;
  return success();
}

// connect(2) with a timeout: non-blocking, then poll for writability.
result<void> connect_within(int fd, const addrinfo& a, std::chrono::milliseconds timeout) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return last_system_error();
  if (::connect(fd, a.ai_addr, a.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) return last_system_error();
    pollfd p{fd, POLLOUT, 0};
    int n = 0;
    while ((n = poll(&p, 1, static_cast<int>(timeout.count()))) < 0 && errno == EINTR) {
    }
    if (n < 0) return last_system_error();
    if (n == 0) return std::error_code(ETIMEDOUT, std::system_category());
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return last_system_error();
    if (err != 0) return std::error_code(err, std::system_category());
  }
  if (fcntl(fd, F_SETFL, flags) < 0) return last_system_error();
  return success();
}

Endpoint endpoint_of(const sockaddr_storage& s) {
  char host[INET6_ADDRSTRLEN] = "?";
  std::uint16_t port = 0;
  if (s.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(s);
    inet_ntop(AF_INET, &a.sin_addr, host, sizeof host);
    port = ntohs(a.sin_port);
  } else if (s.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(s);
    inet_ntop(AF_INET6, &a.sin6_addr, host, sizeof host);
    port = ntohs(a.sin6_port);
  }
  return {host, port};
}

}  // namespace

std::string Endpoint::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

result<Endpoint> parse_endpoint(std::string_view text, std::uint16_t default_port) {
  Endpoint e;
  std::string_view port_text;
  if (text.starts_with("[")) {  // [IPv6]:port
    const auto close = text.find(']');
    if (close == std::string_view::npos) return net::errc::bad_endpoint;
    e.host = std::string(text.substr(1, close - 1));
    const std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (!rest.starts_with(":")) return net::errc::bad_endpoint;
      port_text = rest.substr(1);
      if (port_text.empty()) return net::errc::bad_endpoint;
    }
  } else if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
    if (text.find(':') != colon) {  // a bare IPv6 address: no port
      e.host = std::string(text);
    } else {
      e.host = std::string(text.substr(0, colon));
      port_text = text.substr(colon + 1);
      if (port_text.empty()) return net::errc::bad_endpoint;
    }
  } else {
    e.host = std::string(text);
  }
  e.port = default_port;
  if (!port_text.empty()) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || value > 65535) return net::errc::bad_endpoint;
    e.port = static_cast<std::uint16_t>(value);
  }
  return e;
}

namespace {

// The first address of `list` on which a new socket takes `use`, or the
// last failure.
template <class Use>
result<FileDescriptor> first_usable(const addrinfo* list, const Use& use) {
  error last = net::errc::unknown_host;
  for (const addrinfo* a = list; a != nullptr; a = a->ai_next) {
    FileDescriptor fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol), ownership::own);
    if (fd.get() < 0) {
      last = last_system_error();
      continue;
    }
    if (auto r = use(fd.get(), *a); !r) {
      last = r.error();
      continue;
    }
    return fd;
  }
  return last;
}

}  // namespace

result<FileDescriptor> connect_to(const Endpoint& where, std::chrono::milliseconds timeout) {
  if (where.host.empty()) return net::errc::bad_endpoint;
  AddrInfo addresses;
  if (auto r = resolve(where, false, addresses); !r) return r.error();
  return first_usable(addresses.list, [&](int fd, const addrinfo& a) { return connect_within(fd, a, timeout); });
}

result<FileDescriptor> listen_on(const Endpoint& where, int backlog) {
  AddrInfo addresses;
  if (auto r = resolve(where, true, addresses); !r) return r.error();
  return first_usable(addresses.list, [&](int fd, const addrinfo& a) -> result<void> {
    const int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a.ai_addr, a.ai_addrlen) != 0 || ::listen(fd, backlog) != 0) return last_system_error();
    return success();
  });
}

result<Endpoint> local_endpoint(int fd) {
  sockaddr_storage s{};
  socklen_t len = sizeof s;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&s), &len) != 0) return last_system_error();
  return endpoint_of(s);
}

std::string remote_name(int fd) {
  sockaddr_storage s{};
  socklen_t len = sizeof s;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&s), &len) != 0) return "?";
  return endpoint_of(s).to_string();
}

}  // namespace blockwire::net
