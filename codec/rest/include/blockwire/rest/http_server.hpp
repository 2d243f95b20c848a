// An HTTP/1.1 server for the REST interface, on Boost.Beast (Boost.Asio):
// asynchronous, a thread a core, keep-alive, every request bounded (its
// header's and body's sizes, the time to read it), the connections
// bounded. docs/design.md says why Beast.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/rest/rest_service.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace blockwire::rest {

struct HttpLimits {
  unsigned threads = 0;                        // 0: one a core
  std::size_t max_connections = 16384;         // more are closed at once
  std::chrono::seconds request_time{10};       // to read a request, from its first byte (slow headers)
  std::chrono::seconds idle_time{60};          // a kept-alive connection waiting for its next request
  std::uint32_t max_header_bytes = 16 * 1024;  // the request line and headers (Core's libevent: 8 KiB lines)
  std::uint64_t max_body_bytes = 64 * 1024;    // a POST's body (getutxos' 15 outpoints in hex: 1.2 kB)
};

// The answer to a request: its method ("GET", "POST"), its target (path
// and query) and its body.
using Handler = std::function<Response(std::string_view method, std::string_view target, std::string_view body)>;

class HttpServer {
 public:
  // Listening on `address`:`port` (port 0: any free one). Errors: the
  // address's (std::errc), or taking the port. `why` says which, in words.
  static result<HttpServer> listen(const std::string& address, std::uint16_t port, Handler handler, const HttpLimits& limits = {},
                                   std::string* why = nullptr);
  HttpServer(HttpServer&&) noexcept;
  HttpServer& operator=(HttpServer&&) noexcept;
  ~HttpServer();

  // "ADDR:PORT", the port the system chose when 0 was asked.
  std::string local_address() const;
  // Serves on the threads until stop(), SIGINT or SIGTERM; returns the
  // signal that stopped it (0: stop()).
  int run();
  // From any thread.
  void stop();
  // Connections open now.
  std::size_t connections() const noexcept;

  struct State;  // (opaque: the server's sessions use it)

 private:
  explicit HttpServer(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace blockwire::rest
