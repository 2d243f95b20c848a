// A read-only node serving a blocks directory: listens, gives each peer a
// thread (up to max_peers; when every slot is taken, the peer longest in
// its handshake makes room, as Core evicts), reads what a writer appends
// every refresh interval and announces each new tip to every peer. A peer
// that misbehaves is dropped without touching the others. Stopping shuts
// every connection down and joins every thread.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/net/connection.hpp>
#include <blockwire/net/endpoint.hpp>
#include <blockwire/net/serve.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>

namespace blockwire::net {

// Bitcoin Core's: a peer silent for 20 minutes is dropped.
inline constexpr Timeouts serving_timeouts{.idle = std::chrono::minutes(20)};

// What a server did, for its owner to log (Server::Options::log).
struct ServerEvent {
  enum class kind : unsigned char {
    connected,       // a peer's handshake is done (detail: its user agent and protocol)
    left,            // a peer went away (detail: what was sent)
    dropped,         // a peer misbehaved or failed (detail: why, Connection::describe)
    evicted,         // every slot was taken and its handshake was not done (detail: for how long)
    refused,         // every slot was taken by peers past their handshake
    new_tip,         // the directory's tip moved (height)
    refresh_failed,  // reading what was appended failed (detail: why); what was read before is served
    undo_failed,     // reading the new tip's rev file failed (detail: why); tried again at the next refresh
    new_damage,      // the refresh found damage (the store's index lists it)
    stopping,        // run() was asked to stop: every connection is shut down next
  };
  kind what;
  std::string peer;          // "host:port", for the peer events
  std::int64_t height = -1;  // new_tip
  std::string detail;
  // One line for a person: "10.0.0.1:52100 connected (/Satoshi:30.0.0/, protocol 70016)".
  std::string message() const;
};

class Server {
 public:
  struct Options {
    unsigned max_peers = 8;
    Timeouts timeouts = serving_timeouts;
    std::chrono::milliseconds refresh{1000};
    // Called from the server's threads, one call at a time.
    std::function<void(const ServerEvent&)> log;
    // A descriptor that, once readable, makes run() return (a signalfd);
    // -1: none, stop() alone.
    int stop_fd = -1;
  };

  // Listens on `where` (port 0: a free one, bound() says which) for
  // `store`'s directory, on its network. Errors: the socket's, the
  // eventfd's.
  static result<std::unique_ptr<Server>> listen(BlockStore& store, const Endpoint& where, Options options);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server();

  const Endpoint& bound() const noexcept { return bound_; }

  // Accepts and serves until stop() or options.stop_fd; then shuts every
  // connection down (the store's long work ends at its next block, and
  // stays stopped: a server runs once) and joins every peer's thread.
  // Error: poll(2)'s.
  result<void> run();
  // Makes run() return within its poll interval; safe from any thread.
  void stop() noexcept;

 private:
  struct Session;
  Server(BlockStore& store, FileDescriptor listener, Endpoint bound, Options options);
  void say(const ServerEvent& e);
  void refresh(std::uint64_t& problems_said);
  bool evict_unfinished_handshake();
  void serve_session(Session& s);
  void accept_one();

  BlockStore& store_;
  FileDescriptor listener_;
  FileDescriptor wake_;  // an eventfd: stop()
  Endpoint bound_;
  Options options_;
  std::mutex log_mutex_;
  std::string undo_error_said_;
  std::list<Session> sessions_;
};

}  // namespace blockwire::net
