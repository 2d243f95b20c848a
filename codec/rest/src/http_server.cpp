#include <blockwire/rest/http_server.hpp>

#include <boost/algorithm/string/predicate.hpp>
#include <boost/algorithm/string/trim.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <unistd.h>
#include <atomic>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

namespace blockwire::rest {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// A request line longer than this is 414 (RFC 9112 3: a server ought to
// take 8,000 octets at least).
constexpr std::size_t max_request_line = 8 * 1024;
// What a connection's first read takes: a request's line and usual headers.
constexpr std::size_t first_read_bytes = 4096;

}  // namespace

namespace detail {
class HttpSession;
}

struct HttpServer::State {
  // (Declared before the io_context: its destructor destroys the sessions
  // still queued, and they count themselves out of `open`.)
  Handler handler;
  QuickRoute quick;
  HttpLimits limits;
  std::atomic<std::size_t> open{0};
  std::atomic<bool> stopped_by_fd{false};
  std::atomic<std::uint64_t> held{0};                              // bytes of answers built and not yet written whole
  std::mutex mutex;                                                // guards what follows
  std::size_t queued = 0;                                          // requests waiting for a worker or being answered by one
  std::size_t queued_quick = 0;                                    // the same, of the quick routes
  std::unordered_map<std::string, std::size_t> queued_by_address;  // `queued`, by the client's address
  std::unordered_map<std::string, std::size_t> quick_by_address;   // `queued_quick`, by the client's address
  std::unordered_map<std::string, std::size_t> per_address;        // connections open, by the client's address
  std::list<std::weak_ptr<detail::HttpSession>> idle;              // kept-alive connections waiting for a request, oldest first
  asio::io_context io;
  // Requests past their address's share of a queue, waiting for one of its
  // own to be answered, by the client's address. (After the io_context:
  // the sessions they hold close their sockets through it.)
  std::unordered_map<std::string, std::deque<std::function<void()>>> parked;
  std::unordered_map<std::string, std::deque<std::function<void()>>> parked_quick;
  // Where answers are made: off the network's threads. (After the
  // io_context: the sessions its queued work holds close their sockets
  // through the io_context's services when the pool is destroyed.)
  std::optional<asio::thread_pool> workers;
  std::optional<asio::thread_pool> quick_worker;  // the quick routes' own (QuickRoute)
  tcp::acceptor acceptor{io};
};

namespace detail {

// One connection: requests read and answered in turn while it is kept
// alive. Reading has a deadline from a request's first byte (and, kept
// alive, for the next one to come); writing one that is renewed by every
// write that moves bytes, so a slow reader that keeps reading gets all.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, std::string address, HttpServer::State& state)
      : stream_(std::move(socket)), address_(std::move(address)), state_(state) {
    ++state_.open;
  }
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;
  ~HttpSession() {
    release_held();
    {
      const std::lock_guard lock(state_.mutex);
      if (idle_at_) state_.idle.erase(*idle_at_);
      if (const auto it = state_.per_address.find(address_); it != state_.per_address.end() && --it->second == 0) {
        state_.per_address.erase(it);
      }
    }
    --state_.open;
  }

  void read() {
    parser_.emplace();
    parser_->header_limit(state_.limits.max_header_bytes);
    parser_->body_limit(state_.limits.max_body_bytes);
    if (buffer_.size() != 0) {  // the next request already begun (pipelined)
      stream_.expires_after(state_.limits.request_time);
      return read_header();
    }
    // No byte of a request yet: idle, and evictable, until one comes (a
    // connection that has sent nothing holds a slot it does not use). A
    // new connection has request_time for its whole first request, a
    // kept-alive one idle_time for its next to begin.
    stream_.expires_after(first_ ? state_.limits.request_time : state_.limits.idle_time);
    become_idle();
    stream_.async_read_some(buffer_.prepare(first_read_bytes), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      self->buffer_.commit(n);
      self->on_first_bytes(ec);
    });
  }

  auto executor() { return stream_.get_executor(); }

  // Full: an idle connection (one that has sent no byte of a request, new
  // or kept alive) is closed for a newcomer: of the address with the most
  // connections open, its oldest, so that no set of addresses under their
  // caps keeps a newcomer out. False when none is idle.
  static bool evict_idle(HttpServer::State& state) {
    std::shared_ptr<HttpSession> victim;
    {
      const std::lock_guard lock(state.mutex);
      auto chosen = state.idle.end();
      std::size_t most = 0;
      // (oldest first; one whose last owner is gone is being destroyed: it
      // takes itself out)
      for (auto it = state.idle.begin(); it != state.idle.end(); ++it) {
        auto session = it->lock();
        if (!session) continue;
        const auto open = state.per_address.find(session->address_);
        const std::size_t count = open != state.per_address.end() ? open->second : 0;
        if (count > most) {
          most = count;
          chosen = it;
          victim = std::move(session);
        }
      }
      if (victim) {
        victim->idle_at_.reset();
        state.idle.erase(chosen);
      }
    }
    if (!victim) return false;
    asio::post(victim->executor(), [victim] { victim->close(); });
    return true;
  }

 private:
  void become_idle() {
    const std::lock_guard lock(state_.mutex);
    idle_at_ = state_.idle.insert(state_.idle.end(), weak_from_this());
  }
  void leave_idle() {
    const std::lock_guard lock(state_.mutex);
    if (idle_at_) state_.idle.erase(*idle_at_);
    idle_at_.reset();
  }

  void on_first_bytes(beast::error_code ec) {
    leave_idle();
    if (ec) return failed(ec);
    if (!first_) stream_.expires_after(state_.limits.request_time);  // the request, from its first byte
    read_header();
  }

  void read_header() {
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    first_ = false;
    if (ec) return failed(ec);
    const auto& request = parser_->get();
    if (request.target().size() > max_request_line) return refuse(http::status::uri_too_long);
    // RFC 9112 3.2: an HTTP/1.1 request without a Host, or any with two, is
    // a 400 (a proxy and this server could take it for different hosts).
    if (const auto hosts = request.count(http::field::host); hosts > 1 || (hosts == 0 && request.version() >= 11)) {
      return refuse(http::status::bad_request);
    }
    // Chunked alone is a framing this server reads; any other coding (or
    // chunked not last) leaves the body's length unknown: 400, and the
    // connection closed, so that no byte of it is read as a request
    // (RFC 9112 6.1).
    if (const auto te = request.find(http::field::transfer_encoding); te != request.end()) {
      std::string coding(te->value().data(), te->value().size());
      boost::algorithm::trim(coding);
      if (!boost::algorithm::iequals(coding, "chunked")) return refuse(http::status::bad_request);
    }
    if (parser_->is_done()) return on_read({});
    stream_.expires_after(state_.limits.request_time);
    const auto expect = request[http::field::expect];
    if (boost::algorithm::iequals(std::string_view(expect.data(), expect.size()), "100-continue") && request.version() >= 11) {
      // The client waits for a word before it sends its body.
      static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
      asio::async_write(stream_, asio::buffer(go_on.data(), go_on.size()), [self = shared_from_this()](beast::error_code e, std::size_t) {
        if (e) return self->close();
        self->read_body();
      });
      return;
    }
    read_body();
  }

  void read_body() {
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void failed(beast::error_code ec) {
    if (ec == http::error::header_limit) {
      // The request line alone past its bound: 414; else the headers: 431.
      const auto bytes = buffer_.data();
      const std::string_view seen(static_cast<const char*>(bytes.data()), bytes.size());
      const auto line_end = seen.find("\r\n");
      return refuse(line_end == std::string_view::npos || line_end > max_request_line ? http::status::uri_too_long
                                                                                      : http::status::request_header_fields_too_large);
    }
    if (ec == http::error::body_limit) return refuse(http::status::payload_too_large);
    if (ec == http::error::bad_method || ec == http::error::bad_target || ec == http::error::bad_version || ec == http::error::bad_field ||
        ec == http::error::bad_value || ec == http::error::bad_line_ending || ec == http::error::bad_content_length ||
        ec == http::error::bad_transfer_encoding || ec == http::error::bad_chunk || ec == http::error::bad_obs_fold) {
      return refuse(http::status::bad_request);
    }
    close();  // the peer left, timed out, or sent what is no HTTP
  }

  void on_read(beast::error_code ec) {
    if (ec) return failed(ec);
    const auto& request = parser_->get();
    const bool keep_alive = request.keep_alive();
    const unsigned version = request.version();
    const http::verb verb = request.method();
    if (verb != http::verb::get && verb != http::verb::head && verb != http::verb::post) {
      return respond({405, "text/plain", "Method not allowed\r\n"}, keep_alive, version, false, true);
    }
    // The answer is made on a worker: the network's threads only move
    // bytes, so a costly answer never holds up a cheap one, and the quick
    // routes have a worker and a queue of their own. Each queue is bounded
    // (Core's -rpcworkqueue): past it, 503 at once. One address's share of
    // it is bounded too, but a request past that share waits for one of
    // its address's own to be answered: a page or a client that asks for
    // twenty blocks at once is answered in turn, not refused, and it
    // cannot take the queue from the others. (Its connections are capped,
    // so are the requests it can leave waiting.)
    const bool head = verb == http::verb::head;
    const bool quick = state_.quick && state_.quick(std::string_view(request.target().data(), request.target().size()));
    auto job = [self = shared_from_this(),
                method = head ? std::string("GET") : std::string(request.method_string().data(), request.method_string().size()),
                target = std::string(request.target().data(), request.target().size()), body = request.body(), keep_alive, version, head,
                quick] {
      Response answer;
      try {
        answer = self->state_.handler(method, target, body);
      } catch (const std::exception&) {  // (out of memory, at worst): this request alone fails
        answer = {500, "text/plain", "Internal error\r\n"};
      }
      self->dequeue(quick);
      asio::post(self->executor(), [self, answer = std::move(answer), keep_alive, version, head]() mutable {
        self->respond(std::move(answer), keep_alive, version, head);
      });
    };
    switch (enqueue(quick, job)) {
      case Admission::run: asio::post(quick ? *state_.quick_worker : *state_.workers, std::move(job)); return;
      case Admission::waits: return;
      case Admission::refused: return respond({503, "text/plain", "Work queue depth exceeded\r\n"}, keep_alive, version, head);
    }
  }

  enum class Admission { run, waits, refused };
  Admission enqueue(bool quick, const std::function<void()>& job) {
    const std::lock_guard lock(state_.mutex);
    std::size_t& all = quick ? state_.queued_quick : state_.queued;
    auto& by_address = quick ? state_.quick_by_address : state_.queued_by_address;
    std::size_t& mine = by_address[address_];
    if (mine >= state_.limits.work_queue_per_address) {
      (quick ? state_.parked_quick : state_.parked)[address_].push_back(job);
      return Admission::waits;
    }
    if (all >= state_.limits.work_queue) {
      if (mine == 0) by_address.erase(address_);
      return Admission::refused;
    }
    ++all;
    ++mine;
    return Admission::run;
  }
  // An answer made: its place goes to the next request of the same address
  // that waits, if any (the counts stay as they are), else it is freed.
  void dequeue(bool quick) {
    std::function<void()> next;
    {
      const std::lock_guard lock(state_.mutex);
      auto& parked = quick ? state_.parked_quick : state_.parked;
      if (const auto waiting = parked.find(address_); waiting != parked.end()) {
        next = std::move(waiting->second.front());
        waiting->second.pop_front();
        if (waiting->second.empty()) parked.erase(waiting);
      } else {
        --(quick ? state_.queued_quick : state_.queued);
        auto& by_address = quick ? state_.quick_by_address : state_.queued_by_address;
        if (const auto it = by_address.find(address_); it != by_address.end() && --it->second == 0) by_address.erase(it);
      }
    }
    if (next) asio::post(quick ? *state_.quick_worker : *state_.workers, std::move(next));
  }

  void refuse(http::status status) {
    respond({static_cast<unsigned>(status), "text/plain", std::string(http::obsolete_reason(status)) + "\r\n"}, false, 11, false);
  }

  // In the request's HTTP version (1.0's keep-alive is said, 1.1's is the
  // default). `head`: the header alone, its Content-Length the body's.
  void respond(Response answer, bool keep_alive, unsigned version, bool head, bool allow = false) {
    // Answers built and not yet written are bounded in all: past the bound,
    // a 503 takes an answer's place.
    const std::uint64_t size = head ? 0 : answer.body.size();
    if (state_.held.fetch_add(size) + size > state_.limits.max_held_bytes && size > 0) {
      state_.held -= size;
      answer = {503, "text/plain", "Too many answers waiting to be read; try again\r\n"};
    } else {
      held_ = size;
    }
    response_ = std::make_unique<http::response<http::string_body>>(static_cast<http::status>(answer.status), version);
    if (!answer.content_type.empty()) response_->set(http::field::content_type, answer.content_type);
    if (allow) response_->set(http::field::allow, "GET, HEAD, POST");
    response_->body() = std::move(answer.body);
    response_->keep_alive(keep_alive);
    response_->prepare_payload();
    serializer_.emplace(*response_);
    serializer_->split(head);
    head_only_ = head;
    write_some();
  }

  void write_some() {
    stream_.expires_after(state_.limits.request_time);  // no byte moved for this long: the client is let go
    http::async_write_some(stream_, *serializer_, [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_write(ec); });
  }

  void on_write(beast::error_code ec) {
    if (ec) return close();
    if (!(head_only_ ? serializer_->is_header_done() : serializer_->is_done())) return write_some();
    release_held();
    const bool keep_alive = response_->keep_alive();
    serializer_.reset();
    response_.reset();
    if (!keep_alive) return close();
    read();
  }

  void release_held() { state_.held -= std::exchange(held_, 0); }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  std::string address_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::unique_ptr<http::response<http::string_body>> response_;
  std::optional<http::response_serializer<http::string_body>> serializer_;
  bool head_only_ = false;
  std::uint64_t held_ = 0;  // of State::held, this connection's answer
  HttpServer::State& state_;
  bool first_ = true;
  std::optional<std::list<std::weak_ptr<HttpSession>>::iterator> idle_at_;  // (under State::mutex)
};

}  // namespace detail

namespace {

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
    beast::error_code where_ec;
    const std::string address = socket.remote_endpoint(where_ec).address().to_string();
    bool admitted = !where_ec;
    if (admitted) {
      const std::lock_guard lock(state.mutex);
      std::size_t& from_there = state.per_address[address];
      admitted = from_there < state.limits.max_per_address;
      if (admitted) ++from_there;
    }
    // Full: room made by closing an idle connection (evict_idle), else
    // the newcomer goes and the others keep being served.
    if (admitted && state.open.load() >= state.limits.max_connections && !detail::HttpSession::evict_idle(state)) {
      const std::lock_guard lock(state.mutex);
      if (const auto it = state.per_address.find(address); it != state.per_address.end() && --it->second == 0) state.per_address.erase(it);
      admitted = false;
    }
    if (admitted) {
      std::make_shared<detail::HttpSession>(std::move(socket), address, state)->read();
    } else {
      beast::error_code ignored;
      socket.close(ignored);
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
                                      QuickRoute quick) {
  auto state = std::make_unique<State>();
  state->handler = std::move(handler);
  state->quick = std::move(quick);
  state->limits = limits;
  beast::error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) return error(std::make_error_code(std::errc::invalid_argument)).in(address + ": not an IP address");
  const tcp::endpoint at(ip, port);
  const auto failed = [&](const char* what) -> error {
    return error(std::error_code(ec.value(), std::system_category())).in(std::string(what) + " " + address + ":" + std::to_string(port));
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
  const std::string host = at.address().to_string();
  return (at.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(at.port());
}

bool HttpServer::run(int stop_fd) {
  State& s = *state_;
  // (A copy of the descriptor: the caller keeps its own, to read what woke it.)
  std::optional<asio::posix::stream_descriptor> stopper;
  if (const int copy = stop_fd >= 0 ? ::dup(stop_fd) : -1; copy >= 0) {
    stopper.emplace(s.io, copy);
    stopper->async_wait(asio::posix::stream_descriptor::wait_read, [&s](beast::error_code ec) {
      if (ec) return;
      s.stopped_by_fd = true;
      s.io.stop();
    });
  }
  const unsigned threads = s.limits.threads != 0 ? s.limits.threads : std::max(1u, std::thread::hardware_concurrency());
  s.workers.emplace(threads);
  s.quick_worker.emplace(1);
  accept(s);
  std::vector<std::thread> others;
  for (unsigned i = 1; i < threads; ++i) others.emplace_back([&s] { s.io.run(); });
  s.io.run();
  for (std::thread& t : others) t.join();
  // The network has stopped: answers not begun are dropped, the ones being
  // made are finished (they read the directory; nothing is cut short).
  for (auto* pool : {&s.workers, &s.quick_worker}) {
    (*pool)->stop();
    (*pool)->join();
    pool->reset();  // (the sessions its dropped work held, closed now)
  }
  decltype(s.parked) parked;
  decltype(s.parked_quick) parked_quick;
  {
    const std::lock_guard lock(s.mutex);
    parked.swap(s.parked);
    parked_quick.swap(s.parked_quick);
  }
  stopper.reset();
  return s.stopped_by_fd;
}

void HttpServer::stop() { state_->io.stop(); }

std::size_t HttpServer::connections() const noexcept { return state_->open.load(); }

}  // namespace blockwire::rest
