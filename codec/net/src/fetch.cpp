#include <blockwire/net/fetch.hpp>

#include <blockwire/io/file_descriptor.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace blockwire::net {

namespace {

namespace fs = std::filesystem;

// Watches the caller's stop descriptor on a thread of its own: once it is
// readable, the peer's socket (now or when it comes) is shut down, which
// ends whatever the sync waits on at once, between two blocks appended
// whole. The descriptor is left unread: its signal is the caller's to read.
class StopWatch {
 public:
  explicit StopWatch(int stop_fd) {
    if (stop_fd < 0) return;
    // A stop made before the call is seen at once, not when the thread
    // gets to it.
    pollfd now{stop_fd, POLLIN, 0};
    requested_ = ::poll(&now, 1, 0) > 0 && (now.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
    if (requested_ || done_.get() < 0) return;
    thread_ = std::thread([this, stop_fd] {
      pollfd fds[2] = {{stop_fd, POLLIN, 0}, {done_.get(), POLLIN, 0}};
      while (::poll(fds, 2, -1) < 0) {
      }
      if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) return;
      std::lock_guard lock(mutex_);
      requested_ = true;
      if (socket_ >= 0) ::shutdown(socket_, SHUT_RDWR);
    });
  }
  StopWatch(const StopWatch&) = delete;
  StopWatch& operator=(const StopWatch&) = delete;
  ~StopWatch() {
    if (thread_.joinable()) {
      const std::uint64_t one = 1;
      (void)!::write(done_.get(), &one, sizeof one);
      thread_.join();
    }
  }

  bool requested() const noexcept { return requested_; }
  // The socket to shut down on a stop; -1 once it is closed.
  void watch(int socket) {
    std::lock_guard lock(mutex_);
    socket_ = socket;
    if (requested_ && socket_ >= 0) ::shutdown(socket_, SHUT_RDWR);
  }

 private:
  std::atomic<bool> requested_{false};
  std::mutex mutex_;  // requested_ set and socket_ shut down as one step, against watch()
  int socket_ = -1;
  const FileDescriptor done_{::eventfd(0, EFD_CLOEXEC), ownership::own};
  std::thread thread_;
};

using step = fetch_step;

const char* describe_fetch_step(int value) noexcept {
  switch (static_cast<fetch_step>(value)) {
    case step::connecting: return "connecting";
    case step::handshake: return "the handshake";
    case step::directory: return "opening the directory";
    case step::utxo_set: return "opening the UTXO set";
    case step::syncing: return "syncing";
    case step::writing: return "writing blocks";
    case step::following: return "the UTXO set following the blocks";
    case step::stopped: return "stopped";
    case step::flushing: return "writing the UTXO set";
    case step::closing: return "closing the blk files";
  }
  return nullptr;
}

// A peer's failure to do its part, or its bad data, is said as such in the
// handshake, the sync, and by the UTXO set; at the other steps the failure
// is the system's or the caller's whatever its cause.
condition fetch_step_kind(int value, condition cause) noexcept {
  switch (static_cast<fetch_step>(value)) {
    case step::handshake:
    case step::utxo_set:
    case step::syncing:
    case step::following: return cause;
    default: return cause == condition::bad_data ? condition::usage : cause;
  }
}

// The peer reached and greeted, telling it our height.
bool greet(const FetchRequest& r, network net, std::optional<Height> our_height, StopWatch& stop, std::optional<Connection>& peer,
           FetchReport& report) {
  Dialed dialed = dial(
      r.peer, net, r.timeouts, r.preferred, [&](int socket) { stop.watch(socket); }, [&] { return stop.requested(); });
  report.fallback = dialed.fallback;
  if (!dialed.connection) {
    report.failure = dialed.failure->in(r.peer.to_string()).at_step(step::connecting);
    return false;
  }
  peer.emplace(std::move(*dialed.connection));
  report.peer_name = peer->peer_name();
  if (dialed.failure) {
    report.peer_bytes_received = peer->bytes_received();
    report.peer_bytes_sent = peer->bytes_sent();
    report.failure = peer->attributed(*dialed.failure).at_step(stop.requested() ? step::stopped : step::handshake);
    return false;
  }
  report.transport_used = peer->transport_kind();
  report.session_id = peer->session_id();
  auto version = peer->handshake_outbound({.start_height = our_height ? our_height->to_core() : 0});
  report.peer_bytes_received = peer->bytes_received();
  report.peer_bytes_sent = peer->bytes_sent();
  if (!version) {
    report.failure = peer->attributed(version.error()).at_step(stop.requested() ? step::stopped : step::handshake);
    return false;
  }
  report.version = std::move(version).value();
  return true;
}

}  // namespace

FetchReport fetch(const FetchRequest& r) {
  const auto start = std::chrono::steady_clock::now();
  FetchReport report;
  report.net = r.net;
  StopWatch stop(r.stop_fd);
  const auto finish = [&] {
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stop.watch(-1);
    return std::move(report);
  };
  // A directory with no block yet: the peer first, so that a fetch that
  // cannot connect leaves nothing behind (no blk file, no key, no set).
  // Else the directory and its set first, and the handshake tells the
  // peer our height.
  std::optional<Connection> peer;
  if (!holds_records(r.dir) && !greet(r, r.net, std::nullopt, stop, peer, report)) return finish();
  std::error_code ec;
  fs::create_directories(r.dir, ec);
  if (r.net_from_records) report.net = network_of(r.dir, r.key).value_or(r.net);
  auto writer = BlockFileWriter::open(r.dir, r.key, report.net);
  if (!writer) {
    report.failure = writer.error().in(r.dir).at_step(step::directory);
    return finish();
  }
  std::vector<std::string> notes;
  auto index = BlocksDirectory::open_index(r.dir, r.key, report.net, &notes);
  if (!index) {
    report.failure = index.error().at_step(step::directory);
    return finish();
  }
  BlockIndex& chain = index.value();  // kept as blocks are appended
  if (r.events.opened) r.events.opened(writer.value(), chain, notes);
  report.damaged = chain.problem_count() != 0;
  report.start_height = chain.tip_height();
  report.height = chain.tip_height();

  std::optional<UtxoStore> coins;
  if (r.undo) {
    UtxoStore::Options options;
    options.cache_bytes = r.cache_bytes;
    BlockFileWriter& blocks = writer.value();
    options.before_flush = [&blocks] { return blocks.sync(); };
    options.progress = r.events.building;
    options.import_progress = r.events.importing;
    options.stop_requested = [&stop] { return stop.requested(); };
    auto opened = UtxoStore::open(chain, options);
    if (!opened) {
      report.failure =
          opened.error().in(r.dir + ": the UTXO set").at_step(opened.error().code() == io::errc::stopped ? step::stopped : step::utxo_set);
      return finish();
    }
    coins.emplace(std::move(opened).value());
    if (r.events.utxo_set_opened) r.events.utxo_set_opened(coins->opening());
  }
  if (stop.requested()) {
    report.failure = error(io::errc::stopped).in("before the peer was reached").at_step(step::stopped);
    return finish();
  }
  if (!peer && !greet(r, report.net, chain.tip_height(), stop, peer, report)) return finish();

  SyncOptions options;
  options.max_blocks = r.max_blocks;
  options.progress = r.events.syncing;
  std::optional<error> refused;
  if (coins) {
    options.appended = [&](const Block& block, const BlockHash& hash, std::span<const TxIds> ids) {
      auto followed = coins->follow(chain, &block, hash, ids);
      if (!followed) {
        refused = followed.error().in("the UTXO set, for the undo records").at_step(step::following);
      }
      return followed;
    };
  }
  auto synced = sync_blocks(*peer, writer.value(), chain, report.version->start_height, report.sync, options);
  // The set and the undo records of every block connected, before the
  // index says they are there.
  const auto flushed = coins && !refused ? coins->flush() : result<void>(success());
  const auto closed = writer.value().close();
  // What was appended joins the kept index (a fetch cut short keeps its
  // committed blocks; a crash before this is read from the files next
  // time). Not after a block the set could not take: the index would hold
  // it, and undo places the next open does not.
  if (closed && flushed && !refused) {
    if (auto kept = BlocksDirectory::keep_index(chain); !kept) report.index_not_kept = kept.error();
  }
  report.height = chain.tip_height();
  report.tip = chain.tip();
  report.peer_bytes_received = peer->bytes_received();
  if (!synced) {
    const error& e = synced.error();
    if (refused) {
      report.failure = std::move(refused);
    } else if (report.sync.local_failure) {
      report.failure = e.in("writing " + r.dir + "'s last blk file").at_step(step::writing);
    } else if (stop.requested()) {
      report.failure = peer->attributed(e).at_step(step::stopped);
    } else if (e.code() == errc::block_not_found && (report.version->services & node_network) == 0 &&
               (report.version->services & node_network_limited) != 0) {
      // A pruned node's notfound is no passing failure: a rerun gets it again.
      const error pruned(errc::pruned_peer, e.offset());
      report.failure = peer->attributed(pruned.in("we asked for the block at height " + std::to_string(chain.chain_size().value()) +
                                                  " (it announced height " + std::to_string(report.version->start_height) + ")"))
                           .at_step(step::syncing);
    } else {
      report.failure = peer->attributed(e).at_step(step::syncing);
    }
    if (!flushed) report.utxo_set_not_written = flushed.error().in(r.dir + ": writing the UTXO set");
  } else if (!closed) {
    report.failure = closed.error().in("closing " + r.dir).at_step(step::closing);
  } else if (!flushed) {
    report.failure =
        flushed.error().in(r.dir + ": writing the UTXO set (the next fetch connects these blocks again)").at_step(step::flushing);
  }
  return finish();
}

const std::error_category& fetch_step_category() noexcept {
  static const step_category instance("blockwire.net.fetch_step", describe_fetch_step, fetch_step_kind);
  return instance;
}

}  // namespace blockwire::net
