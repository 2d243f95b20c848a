#include <blockwire/electrum/server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

namespace blockwire::electrum {

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

class Session;

}  // namespace

struct Server::State {
  BlockStore& store;
  TxIndex* transactions;
  AddressIndex& addresses;
  ServerOptions options;
  Service service;
  std::optional<asio::ssl::context> tls;  // its certificate and key (ServerOptions::tls)
  std::atomic<std::size_t> open{0};
  std::atomic<bool> stopped_by_fd{false};
  std::mutex mutex;  // guards what follows
  std::unordered_map<std::string, std::size_t> per_address;
  std::list<std::weak_ptr<Session>> sessions;
  // (Declared after what the sessions use: the io_context's destructor
  // destroys the sessions its pending handlers still hold, and they count
  // themselves out of `open` and `per_address` then.)
  asio::io_context io;
  tcp::acceptor acceptor{io};
  tcp::acceptor tls_acceptor{io};

  State(BlockStore& s, TxIndex* t, AddressIndex& a, const ServerOptions& o)
      : store(s), transactions(t), addresses(a), options(o), service(s, t, a, o.service) {}
};

namespace {

// One client: its lines read one at a time and answered in order; its
// answers and notifications written in order from a queue that a client
// that does not read cannot grow past Limits::max_unsent.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::string address, Server::State& state, bool tls)
      : socket_(std::move(socket)),
        address_(std::move(address)),
        state_(state),
        input_(state.options.limits.max_line),
        idle_(socket_.get_executor()) {
    if (tls) tls_.emplace(socket_, *state_.tls);
    ++state_.open;
  }
  ~Session() {
    --state_.open;
    const std::lock_guard lock(state_.mutex);
    if (const auto it = state_.per_address.find(address_); it != state_.per_address.end() && --it->second == 0)
      state_.per_address.erase(it);
  }

  void start() {
    {
      const std::lock_guard lock(state_.mutex);
      at_ = state_.sessions.insert(state_.sessions.end(), weak_from_this());
    }
    if (!tls_) {
      read();
      return;
    }
    // (a client that opens and never finishes its handshake: closed at the same bound as a silent one)
    idle_.expires_after(std::min<std::chrono::steady_clock::duration>(state_.options.limits.idle, std::chrono::seconds(10)));
    idle_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->close();
    });
    tls_->async_handshake(asio::ssl::stream_base::server, [self = shared_from_this()](error_code ec) {
      if (self->closed_) return;
      if (ec) {
        self->close();
        return;
      }
      self->read();
    });
  }

  asio::any_io_executor executor() { return socket_.get_executor(); }

  // From the refresher: the tip moved from `old_tip`; what this client
  // is owed is worked out and sent on its own strand.
  void tip_moved(const BlockHash& old_tip) {
    asio::post(socket_.get_executor(), [self = shared_from_this(), old_tip] {
      if (self->closed_ || (!self->mine_.headers && self->mine_.scripts.empty())) return;
      for (std::string& line : self->state_.service.changes(old_tip, self->mine_)) self->send(std::move(line));
    });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    error_code ignored;
    idle_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    const std::lock_guard lock(state_.mutex);
    if (at_) state_.sessions.erase(*at_);
    at_.reset();
  }

 private:
  void read() {
    idle_.expires_after(state_.options.limits.idle);
    idle_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->close();
    });
    on_stream([&](auto& stream) {
      asio::async_read_until(stream, input_, '\n', [self = shared_from_this()](error_code ec, std::size_t n) { self->on_line(ec, n); });
    });
  }

  void on_line(error_code ec, std::size_t n) {
    if (closed_) return;
    if (ec == asio::error::not_found) {
      // (a line past max_line: said, and the connection closed after it)
      send("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"request line longer than " +
           std::to_string(state_.options.limits.max_line) + " bytes\"},\"id\":null}");
      closing_ = true;
      return;
    }
    if (ec) {
      close();
      return;
    }
    std::string line(asio::buffers_begin(input_.data()), asio::buffers_begin(input_.data()) + static_cast<std::ptrdiff_t>(n));
    input_.consume(n);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (!line.empty() && line.find_first_not_of(" \t") != std::string::npos) {
      std::string answer = state_.service.answer(line, mine_);
      if (!answer.empty()) send(std::move(answer));
      if (mine_.close) {
        closing_ = true;
        if (unsent_ == 0) close();
        return;
      }
    }
    read();
  }

  void send(std::string line) {
    if (closed_) return;
    line += '\n';
    unsent_ += line.size();
    if (unsent_ > state_.options.limits.max_unsent) {
      close();  // (a client that does not read what it asked for)
      return;
    }
    out_.push_back(std::move(line));
    if (out_.size() == 1) write();
  }

  void write() {
    on_stream([&](auto& stream) { write_on(stream); });
  }

  template <class Stream>
  void write_on(Stream& stream) {
    asio::async_write(stream, asio::buffer(out_.front()), [self = shared_from_this()](error_code ec, std::size_t) {
      if (self->closed_) return;
      if (ec) {
        self->close();
        return;
      }
      self->unsent_ -= self->out_.front().size();
      self->out_.pop_front();
      if (!self->out_.empty()) {
        self->write();
      } else if (self->closing_) {
        self->close();
      }
    });
  }

  // The connection's stream: TCP, or TLS over it.
  template <class F>
  void on_stream(F&& f) {
    if (tls_) {
      f(*tls_);
    } else {
      f(socket_);
    }
  }

  tcp::socket socket_;
  std::optional<asio::ssl::stream<tcp::socket&>> tls_;
  std::string address_;
  Server::State& state_;
  asio::streambuf input_;
  asio::steady_timer idle_;
  Subscriptions mine_;
  std::deque<std::string> out_;
  std::size_t unsent_ = 0;
  bool closed_ = false;
  bool closing_ = false;                                           // close once what is queued is written
  std::optional<std::list<std::weak_ptr<Session>>::iterator> at_;  // (under State::mutex)
};

void accept(Server::State& state, tcp::acceptor& acceptor, bool tls) {
  acceptor.async_accept(asio::make_strand(state.io), [&state, &acceptor, tls](error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      // (out of descriptors: tried again in a tenth of a second, not in a loop)
      auto wait = std::make_shared<asio::steady_timer>(state.io, std::chrono::milliseconds(100));
      wait->async_wait([&state, &acceptor, tls, wait](error_code) { accept(state, acceptor, tls); });
      return;
    }
    error_code where_ec;
    const std::string address = socket.remote_endpoint(where_ec).address().to_string();
    bool admitted = !where_ec && state.open.load() < state.options.limits.max_connections;
    if (admitted) {
      const std::lock_guard lock(state.mutex);
      std::size_t& from_there = state.per_address[address];
      admitted = from_there < state.options.limits.max_per_address;
      if (admitted) ++from_there;
    }
    if (admitted) {
      auto session = std::make_shared<Session>(std::move(socket), address, state, tls);
      asio::dispatch(session->executor(), [session] { session->start(); });
    } else {
      error_code ignored;
      socket.close(ignored);
    }
    accept(state, acceptor, tls);
  });
}

}  // namespace

namespace {

result<void> open_acceptor(tcp::acceptor& acceptor, const std::string& address, std::uint16_t port) {
  error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) return error(std::make_error_code(std::errc::invalid_argument)).in(address + ": not an IP address");
  const tcp::endpoint at(ip, port);
  const auto failed = [&](const char* what) -> error {
    return error(std::error_code(ec.value(), std::system_category())).in(std::string(what) + " " + address + ":" + std::to_string(port));
  };
  acceptor.open(at.protocol(), ec);
  if (ec) return failed("opening");
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  acceptor.bind(at, ec);
  if (ec) return failed("binding");
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return failed("listening on");
  return success();
}

std::string name_of(const tcp::acceptor& acceptor) {
  error_code ec;
  const tcp::endpoint at = acceptor.local_endpoint(ec);
  const std::string host = at.address().to_string();
  return (at.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(at.port());
}

}  // namespace

Server::Server(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
Server::~Server() = default;

result<std::unique_ptr<Server>> Server::listen(BlockStore& store, TxIndex* transactions, AddressIndex& addresses,
                                               const std::string& address, std::uint16_t port, const ServerOptions& options) {
  auto state = std::make_unique<State>(store, transactions, addresses, options);
  if (auto r = open_acceptor(state->acceptor, address, port); !r) return r.error();
  if (options.tls) {
    const Tls& tls = *options.tls;
    state->tls.emplace(asio::ssl::context::tls_server);
    error_code ec;
    state->tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 | asio::ssl::context::no_sslv3 |
                            asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
    state->tls->use_certificate_chain_file(tls.certificate, ec);
    if (ec)
      return error(std::make_error_code(std::errc::invalid_argument)).in("the TLS certificate " + tls.certificate + ": " + ec.message());
    state->tls->use_private_key_file(tls.key, asio::ssl::context::pem, ec);
    if (ec) return error(std::make_error_code(std::errc::invalid_argument)).in("the TLS key " + tls.key + ": " + ec.message());
    if (auto r = open_acceptor(state->tls_acceptor, tls.address, tls.port); !r) return r.error();
  }
  return std::unique_ptr<Server>(new Server(std::move(state)));
}

std::string Server::local_address() const { return name_of(state_->acceptor); }

std::string Server::tls_address() const { return state_->tls ? name_of(state_->tls_acceptor) : std::string(); }

bool Server::run(int stop_fd) {
  State& s = *state_;
  std::optional<asio::posix::stream_descriptor> stopper;
  if (const int copy = stop_fd >= 0 ? ::dup(stop_fd) : -1; copy >= 0) {
    stopper.emplace(s.io, copy);
    stopper->async_wait(asio::posix::stream_descriptor::wait_read, [&s](error_code ec) {
      if (ec) return;
      s.stopped_by_fd = true;
      s.io.stop();
    });
  }
  // Blocks a writer appends are picked up every `refresh`; the indexes
  // follow, then every subscriber is told (an index that failed is tried
  // again at every tick).
  std::mutex m;
  std::condition_variable wake;
  bool done = false;
  std::thread refresher([&] {
    bool behind = false;
    BlockHash old_tip = BlockHash::all_zeros();  // (kept while the indexes are behind: subscribers are told from it)
    std::unique_lock lock(m);
    while (!wake.wait_for(lock, s.options.refresh, [&] { return done; })) {
      if (!behind) {
        const auto reading = s.store.lock();
        old_tip = s.store.index().empty() ? BlockHash::all_zeros() : s.store.index().tip();
      }
      const auto moved = s.store.refresh();
      if (!(moved && moved.value()) && !behind) continue;
      {
        const auto reading = s.store.lock();
        behind = (s.transactions != nullptr && !s.transactions->update(s.store.directory())) || !s.addresses.update(s.store.directory());
      }
      if (behind) continue;
      std::vector<std::shared_ptr<Session>> all;
      {
        const std::lock_guard guard(s.mutex);
        for (const auto& w : s.sessions) {
          if (auto session = w.lock()) all.push_back(std::move(session));
        }
      }
      for (const auto& session : all) session->tip_moved(old_tip);
    }
  });
  accept(s, s.acceptor, false);
  if (s.tls) accept(s, s.tls_acceptor, true);
  const unsigned threads = s.options.limits.threads != 0 ? s.options.limits.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> others;
  for (unsigned i = 1; i < threads; ++i) others.emplace_back([&s] { s.io.run(); });
  s.io.run();
  for (std::thread& t : others) t.join();
  {
    const std::lock_guard lock(m);
    done = true;
  }
  wake.notify_all();
  refresher.join();
  stopper.reset();
  return s.stopped_by_fd;
}

void Server::stop() { state_->io.stop(); }

std::size_t Server::connections() const noexcept { return state_->open.load(); }

}  // namespace blockwire::electrum
