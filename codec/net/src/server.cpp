#include <blockwire/io/number_text.hpp>
#include <blockwire/net/server.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <map>
#include <netinet/in.h>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace blockwire::net {

std::string ServerEvent::message() const {
  switch (what) {
    case kind::connected: return peer + " connected (" + detail + ")";
    case kind::left: return peer + " left (" + detail + ")";
    case kind::dropped: return "dropped " + detail;
    case kind::evicted: return "evicted " + peer + ": every slot was taken, and " + detail;
    case kind::refused: return "refused " + peer + ": " + detail;
    case kind::new_tip: return "new tip, height " + std::to_string(height);
    case kind::refresh_failed: return "reading the directory again: " + detail + " (serving what was read before)";
    case kind::undo_failed: return "reading the new tip's rev file: " + detail + " (its filters wait for the next refresh)";
    case kind::new_damage: return "new damage in the directory: " + detail;
    case kind::stopping: return "stopping";
  }
  return detail;
}

// A peer's thread and its connection, which the server shuts down to stop
// it (or to evict it: then `evicted` says so first).
struct Server::Session {
  Connection connection;
  std::string address;   // the peer's, without its port
  std::string netgroup;  // Core's: the address's /16 (IPv4), /32 (IPv6)
  PeerWatch watch;       // its requests and our pings (serve_peer keeps it)
  TipSignal tips;        // the server's word that the tip moved
  std::chrono::steady_clock::time_point accepted = std::chrono::steady_clock::now();
  std::atomic<bool> handshake_done{false};
  std::atomic<bool> evicted{false};
  std::atomic<bool> unanswered{false};  // evicted for a ping it did not answer
  std::atomic<bool> finished{false};
  std::thread thread;
  explicit Session(Connection c) : connection(std::move(c)) {}
};

namespace {

std::int32_t tip_height(const BlockStore& store) {
  const auto lock = store.lock();
  return static_cast<std::int32_t>(store.index().chain_size()) - 1;
}

// A pruned directory serves its recent blocks alone, and says so as a
// pruned node does (BIP159), so that a peer syncing from genesis looks
// elsewhere for the rest.
std::uint64_t chain_services(const BlockStore& store) {
  const auto lock = store.lock();
  return store.index().prune_height() != 0 ? node_network_limited : node_network;
}

}  // namespace

result<std::unique_ptr<Server>> Server::listen(BlockStore& store, const Endpoint& where, Options options) {
  auto listener = listen_on(where);
  if (!listener) return listener.error();
  auto bound = local_endpoint(listener.value().get());
  if (!bound) return bound.error();
  std::unique_ptr<Server> server(new Server(store, std::move(listener).value(), std::move(bound).value(), std::move(options)));
  if (server->wake_.get() < 0) return error(last_system_error());
  return server;
}

Server::Server(BlockStore& store, FileDescriptor listener, Endpoint bound, Options options)
    : store_(store),
      listener_(std::move(listener)),
      wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), ownership::own),
      bound_(std::move(bound)),
      options_(std::move(options)) {}

Server::~Server() {
  for (Session& s : sessions_) s.connection.shutdown();
  for (Session& s : sessions_) {
    if (s.thread.joinable()) s.thread.join();
  }
}

void Server::stop() noexcept {
  const std::uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof one);
}

void Server::say(const ServerEvent& e) {
  if (!options_.log) return;
  const std::lock_guard lock(log_mutex_);
  options_.log(e);
}

// Every slot taken: the peer longest in its handshake makes room, so that
// sockets that connect and say nothing cannot keep real peers out. A peer
// gets a second first (a real one is done in milliseconds, but it may be
// between its last message and our reading it).
bool Server::evict_unfinished_handshake(const std::string& from) {
  constexpr auto grace = std::chrono::seconds(1);
  const auto now = std::chrono::steady_clock::now();
  Session* oldest = nullptr;
  for (Session& s : sessions_) {
    if (s.handshake_done || s.finished || s.evicted || now - s.accepted < grace || (!from.empty() && s.address != from)) continue;
    if (oldest == nullptr || s.accepted < oldest->accepted) oldest = &s;
  }
  if (oldest == nullptr) return false;
  oldest->evicted = true;
  oldest->connection.shutdown();
  return true;
}

void Server::serve_session(Session& s) {
  Connection& peer = s.connection;
  const std::uint64_t services =
      chain_services(store_) | node_witness | (store_.has_filters() ? p2p::node_compact_filters : 0) | (options_.v2 ? node_p2p_v2 : 0);
  result<p2p::Version> version = net::errc::timed_out;
  if (auto kind = peer.accept_transport(options_.v2); !kind) {
    version = kind.error();
  } else {
    version = peer.handshake_inbound({.start_height = tip_height(store_), .services = services});
  }
  result<void> served = success();
  if (!version) {
    served = version.error();
  } else {
    s.handshake_done = true;
    const bool v2 = peer.transport_kind() == transport::v2;
    say({ServerEvent::kind::connected, peer.peer_name(), -1,
         version.value().user_agent + ", protocol " + std::to_string(version.value().version) +
             (v2 ? ", v2 transport (session " + peer.session_id() + ")" : ", v1 transport")});
    served = serve_peer(peer, store_, &s.tips, &s.watch);
  }
  if (s.evicted) {
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.accepted).count();
    char text[64];
    std::snprintf(text, sizeof text, "%.1f s (", seconds);
    const std::string why = !s.handshake_done ? std::string("its handshake was still not done after ")
                            : s.unanswered    ? std::string("it had not answered a ping for a whole ping interval; connected for ")
                                              : "its netgroup " + s.netgroup + " held the most slots; connected for ";
    say({ServerEvent::kind::evicted, peer.peer_name(), -1, why + text + with_commas(peer.bytes_received()) + " received)"});
  } else if (served) {
    say({ServerEvent::kind::left, peer.peer_name(), -1, with_commas(peer.bytes_sent()) + " sent"});
  } else {
    say({ServerEvent::kind::dropped, peer.peer_name(), -1, peer.describe(served.error())});
  }
  s.finished = true;
}

// What a writer appended: read, and each new tip announced to every peer.
void Server::refresh(std::uint64_t& problems_said) {
  auto moved = store_.refresh();
  if (!moved) {
    say({ServerEvent::kind::refresh_failed, {}, -1, moved.error().message()});
  } else if (moved.value()) {
    say({ServerEvent::kind::new_tip, {}, tip_height(store_), {}});
    for (Session& s : sessions_) s.tips.notify();
  }
  std::uint64_t problems = 0;
  std::string undo_error;
  {
    const auto lock = store_.lock();
    problems = store_.index().problem_count();
    if (const auto& e = store_.directory().undo_error()) undo_error = e->message();
  }
  if (undo_error != undo_error_said_ && !undo_error.empty()) say({ServerEvent::kind::undo_failed, {}, -1, undo_error});
  undo_error_said_ = undo_error;
  if (problems > problems_said) say({ServerEvent::kind::new_damage, {}, -1, std::to_string(problems - problems_said) + " more problems"});
  problems_said = problems;
}

// Every slot taken, no handshake to cut short: as Core's eviction, the
// youngest peer of the netgroup holding the most slots makes room, so that
// one network's many connections cannot keep others out. Peers that asked
// for data in the last two minutes are protected (they use the server);
// and it is done only where it evens the slots out: the newcomer's
// netgroup must hold fewer than that one, less one (a newcomer of the same
// netgroup is refused instead).
// A peer that has not answered our ping for a whole ping interval goes
// before any other (Core pings every two minutes, and drops a peer after
// twenty without a pong): the one silent longest.
bool Server::evict_unanswered_ping() {
  const auto now = std::chrono::steady_clock::now();
  Session* silent = nullptr;
  std::int64_t since = 0;
  for (Session& s : sessions_) {
    if (s.finished || s.evicted || !s.handshake_done) continue;
    const std::int64_t pending = s.watch.ping_unanswered_since.load();
    if (pending == 0 ||
        now - std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(pending)) < options_.ping_interval) {
      continue;
    }
    if (silent == nullptr || pending < since) {
      silent = &s;
      since = pending;
    }
  }
  if (silent == nullptr) return false;
  silent->unanswered = true;
  silent->evicted = true;
  silent->connection.shutdown();
  return true;
}

bool Server::evict_from_largest_netgroup(const std::string& newcomer_group) {
  constexpr auto protected_for = std::chrono::minutes(2);
  const auto now = std::chrono::steady_clock::now();
  std::map<std::string, std::size_t> held;   // live slots by netgroup
  std::map<std::string, Session*> youngest;  // the youngest unprotected peer of each
  for (Session& s : sessions_) {
    if (s.finished || s.evicted) continue;
    ++held[s.netgroup];
    const std::int64_t asked = s.watch.asked.load();
    if (asked != 0 && now - std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(asked)) < protected_for) continue;
    Session*& y = youngest[s.netgroup];
    if (y == nullptr || s.accepted > y->accepted) y = &s;
  }
  Session* victim = nullptr;
  std::size_t most = 0;
  for (const auto& [group, peer] : youngest) {
    if (held[group] > most) {
      most = held[group];
      victim = peer;
    }
  }
  if (victim == nullptr || most < held[newcomer_group] + 2) return false;
  victim->evicted = true;
  victim->connection.shutdown();
  return true;
}

namespace {

// The peer's address without its port, and its netgroup as Core groups
// addresses (netgroup.cpp: an IPv4 address's /16, an IPv6 address's /32;
// an IPv4-mapped IPv6 address as its IPv4 one).
std::pair<std::string, std::string> address_and_group(int fd) {
  sockaddr_storage ss{};
  socklen_t length = sizeof ss;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &length) != 0) return {"?", "?"};
  char text[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(ss).sin_addr;
    ::inet_ntop(AF_INET, &v4, text, sizeof text);
    const auto* b = reinterpret_cast<const unsigned char*>(&v4.s_addr);
    return {text, std::to_string(b[0]) + "." + std::to_string(b[1]) + ".0.0/16"};
  }
  const auto& v6 = reinterpret_cast<const sockaddr_in6&>(ss).sin6_addr;
  ::inet_ntop(AF_INET6, &v6, text, sizeof text);
  const unsigned char* b = v6.s6_addr;
  if (IN6_IS_ADDR_V4MAPPED(&v6)) return {text, std::to_string(b[12]) + "." + std::to_string(b[13]) + ".0.0/16"};
  char group[32];
  std::snprintf(group, sizeof group, "%02x%02x:%02x%02x::/32", b[0], b[1], b[2], b[3]);
  return {text, group};
}

}  // namespace

// Said once a second at most, with how many more there were: a flood of
// connections must not become a flood of lines (nor block on a log no one
// reads).
void Server::refused(const std::string& peer, const std::string& why) {
  const auto now = std::chrono::steady_clock::now();
  if (refused_unsaid_ != 0 && now - refused_said_ < std::chrono::seconds(1)) {
    ++refused_unsaid_;
    return;
  }
  const std::uint64_t more = refused_unsaid_ == 0 ? 0 : refused_unsaid_ - 1;
  refused_said_ = now;
  refused_unsaid_ = 1;
  say({ServerEvent::kind::refused, peer, -1,
       why + (more != 0 ? " (and " + with_commas(more) + " more refused in the second before)" : "")});
}

void Server::accept_one() {
  const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) {
    // Out of descriptors, the listener stays readable: wait a little (a
    // session may end) rather than spin. Otherwise the peer left.
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) ::poll(nullptr, 0, 100);
    return;
  }
  FileDescriptor socket(fd, ownership::own);
  auto [address, group] = address_and_group(fd);
  std::size_t live = 0, from_there = 0;
  for (const Session& x : sessions_) {
    if (x.finished || x.evicted) continue;
    ++live;
    if (x.address == address) ++from_there;
  }
  const unsigned per_address = options_.max_per_address != 0 ? options_.max_per_address : std::max(1u, options_.max_peers / 2);
  // (its own sockets that never finished a handshake make room first)
  if (from_there >= per_address && !evict_unfinished_handshake(address)) {
    refused(remote_name(fd), "already " + std::to_string(from_there) + " peers from " + address);
    return;
  }
  if (live >= options_.max_peers && !evict_unfinished_handshake() && !evict_unanswered_ping() && !evict_from_largest_netgroup(group)) {
    refused(remote_name(fd),
            "already " + std::to_string(options_.max_peers) + " peers, each past its handshake, none of a netgroup holding more slots");
    return;
  }
  Session& s = sessions_.emplace_back(Connection(std::move(socket), store_.directory().net(), options_.timeouts));
  s.watch.ping_interval = options_.ping_interval;
  s.address = std::move(address);
  s.netgroup = std::move(group);
  s.thread = std::thread([this, &s] { serve_session(s); });
}

result<void> Server::run() {
  auto refreshed = std::chrono::steady_clock::now();
  std::uint64_t problems_said = 0;
  {
    const auto lock = store_.lock();
    problems_said = store_.index().problem_count();
    // What opening found is its owner's to say; a refresh says what is new.
    if (const auto& e = store_.directory().undo_error()) undo_error_said_ = e->message();
  }
  result<void> status = success();
  for (;;) {
    if (const auto now = std::chrono::steady_clock::now(); now - refreshed >= options_.refresh) {
      refreshed = now;
      refresh(problems_said);
    }
    for (auto it = sessions_.begin(); it != sessions_.end();) {  // reap
      if (it->finished) {
        it->thread.join();
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
    pollfd fds[3] = {{listener_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}, {options_.stop_fd, POLLIN, 0}};
    if (::poll(fds, options_.stop_fd >= 0 ? 3 : 2, 250) < 0) {
      if (errno == EINTR) continue;
      status = error(last_system_error());
      break;
    }
    if (fds[1].revents != 0 || (options_.stop_fd >= 0 && fds[2].revents != 0)) {
      say({ServerEvent::kind::stopping, {}, -1, {}});
      break;
    }
    if (fds[0].revents != 0) accept_one();
  }
  // Within the poll interval: the store's long work (filter headers for a
  // wide range) ends at its next block, every connection is shut down.
  store_.stop();
  for (Session& s : sessions_) s.connection.shutdown();
  for (Session& s : sessions_) s.thread.join();
  sessions_.clear();
  return status;
}

}  // namespace blockwire::net
