#include "history.hpp"
#include "node_peer.hpp"

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
  Mempool mempool;
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
  // (last: stopped first, before what it tells of changes)
  std::unique_ptr<detail::NodePeer> peer;

  State(BlockStore& s, TxIndex* t, AddressIndex& a, const ServerOptions& o)
      : store(s), transactions(t), addresses(a), options(o), service(s, t, a, o.service, node_side()) {}

  NodeSide node_side() {
    if (!options.node) return {};
    return {&mempool, [this](std::span<const std::byte> raw) { return peer->broadcast(raw); }, [this] { return peer->relay_fee(); }};
  }

  // The confirmed coin at `o`, through the transaction index (its
  // transaction's bytes read, not its block).
  result<std::optional<SpentOutput>> chain_coin(const OutPoint& o) {
    const std::optional<SpentOutput> none;
    const auto reading = store.lock();
    auto raw = transactions->read(store.directory(), o.txid);
    if (!raw) return raw.error();
    if (!raw.value()) return none;
    auto tx = decode_transaction(*raw.value());
    if (!tx) return tx.error();
    if (o.index >= tx.value().output_count()) return none;
    const OutputView out = tx.value().output(o.index);
    return SpentOutput{ScriptHash::of(out.script_pubkey()), out.value()};
  }

  // Whether `txid` is in a block of the best chain already.
  bool in_chain(const Txid& txid) {
    const auto reading = store.lock();
    const auto place = transactions->find(txid);
    if (!place || !place.value()) return false;
    const auto b = store.index().find(place.value()->block);
    return b && store.index().on_best_chain(*b);
  }

  // Scripts whose unconfirmed history changed since subscribers were last
  // told: told at the refresher's next tick, once for however many
  // transactions came meanwhile.
  std::mutex touched_mutex;
  ScriptSet touched_since;

  void log(const std::string& line) const {
    if (options.node && options.node->log) options.node->log(line);
  }

  // The best chain's tip (all zeros: none yet).
  BlockHash tip() const {
    const auto reading = store.lock();
    return store.index().empty() ? BlockHash::all_zeros() : store.index().tip();
  }

  // What moved, to every session: the tip from `old_tip`, and scripts' unconfirmed histories.
  void tell_all(const BlockHash& old_tip, std::shared_ptr<const ScriptSet> touched);
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

  // The tip moved from `old_tip`, or scripts' unconfirmed histories
  // changed (`touched`); what this client is owed is worked out and sent
  // on its own strand.
  void moved(const BlockHash& old_tip, std::shared_ptr<const ScriptSet> touched) {
    asio::post(socket_.get_executor(), [self = shared_from_this(), old_tip, touched] {
      if (self->closed_ || (!self->mine_.headers && self->mine_.scripts.empty())) return;
      for (std::string& line : self->state_.service.changes(old_tip, self->mine_, touched.get())) self->send(std::move(line));
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

void Server::State::tell_all(const BlockHash& old_tip, std::shared_ptr<const ScriptSet> touched) {
  std::vector<std::shared_ptr<Session>> all;
  {
    const std::lock_guard guard(mutex);
    for (const auto& w : sessions) {
      if (auto session = w.lock()) all.push_back(std::move(session));
    }
  }
  for (const auto& session : all) session->moved(old_tip, touched);
}

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
  if (options.node) {
    if (transactions == nullptr) {
      return error(std::make_error_code(std::errc::invalid_argument))
          .in("the node's mempool needs the transaction index (the coins its transactions spend)");
    }
    State* st = state.get();
    state->peer = std::make_unique<detail::NodePeer>(
        *options.node, store.directory().net(), state->mempool, [st](const OutPoint& o) { return st->chain_coin(o); },
        [st](const Txid& txid) { return st->in_chain(txid); },
        [st](const ScriptSet& touched) {
          const std::lock_guard lock(st->touched_mutex);
          st->touched_since.insert(touched.begin(), touched.end());
        });
  }
  return std::unique_ptr<Server>(new Server(std::move(state)));
}

std::string Server::local_address() const { return name_of(state_->acceptor); }

std::string Server::tls_address() const { return state_->tls ? name_of(state_->tls_acceptor) : std::string(); }

namespace {

// The blocks the best chain gained since `old_tip` take their
// transactions, and what conflicts with them, out of the mempool.
void confirm_in_mempool(Server::State& s, const BlockHash& old_tip, ScriptSet& touched) {
  if (s.mempool.size() == 0) return;
  const auto reading = s.store.lock();
  const std::optional<Height> fork = detail::fork_height(s.store.index(), old_tip);
  std::vector<std::byte> bytes;
  for (const Height h : s.store.directory().chain_size().heights(fork ? fork->next() : Height::genesis())) {
    const IndexedBlock b = s.store.directory().at_height(h);
    auto read = s.store.directory().read_block(b, bytes);
    auto block = read ? decode_block(bytes) : result<Block>(read.error());
    if (!block) {
      s.log("block " + to_string(h) + " could not be read (" + block.error().message() +
            "): what it confirms stays in the mempool until the node is connected again");
      continue;
    }
    const ScriptSet gone = s.mempool.confirmed(block.value());
    touched.insert(gone.begin(), gone.end());
  }
}

}  // namespace

bool Server::run(int stop_fd) {
  State& s = *state_;
  std::optional<asio::posix::stream_descriptor> stopper;
  if (const int copy = stop_fd >= 0 ? ::dup(stop_fd) : -1; copy >= 0) {
    stopper.emplace(s.io, copy);
    stopper->async_wait(asio::posix::stream_descriptor::wait_read, [&s](error_code ec) {
      if (ec) return;
      s.stopped_by_fd = true;
      if (s.peer) s.peer->stop();
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
      if (s.peer) {
        // (Core expires what waited two weeks, and does not say so)
        ScriptSet expired = s.mempool.expire(std::chrono::steady_clock::now() - std::chrono::hours(14 * 24));
        auto touched = std::make_shared<ScriptSet>();
        {
          const std::lock_guard guard(s.touched_mutex);
          touched->swap(s.touched_since);
        }
        touched->insert(expired.begin(), expired.end());
        if (!touched->empty()) s.tell_all(s.tip(), std::move(touched));
      }
      if (!behind) old_tip = s.tip();
      const auto moved = s.store.refresh();
      if (!(moved && moved.value()) && !behind) continue;
      {
        const auto reading = s.store.lock();
        behind = (s.transactions != nullptr && !s.transactions->update(s.store.directory())) || !s.addresses.update(s.store.directory());
      }
      if (behind) continue;
      auto touched = std::make_shared<ScriptSet>();
      if (s.peer) {
        confirm_in_mempool(s, old_tip, *touched);
        const ScriptSet again = s.peer->retry_waiting();
        touched->insert(again.begin(), again.end());
      }
      s.tell_all(old_tip, std::move(touched));
      if (s.options.new_tip) {
        std::optional<Height> tip;
        {
          const auto reading = s.store.lock();
          tip = s.store.directory().chain_size().last();
        }
        s.options.new_tip(tip);
      }
    }
  });
  accept(s, s.acceptor, false);
  if (s.tls) accept(s, s.tls_acceptor, true);
  unsigned threads = s.options.limits.threads != 0 ? s.options.limits.threads : std::max(1u, std::thread::hardware_concurrency());
  if (s.peer) threads += 4;  // (a broadcast holds a thread while the node is waited for: four at most, never all of them)
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

void Server::stop() {
  if (state_->peer) state_->peer->stop();
  state_->io.stop();
}

std::size_t Server::connections() const noexcept { return state_->open.load(); }

}  // namespace blockwire::electrum
