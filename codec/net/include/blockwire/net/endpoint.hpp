// Where a peer is: HOST[:PORT] parsed (names, IPv4, [IPv6]), and TCP
// sockets connected or listening there.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace blockwire::net {

struct Endpoint {
  std::string host;  // a name, an IPv4 address or an IPv6 address (no brackets); empty: every local address
  std::uint16_t port = 0;
  // "host:port", "[v6]:port".
  std::string to_string() const;
};

// "node.example", "10.0.0.1:8333", "[::1]:18444", ":8333" (every address).
// Without a port, `default_port`. Error: net::errc::bad_endpoint.
result<Endpoint> parse_endpoint(std::string_view text, std::uint16_t default_port);

// A connected TCP socket, trying
// each address the host resolves to within `timeout` each. Errors:
// unknown_host, or the last address's connect error (ETIMEDOUT for the
// timeout).
result<FileDescriptor> connect_to(const Endpoint& where, std::chrono::milliseconds timeout);
// A listening TCP socket (SO_REUSEADDR). Port 0 picks a free one:
// local_endpoint says which.
result<FileDescriptor> listen_on(const Endpoint& where, int backlog = 16);
result<Endpoint> local_endpoint(int fd);
// The other end of a connected socket, "host:port"; "?" when unknown.
std::string remote_name(int fd);

}  // namespace blockwire::net
