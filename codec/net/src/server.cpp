#include <blockwire/io/number_text.hpp>
#include <blockwire/net/server.hpp>

#include "random_nonce.hpp"

#include <blockwire/io/siphash.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <limits>
#include <map>
#include <vector>
#include <netinet/in.h>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
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
    case kind::evicted: return "evicted " + peer + ": " + detail;
    case kind::refused: return "refused " + peer + ": " + detail;
    case kind::new_tip: return "new tip, height " + std::to_string(signed_height(height));
    case kind::refresh_failed: return "reading the directory again: " + detail + " (serving what was read before)";
    case kind::undo_failed: return "reading the new tip's rev file: " + detail + " (its filters wait for the next refresh)";
    case kind::new_damage: return "new damage in the directory: " + detail;
    case kind::stopping: return "stopping";
  }
  return detail;
}

using clock = std::chrono::steady_clock;

// A connection's thread and its connection, which the server shuts down to
// stop it (or to evict it: then `evicted` says why first).
struct Server::Session {
  enum class stage : unsigned char { handshaking, peer, finished };
  Connection connection;
  std::string address;   // the peer's, without its port
  std::string netgroup;  // Core's: the address's /16 (IPv4), /32 (IPv6)
  std::uint64_t keyed_group = 0;
  PeerWatch watch;  // its requests and our pings (serve_peer keeps it)
  TipSignal tips;   // the server's word that the tip moved
  clock::time_point accepted = clock::now();
  clock::time_point became_peer{};
  stage at = stage::handshaking;  // (under slots_mutex_)
  std::string evicted;            // (under slots_mutex_) why, once evicted
  std::atomic<bool> finished{false};
  std::thread thread;
  explicit Session(Connection c) : connection(std::move(c)) {}
  bool live() const noexcept { return at != stage::finished && evicted.empty(); }
};

namespace {

std::optional<Height> tip_height(const BlockStore& store) {
  const auto lock = store.lock();
  return store.index().tip_height();
}

// A version message's start height: Core's int, -1 before any block.
std::int32_t start_height(const BlockStore& store) { return static_cast<std::int32_t>(signed_height(tip_height(store))); }

// A pruned directory serves its recent blocks alone, and says so as a
// pruned node does (BIP159), so that a peer syncing from genesis looks
// elsewhere for the rest.
std::uint64_t chain_services(const BlockStore& store) {
  const auto lock = store.lock();
  return store.index().prune_height() != Height::genesis() ? node_network_limited : node_network;
}

}  // namespace

result<std::unique_ptr<Server>> Server::listen(BlockStore& store, const Endpoint& where, Options options) {
  // The kernel's whole accept queue (Core listens with SOMAXCONN): with a
  // short one, a flood of connections fills it between two accepts and a
  // newcomer's SYN is dropped, its connect retried seconds later or never.
  auto listener = listen_on(where, SOMAXCONN);
  if (!listener) return listener.error();
  // Non-blocking: every connection waiting is accepted at each wake.
  if (const int flags = ::fcntl(listener.value().get(), F_GETFL);
      flags < 0 || ::fcntl(listener.value().get(), F_SETFL, flags | O_NONBLOCK) != 0) {
    return error(last_system_error());
  }
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
      options_(std::move(options)),
      group_key_{detail::random_nonce(), detail::random_nonce()} {}

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

namespace {

std::string seconds_text(clock::duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(d).count());
  return text;
}

}  // namespace

void Server::serve_session(Session& s) {
  Connection& peer = s.connection;
  const std::uint64_t services =
      chain_services(store_) | node_witness | (store_.has_filters() ? p2p::node_compact_filters : 0) | (options_.v2 ? node_p2p_v2 : 0);
  result<p2p::Version> version = net::errc::timed_out;
  if (auto kind = peer.accept_transport(options_.v2); !kind) {
    version = kind.error();
  } else {
    version = peer.handshake_inbound({.start_height = start_height(store_), .services = services});
  }
  std::string refusal;
  bool admitted = false;
  if (version) {
    // (a handshake RTT until a pong says better, as the ping criterion's start)
    s.watch.min_ping_us = std::max<std::int64_t>(1, peer.handshake_round_trip().count());
    const std::lock_guard lock(slots_mutex_);
    admitted = s.evicted.empty() && take_peer_slot(s, refusal);
  }
  result<void> served = success();
  if (!version) {
    served = version.error();
  } else if (admitted) {
    const bool v2 = peer.transport_kind() == transport::v2;
    say({ServerEvent::kind::connected, peer.peer_name(), std::nullopt,
         version.value().user_agent + ", protocol " + std::to_string(version.value().version) +
             (v2 ? ", v2 transport (session " + peer.session_id() + ")" : ", v1 transport")});
    served = serve_peer(peer, store_, &s.tips, &s.watch);
  }
  std::string evicted;
  {
    const std::lock_guard lock(slots_mutex_);
    evicted = s.evicted;
    s.at = Session::stage::finished;
  }
  ServerEvent e;
  if (!evicted.empty()) {
    e = {ServerEvent::kind::evicted, peer.peer_name(), std::nullopt,
         evicted + "; connected for " + seconds_text(clock::now() - s.accepted) + ", " + with_commas(peer.bytes_received()) + " received"};
  } else if (!refusal.empty()) {
    e = {ServerEvent::kind::refused, peer.peer_name(), std::nullopt, refusal};
  } else if (served) {
    e = {ServerEvent::kind::left, peer.peer_name(), std::nullopt, with_commas(peer.bytes_sent()) + " sent"};
  } else {
    e = {ServerEvent::kind::dropped, peer.peer_name(), std::nullopt, peer.describe(served.error())};
  }
  peer.shutdown();  // (closed now, not when the session is reaped)
  if (admitted) {
    say(e);
  } else {
    say_limited(std::move(e));
  }
  s.finished = true;
}

// What a writer appended: read, and each new tip announced to every peer.
void Server::refresh(std::uint64_t& problems_said) {
  auto moved = store_.refresh();
  if (!moved) {
    say({ServerEvent::kind::refresh_failed, {}, std::nullopt, moved.error().message()});
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
  if (undo_error != undo_error_said_ && !undo_error.empty()) say({ServerEvent::kind::undo_failed, {}, std::nullopt, undo_error});
  undo_error_said_ = undo_error;
  if (problems > problems_said)
    say({ServerEvent::kind::new_damage, {}, std::nullopt, std::to_string(problems - problems_said) + " more problems"});
  problems_said = problems;
}

// The handshaking connections' budget, for a newcomer of `group`: over
// its netgroup's share, that netgroup's oldest makes room (a flood from
// one network churns its own share alone); over the whole, the oldest of
// the netgroup holding the most.
void Server::make_handshake_room(const std::string& group) {
  std::map<std::string, std::vector<Session*>> by_group;  // each oldest first (the list is in accept order)
  std::size_t all = 0;
  for (Session& s : sessions_) {
    if (!s.live() || s.at != Session::stage::handshaking) continue;
    by_group[s.netgroup].push_back(&s);
    ++all;
  }
  Session* victim = nullptr;
  std::string why;
  if (const auto mine = by_group.find(group); mine != by_group.end() && mine->second.size() >= options_.max_handshaking_per_netgroup) {
    victim = mine->second.front();
    why = "its netgroup " + group + " had " + std::to_string(mine->second.size()) +
          " connections in their handshake, its share (--max-handshaking-per-netgroup), and it was the oldest";
  } else if (all >= options_.max_handshaking) {
    const std::vector<Session*>* most = nullptr;
    for (const auto& [g, list] : by_group) {
      if (most == nullptr || list.size() > most->size() ||
          (list.size() == most->size() && list.front()->accepted < most->front()->accepted)) {
        most = &list;
      }
    }
    victim = most->front();
    why = "every slot for connections in their handshake was taken (" + std::to_string(all) + "), and it was the oldest of netgroup " +
          victim->netgroup + ", which held the most (" + std::to_string(most->size()) + ")";
  }
  if (victim == nullptr) return;
  victim->evicted = "its handshake was not done: " + why;
  victim->connection.shutdown();
}

// Core's SelectNodeToEvict (node/eviction.cpp) over the peers past their
// handshake, with the criteria a read-only server has: a peer that left a
// ping unanswered for a whole ping interval goes first (ours: it is gone
// in all but name); then protected are 4 peers of distinct netgroups (the
// highest keyed hash of the netgroup: which ones, an attacker cannot
// choose), the 8 with the lowest ping, and the longest-connected half of
// the rest; of what is left, the youngest peer of the netgroup with the
// most. Core also protects peers that sent it novel transactions or
// blocks: a read-only server takes none, so none is. Null: every peer is
// protected.
Server::Session* Server::select_to_evict() {
  const auto now = clock::now();
  std::vector<Session*> candidates;
  Session* silent = nullptr;
  std::int64_t since = 0;
  for (Session& s : sessions_) {
    if (!s.live() || s.at != Session::stage::peer) continue;
    candidates.push_back(&s);
    const std::int64_t pending = s.watch.ping_unanswered_since.load();
    if (pending != 0 && now - clock::time_point(clock::duration(pending)) >= options_.ping_interval &&
        (silent == nullptr || pending < since)) {
      silent = &s;
      since = pending;
    }
  }
  if (silent != nullptr) {
    silent->evicted = "it had not answered a ping for a whole ping interval (--ping-interval)";
    return silent;
  }
  const auto protect = [&candidates](std::size_t k, auto less) {
    std::sort(candidates.begin(), candidates.end(), less);
    candidates.resize(candidates.size() - std::min(k, candidates.size()));
  };
  protect(4, [](const Session* a, const Session* b) { return a->keyed_group < b->keyed_group; });
  const auto ping = [](const Session* s) {
    const std::int64_t us = s->watch.min_ping_us.load();
    return us == 0 ? std::numeric_limits<std::int64_t>::max() : us;
  };
  protect(8, [&ping](const Session* a, const Session* b) { return ping(a) > ping(b); });                               // the lowest last
  protect(candidates.size() / 2, [](const Session* a, const Session* b) { return a->became_peer > b->became_peer; });  // the oldest last
  if (candidates.empty()) return nullptr;
  std::map<std::string, std::vector<Session*>> by_group;
  for (Session* s : candidates) by_group[s->netgroup].push_back(s);
  const std::vector<Session*>* most = nullptr;
  Session* youngest_of_most = nullptr;
  for (const auto& [group, list] : by_group) {
    Session* youngest =
        *std::max_element(list.begin(), list.end(), [](const Session* a, const Session* b) { return a->became_peer < b->became_peer; });
    // (a tie: the netgroup whose youngest is the youngest, as Core breaks it)
    if (most == nullptr || list.size() > most->size() ||
        (list.size() == most->size() && youngest->became_peer > youngest_of_most->became_peer)) {
      most = &list;
      youngest_of_most = youngest;
    }
  }
  std::size_t held = 0;
  for (Session& s : sessions_) held += s.live() && s.at == Session::stage::peer && s.netgroup == youngest_of_most->netgroup ? 1 : 0;
  youngest_of_most->evicted = "every peer slot was taken (--max-peers), and its netgroup " + youngest_of_most->netgroup +
                              " held the most slots (" + std::to_string(held) + "); it was that netgroup's youngest unprotected peer";
  return youngest_of_most;
}

bool Server::take_peer_slot(Session& s, std::string& why) {
  std::size_t live = 0, from_there = 0;
  for (const Session& x : sessions_) {
    if (!x.live() || x.at != Session::stage::peer) continue;
    ++live;
    if (x.address == s.address) ++from_there;
  }
  const unsigned per_address = options_.max_per_address != 0 ? options_.max_per_address : std::max(1u, options_.max_peers / 2);
  if (from_there >= per_address) {
    why = "already " + std::to_string(from_there) + " peers from " + s.address + " (--max-per-address)";
    return false;
  }
  if (live >= options_.max_peers) {
    Session* victim = select_to_evict();
    if (victim == nullptr) {
      why = "every one of " + std::to_string(options_.max_peers) + " peer slots was taken by a protected peer (--max-peers)";
      return false;
    }
    victim->connection.shutdown();
  }
  s.at = Session::stage::peer;
  s.became_peer = clock::now();
  return true;
}

// The handshaking connections' deadline, kept by the server: from accept
// to verack (BIP324's keys and packets included), whatever each step's own
// timeouts would allow.
void Server::end_late_handshakes() {
  const auto now = clock::now();
  const std::lock_guard lock(slots_mutex_);
  for (Session& s : sessions_) {
    if (!s.live() || s.at != Session::stage::handshaking || now - s.accepted < options_.timeouts.handshake) continue;
    s.evicted = "its handshake was not done within the handshake timeout (" + seconds_text(options_.timeouts.handshake) + ")";
    s.connection.shutdown();
  }
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

// What befell a connection that never became a peer (evicted or dropped
// in its handshake, refused after it) is said once a second at most for
// each kind of event, with how many more there were: a flood of connections must not become a
// flood of lines (nor block on a log no one reads).
void Server::say_limited(ServerEvent e) {
  const auto now = std::chrono::steady_clock::now();
  std::uint64_t more = 0;
  {
    const std::lock_guard lock(slots_mutex_);  // (said from the connections' threads)
    Unsaid& kind = unsaid_[static_cast<std::size_t>(e.what)];
    if (kind.count != 0 && now - kind.said < std::chrono::seconds(1)) {
      ++kind.count;
      return;
    }
    more = kind.count == 0 ? 0 : kind.count - 1;
    kind.said = now;
    kind.count = 1;
  }
  if (more != 0) e.detail += " (and " + with_commas(more) + " more connections ended at or before their handshake in the second before)";
  say(e);
}

bool Server::accept_one() {
  const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) {
    // Out of descriptors, the listener stays readable: wait a little (a
    // session may end) rather than spin. Otherwise none waits, or the peer
    // left.
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      ::poll(nullptr, 0, 100);
      return false;
    }
    return errno == ECONNABORTED || errno == EINTR || errno == EPROTO;
  }
  FileDescriptor socket(fd, ownership::own);
  auto [address, group] = address_and_group(fd);
  const std::lock_guard lock(slots_mutex_);
  make_handshake_room(group);
  Session& s = sessions_.emplace_back(Connection(std::move(socket), store_.directory().net(), options_.timeouts));
  s.watch.ping_interval = options_.ping_interval;
  s.address = std::move(address);
  s.netgroup = std::move(group);
  SipHasher keyed(group_key_[0], group_key_[1]);
  keyed.update(std::as_bytes(std::span(s.netgroup.data(), s.netgroup.size())));
  s.keyed_group = keyed.finish();
  s.thread = std::thread([this, &s] { serve_session(s); });
  return true;
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
    end_late_handshakes();
    for (auto it = sessions_.begin(); it != sessions_.end();) {  // reap
      if (it->finished) {
        it->thread.join();
        const std::lock_guard lock(slots_mutex_);
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
      say({ServerEvent::kind::stopping, {}, std::nullopt, {}});
      break;
    }
    // (a bound, so that a flood never starves the reaping and the refresh)
    for (int n = 0; fds[0].revents != 0 && n < 256 && accept_one(); ++n) {
    }
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
