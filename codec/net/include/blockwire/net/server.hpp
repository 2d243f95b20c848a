// A read-only node serving a blocks directory: listens, gives each peer a
// thread (up to max_peers, max_per_address of them from one address; when
// every slot is taken, room is made as Core's eviction makes it: the peer
// longest in its handshake first, then one that left our ping unanswered
// for a ping interval, else the youngest peer of the netgroup
// holding the most slots, if that is more than the newcomer's would hold,
// never one that asked for data in the last two minutes), reads what a writer appends
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

// Bitcoin Core's: a peer silent for 20 minutes is dropped. A handshake has
// 10 s (a real peer's takes milliseconds; Core gives 60 s, but its slots
// are 125, these 8).
inline constexpr Timeouts serving_timeouts{.handshake = std::chrono::seconds(10), .idle = std::chrono::minutes(20)};

// What a server did, for its owner to log (Server::Options::log).
struct ServerEvent {
  enum class kind : unsigned char {
    connected,       // a peer's handshake is done (detail: its user agent and protocol)
    left,            // a peer went away (detail: what was sent)
    dropped,         // a peer misbehaved or failed (detail: why, Connection::describe)
    evicted,         // every slot was taken: its handshake was not done, or its netgroup held the most slots (detail: which, how long)
    refused,         // every slot was taken by peers none of which could make room, or its address had its share (detail: which)
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
    // Peers from one address at once (0: half of max_peers, at least 1).
    unsigned max_per_address = 0;
    // A peer is pinged this often (Core's PING_INTERVAL); one that has not
    // answered for as long goes first when a slot is needed.
    std::chrono::milliseconds ping_interval{std::chrono::minutes(2)};
    Timeouts timeouts = serving_timeouts;
    // BIP324: v2 peers answered too (told from v1 ones by their first
    // bytes) and NODE_P2P_V2 announced; false: v1 alone.
    bool v2 = true;
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
  // (`from`: that address's alone; empty: any)
  bool evict_unfinished_handshake(const std::string& from = {});
  bool evict_unanswered_ping();
  bool evict_from_largest_netgroup(const std::string& newcomer_group);
  void serve_session(Session& s);
  void accept_one();
  void refused(const std::string& peer, const std::string& why);

  BlockStore& store_;
  FileDescriptor listener_;
  FileDescriptor wake_;  // an eventfd: stop()
  Endpoint bound_;
  Options options_;
  std::mutex log_mutex_;
  std::string undo_error_said_;
  std::list<Session> sessions_;
  std::chrono::steady_clock::time_point refused_said_{};  // when a refusal was last said
  std::uint64_t refused_unsaid_ = 0;                      // refusals since (the said one counted)
};

}  // namespace blockwire::net
