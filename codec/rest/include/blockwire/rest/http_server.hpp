// An HTTP/1.1 server for the REST interface, on Boost.Beast (Boost.Asio):
// asynchronous, keep-alive, every request bounded (its header's and body's
// sizes, the time to read it), the connections bounded in all and from one
// address, answers made on worker threads through a bounded queue and
// held in bounded memory, writes timed by their progress. docs/design.md
// says why Beast, and each limit's default.
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
  unsigned threads = 0;                     // network threads, and as many making answers; 0: one a core each
  std::size_t max_connections = 16384;      // full: the oldest idle kept-alive connection is closed for a newcomer, else the newcomer
  std::size_t max_per_address = 64;         // from one client address: more are closed at once
  std::size_t work_queue = 64;              // requests waiting for an answer or being answered (and as many quick ones); more: 503 at once
  std::size_t work_queue_per_address = 16;  // of each, from one client address; more wait for its own to be answered
  std::uint64_t max_held_bytes = std::uint64_t{512} << 20;  // answers made and not yet written whole; past it: 503
  std::chrono::seconds request_time{10};                    // to read a request from its first byte; a write that moves no byte
  std::chrono::seconds idle_time{60};                       // a kept-alive connection waiting for its next request
  std::uint32_t max_header_bytes = 16 * 1024;               // the request line and headers (Core's libevent: 8 KiB lines)
  std::uint64_t max_body_bytes = 64 * 1024;                 // a POST's body (getutxos' 15 outpoints in hex: 1.2 kB)
};

// The answer to a request: its method ("GET", "POST"), its target (path
// and query) and its body.
using Handler = std::function<Response(std::string_view method, std::string_view target, std::string_view body)>;
// Whether a request's answer is quick to make (a few kilobytes: the chain's
// state, a hash): those are made by a worker of their own, so that they
// never wait behind answers of many megabytes.
using QuickRoute = std::function<bool(std::string_view target)>;

class HttpServer {
 public:
  // Listening on `address`:`port` (port 0: any free one). Errors: the
  // address's (std::errc), or taking the port; the error's context says
  // which ("binding 127.0.0.1:80").
  static result<HttpServer> listen(const std::string& address, std::uint16_t port, Handler handler, const HttpLimits& limits = {},
                                   QuickRoute quick = {});
  HttpServer(HttpServer&&) noexcept;
  HttpServer& operator=(HttpServer&&) noexcept;
  ~HttpServer();

  // "ADDR:PORT", the port the system chose when 0 was asked.
  std::string local_address() const;
  // Serves on the threads until stop(), or until `stop_fd` (when given:
  // a signalfd, an eventfd, a pipe's end) is readable; whether the
  // descriptor stopped it. The library takes over no signal: a program
  // that stops on SIGTERM blocks it and passes a signalfd, as
  // `blockwire rest` does.
  bool run(int stop_fd = -1);
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
