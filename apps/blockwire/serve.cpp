// blockwire serve: a read-only peer serving a blocks directory. An index
// of the directory's headers is built at start and refreshed every second
// (what a writer appends is announced to every peer); each peer gets a thread
// (up to --max-peers), and a peer that misbehaves is dropped without
// touching the others. SIGINT or SIGTERM stops it: no new peers, every
// connection shut down, every thread joined.
#include "commands.hpp"
#include "damage_report.hpp"
#include "peer_errors.hpp"
#include "text.hpp"
#include "xor_key.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/net.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <list>
#include <mutex>
#include <poll.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace blockwire::cli {

namespace {

// A peer's thread and its connection, which the main thread shuts down to
// stop it (or to evict it: then `evicted` says so first).
struct Session {
  net::Connection connection;
  net::TipSignal tips;  // the main thread's word that the tip moved
  std::chrono::steady_clock::time_point accepted = std::chrono::steady_clock::now();
  std::atomic<bool> handshake_done{false};
  std::atomic<bool> evicted{false};
  std::atomic<bool> finished{false};
  std::thread thread;
  explicit Session(net::Connection c) : connection(std::move(c)) {}
};

// Every slot taken: the peer longest in its handshake makes room, as Core
// evicts, so that sockets that connect and say nothing cannot keep real
// peers out. A peer gets a second first (a real one is done in
// milliseconds, but it may be between its last message and our reading
// it). Returns whether one was evicted.
bool evict_unfinished_handshake(std::list<Session>& sessions) {
  constexpr auto grace = std::chrono::seconds(1);
  const auto now = std::chrono::steady_clock::now();
  Session* oldest = nullptr;
  for (Session& s : sessions) {
    if (s.handshake_done || s.finished || s.evicted || now - s.accepted < grace) continue;
    if (oldest == nullptr || s.accepted < oldest->accepted) oldest = &s;
  }
  if (oldest == nullptr) return false;
  oldest->evicted = true;
  oldest->connection.shutdown();
  return true;
}

std::mutex log_mutex;
template <class... Args>
void log(const char* format, Args... args) {
  const std::lock_guard lock(log_mutex);
  std::fprintf(stderr, format, args...);
  std::fflush(stderr);
}

// The best chain's height, under the store's lock.
std::int32_t tip_height(const net::BlockStore& store) {
  const auto lock = store.lock();
  return static_cast<std::int32_t>(store.index().best_chain().size()) - 1;
}

void run_session(Session& s, const net::BlockStore& store) {
  net::Connection& peer = s.connection;
  const std::int32_t height = tip_height(store);
  const std::uint64_t services = net::node_network | net::node_witness | (store.has_filters() ? p2p::node_compact_filters : 0);
  auto version = peer.handshake_inbound({.start_height = height, .services = services});
  result<void> served = success();
  if (!version) {
    served = version.error();
  } else {
    s.handshake_done = true;
    log("blockwire serve: %s connected (%s, protocol %d)\n", peer.peer_name().c_str(), version.value().user_agent.c_str(),
        version.value().version);
    served = net::serve_peer(peer, store, &s.tips);
  }
  if (s.evicted) {
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.accepted).count();
    log("blockwire serve: evicted %s: every slot was taken, and its handshake was still not done after %.1f s (%s received)\n",
        peer.peer_name().c_str(), seconds, with_commas(peer.bytes_received()).c_str());
  } else if (served) {
    log("blockwire serve: %s left (%s sent)\n", peer.peer_name().c_str(), with_commas(peer.bytes_sent()).c_str());
  } else {
    log("blockwire serve: dropped %s\n", describe_peer_error(peer, served.error()).c_str());
  }
  s.finished = true;
}

}  // namespace

int serve(const ServeOptions& o) {
  auto key = resolve_xor_key(o.dir, o.xor_key);
  if (!key) {
    std::fprintf(stderr, "blockwire serve: %s\n", xor_key_problem(o.dir, o.xor_key, key.error()).c_str());
    return usage_or_io;
  }
  network net = o.net;
  if (o.net_from_records) {
    if (auto n = network_of(o.dir, key.value())) net = *n;
  }
  auto where = net::parse_endpoint(o.listen, default_port(net));  // empty: every address
  if (!where) {
    std::fprintf(stderr, "blockwire serve: --listen %s: not ADDR:PORT\n", o.listen.c_str());
    return usage_or_io;
  }
  auto index = BlockIndex::build(o.dir, key.value(), net);
  if (!index) {
    std::fprintf(stderr, "blockwire serve: reading %s: %s\n", o.dir.c_str(), index.error().message().c_str());
    return usage_or_io;
  }
  const std::int32_t height = static_cast<std::int32_t>(index.value().best_chain().size()) - 1;
  const std::size_t block_count = index.value().blocks().size();
  // Damage is said; the chain without it is served.
  (void)report_index_problems("serve", o.dir, index.value());

  net::BlockStore store(std::move(index).value(), key.value());
  // BIP157: filters are served (NODE_COMPACT_FILTERS) when the directory
  // has rev files to make them from.
  if (auto with_filters = store.enable_filters(o.dir, net); !with_filters) {
    log("blockwire serve: %s: reading rev files: %s (no filters served)\n", o.dir.c_str(), with_filters.error().message().c_str());
  } else if (with_filters.value()) {
    log("blockwire serve: compact block filters (BIP157) from the rev files\n");
  }

  // The signals arrive through a descriptor the accept loop polls; every
  // thread started after this inherits the mask and never sees them.
  // Before it (reading the directory, which may take a while) a signal
  // ends the process at once: nothing is written, nothing to finish.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  FileDescriptor signals(signalfd(-1, &stop_signals, SFD_CLOEXEC), ownership::own);
  auto listener = net::listen_on(where.value());
  if (signals.get() < 0 || !listener) {
    std::fprintf(stderr, "blockwire serve: cannot listen on %s: %s\n", where.value().to_string().c_str(),
                 listener ? std::strerror(errno) : listener.error().message().c_str());
    return usage_or_io;
  }
  const auto bound = net::local_endpoint(listener.value().get());
  // On standard output, flushed: a script that asked for port 0 reads it.
  std::printf("listening on %s\n", bound ? bound.value().to_string().c_str() : "?");
  std::fflush(stdout);
  log("blockwire serve: %s (%s): %s, height %d\n", o.dir.c_str(), std::string(name(net)).c_str(), count_of(block_count, "block").c_str(),
      height);

  net::Timeouts idle_as_core;
  idle_as_core.idle = std::chrono::minutes(20);  // Core's inactivity timeout
  const net::Timeouts timeouts = timeouts_from_option(o.timeout_seconds, idle_as_core);
  std::list<Session> sessions;
  int status = ok;
  // A live directory: what a writer appends is read within a second and
  // announced to every peer.
  auto refreshed = std::chrono::steady_clock::now();
  std::uint64_t problems_said = 0;
  {
    const auto lock = store.lock();
    problems_said = store.index().problem_count();
  }
  for (;;) {
    if (const auto now = std::chrono::steady_clock::now(); now - refreshed >= std::chrono::seconds(1)) {
      refreshed = now;
      auto moved = store.refresh();
      if (!moved) {
        log("blockwire serve: reading %s again: %s (serving what was read before)\n", o.dir.c_str(), moved.error().message().c_str());
      } else if (moved.value()) {
        log("blockwire serve: new tip, height %d\n", tip_height(store));
        for (Session& s : sessions) s.tips.notify();
      }
      const auto lock = store.lock();
      if (store.index().problem_count() > problems_said) (void)report_index_problems("serve", o.dir, store.index());
      problems_said = store.index().problem_count();
    }
    for (auto it = sessions.begin(); it != sessions.end();) {  // reap
      if (it->finished) {
        it->thread.join();
        it = sessions.erase(it);
      } else {
        ++it;
      }
    }
    pollfd fds[2] = {{listener.value().get(), POLLIN, 0}, {signals.get(), POLLIN, 0}};
    if (::poll(fds, 2, 250) < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "blockwire serve: poll: %s\n", std::strerror(errno));
      status = usage_or_io;
      break;
    }
    if (fds[1].revents != 0) {
      signalfd_siginfo info{};
      (void)!::read(signals.get(), &info, sizeof info);
      log("blockwire serve: %s: stopping\n", strsignal(static_cast<int>(info.ssi_signo)));
      break;
    }
    if (fds[0].revents == 0) continue;
    const int fd = ::accept4(listener.value().get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors, the listener stays readable: wait a little
      // (a session may end) rather than spin. Otherwise the peer left.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) ::poll(nullptr, 0, 100);
      continue;
    }
    FileDescriptor socket(fd, ownership::own);
    const auto live = static_cast<std::size_t>(
        std::count_if(sessions.begin(), sessions.end(), [](const Session& x) { return !x.finished && !x.evicted; }));
    if (live >= o.max_peers && !evict_unfinished_handshake(sessions)) {
      log("blockwire serve: refused %s: already %u peers, each past its handshake (--max-peers)\n", net::remote_name(fd).c_str(),
          o.max_peers);
      continue;
    }
    Session& s = sessions.emplace_back(net::Connection(std::move(socket), net, timeouts));
    s.thread = std::thread(run_session, std::ref(s), std::cref(store));
  }
  // Within the poll interval: the store's long work (filter headers for
  // a wide range) ends at its next block, every connection is shut down.
  store.stop();
  for (Session& s : sessions) s.connection.shutdown();
  for (Session& s : sessions) s.thread.join();
  return status;
}

}  // namespace blockwire::cli
