#include <blockwire/rest/http_server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <optional>
#include <thread>
#include <vector>

namespace blockwire::rest {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

}  // namespace

struct HttpServer::State {
  // (Declared before the io_context: its destructor destroys the sessions
  // still queued, and they count themselves out of `open`.)
  Handler handler;
  HttpLimits limits;
  std::atomic<std::size_t> open{0};
  std::atomic<int> stopped_by{0};
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::signal_set signals{io, SIGINT, SIGTERM};
};

namespace {

// One connection: requests read and answered in turn while it is kept
// alive, each read under a deadline.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpServer::State& state) : stream_(std::move(socket)), state_(state) { ++state_.open; }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { --state_.open; }

  void read() {
    parser_.emplace();
    parser_->header_limit(state_.limits.max_header_bytes);
    parser_->body_limit(state_.limits.max_body_bytes);
    stream_.expires_after(first_ ? state_.limits.request_time : state_.limits.idle_time);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

 private:
  void on_read(beast::error_code ec) {
    first_ = false;
    if (ec == http::error::header_limit) return refuse(http::status::request_header_fields_too_large);
    if (ec == http::error::body_limit) return refuse(http::status::payload_too_large);
    if (ec == http::error::bad_method || ec == http::error::bad_target || ec == http::error::bad_version || ec == http::error::bad_field ||
        ec == http::error::bad_value || ec == http::error::bad_line_ending || ec == http::error::bad_content_length ||
        ec == http::error::bad_transfer_encoding || ec == http::error::bad_chunk || ec == http::error::bad_obs_fold) {
      return refuse(http::status::bad_request);
    }
    if (ec) return close();  // the peer left, timed out, or sent what is no HTTP
    const auto& request = parser_->get();
    Response answer;
    try {
      answer = state_.handler(std::string_view(request.method_string().data(), request.method_string().size()),
                              std::string_view(request.target().data(), request.target().size()), request.body());
    } catch (const std::exception&) {  // (out of memory, at worst): this request alone fails
      answer = {500, "text/plain", "Internal error\r\n"};
    }
    respond(static_cast<http::status>(answer.status), std::move(answer.content_type), std::move(answer.body), request.keep_alive(),
            request.version());
  }

  void refuse(http::status status) { respond(status, "text/plain", std::string(http::obsolete_reason(status)) + "\r\n", false, 11); }

  // In the request's HTTP version (1.0's keep-alive is said, 1.1's is the default).
  void respond(http::status status, std::string content_type, std::string body, bool keep_alive, unsigned version) {
    auto response = std::make_shared<http::response<http::string_body>>(status, version);
    if (!content_type.empty()) response->set(http::field::content_type, content_type);
    response->body() = std::move(body);
    response->keep_alive(keep_alive);
    response->prepare_payload();
    stream_.expires_after(state_.limits.request_time);  // the answer too: a client that does not read is let go
    http::async_write(stream_, *response, [self = shared_from_this(), response](beast::error_code ec, std::size_t) {
      if (ec || !response->keep_alive()) return self->close();
      self->read();
    });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpServer::State& state_;
  bool first_ = true;
};

void accept(HttpServer::State& state) {
  state.acceptor.async_accept(asio::make_strand(state.io), [&state](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of descriptors (or another failure the next accept may not
      // have): tried again in a tenth of a second, not at once, in a loop.
      auto wait = std::make_shared<asio::steady_timer>(state.io, std::chrono::milliseconds(100));
      wait->async_wait([&state, wait](beast::error_code) { accept(state); });
      return;
    }
    if (state.open.load() >= state.limits.max_connections) {
      beast::error_code ignored;
      socket.close(ignored);  // full: the newcomer goes, the others keep being served
    } else {
      std::make_shared<Session>(std::move(socket), state)->read();
    }
    accept(state);
  });
}

}  // namespace

HttpServer::HttpServer(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
HttpServer::HttpServer(HttpServer&&) noexcept = default;
HttpServer& HttpServer::operator=(HttpServer&&) noexcept = default;
HttpServer::~HttpServer() = default;

result<HttpServer> HttpServer::listen(const std::string& address, std::uint16_t port, Handler handler, const HttpLimits& limits,
                                      std::string* why) {
  auto state = std::make_unique<State>();
  state->handler = std::move(handler);
  state->limits = limits;
  beast::error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) {
    if (why != nullptr) *why = address + ": not an IP address";
    return std::make_error_code(std::errc::invalid_argument);
  }
  const tcp::endpoint at(ip, port);
  const auto failed = [&](const char* what) -> error {
    if (why != nullptr) *why = std::string(what) + " " + address + ":" + std::to_string(port) + ": " + ec.message();
    return std::error_code(ec.value(), std::system_category());
  };
  state->acceptor.open(at.protocol(), ec);
  if (ec) return failed("opening");
  state->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  state->acceptor.bind(at, ec);
  if (ec) return failed("binding");
  state->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return failed("listening on");
  return HttpServer(std::move(state));
}

std::string HttpServer::local_address() const {
  beast::error_code ec;
  const tcp::endpoint at = state_->acceptor.local_endpoint(ec);
  return at.address().to_string() + ":" + std::to_string(at.port());
}

int HttpServer::run() {
  State& s = *state_;
  s.signals.async_wait([&s](beast::error_code ec, int signal) {
    if (ec) return;
    s.stopped_by = signal;
    s.io.stop();
  });
  accept(s);
  const unsigned threads = s.limits.threads != 0 ? s.limits.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> others;
  for (unsigned i = 1; i < threads; ++i) others.emplace_back([&s] { s.io.run(); });
  s.io.run();
  for (std::thread& t : others) t.join();
  return s.stopped_by;
}

void HttpServer::stop() { state_->io.stop(); }

std::size_t HttpServer::connections() const noexcept { return state_->open.load(); }

}  // namespace blockwire::rest
