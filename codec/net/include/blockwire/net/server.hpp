// A read-only node serving a blocks directory: listens, gives each
// connection a thread, reads what a writer appends every refresh interval
// and announces each new tip to every peer. A peer that misbehaves is
// dropped without touching the others. Stopping shuts every connection
// down and joins every thread.
//
// Slots, as Bitcoin Core's node keeps them (docs/design.md, "Talking to
// nodes"): a connection is first *handshaking*, in a budget of its own
// (max_handshaking, max_handshaking_per_netgroup of one /16 or /32) with a
// deadline (the handshake timeout, from accept to verack), so that nothing
// that has not finished a handshake can take a peer's place; a newcomer
// over that budget closes the oldest handshaking connection of its own
// netgroup, else of the netgroup holding the most. Past its handshake it
// takes one of max_peers *peer* slots; when all are taken a peer is
// evicted as Core's SelectNodeToEvict picks it: one that left a ping of
// ours unanswered for a whole ping interval first, else, after protecting
// 4 peers by netgroup (the highest keyed hash of their netgroup), the
// 8 with the lowest ping and the longest-connected half of the rest, the
// youngest peer of the netgroup holding the most slots; when every peer
// is protected, the newcomer is refused.
#pragma once

#include <blockwire/codec/height.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/net/connection.hpp>
#include <blockwire/net/endpoint.hpp>
#include <blockwire/net/serve.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>

namespace blockwire::net {

// Bitcoin Core's: a peer silent for 20 minutes is dropped. A handshake has
// 10 s from accept to verack (a real peer's takes milliseconds; Core gives
// 60 s).
inline constexpr Timeouts serving_timeouts{.handshake = std::chrono::seconds(10), .idle = std::chrono::minutes(20)};

// What a server did, for its owner to log (Server::Options::log).
struct ServerEvent {
  enum class kind : unsigned char {
    connected,       // a peer's handshake is done (detail: its user agent and protocol)
    left,            // a peer went away (detail: what was sent)
    dropped,         // a peer misbehaved or failed (detail: why, Connection::describe)
    evicted,         // it made room for a newcomer, or its handshake was too long (detail: why, how long it was connected)
    refused,         // past its handshake, every peer slot was taken by a protected peer, or its address had its share (detail: which)
    new_tip,         // the directory's tip moved (height)
    refresh_failed,  // reading what was appended failed (detail: why); what was read before is served
    undo_failed,     // reading the new tip's rev file failed (detail: why); tried again at the next refresh
    new_damage,      // the refresh found damage (the store's index lists it)
    stopping,        // run() was asked to stop: every connection is shut down next
  };
  kind what;
  std::string peer;              // "host:port", for the peer events
  std::optional<Height> height;  // new_tip (none: the directory has no block)
  std::string detail;
  // One line for a person: "10.0.0.1:52100 connected (/Satoshi:30.0.0/, protocol 70016)".
  std::string message() const;
};

class Server {
 public:
  struct Options {
    // Peers past their handshake (Bitcoin Core's 125 connections).
    unsigned max_peers = 125;
    // Peers from one address at once (0: half of max_peers, at least 1).
    unsigned max_per_address = 0;
    // Connections still in their handshake, in all and of one netgroup.
    unsigned max_handshaking = 32;
    unsigned max_handshaking_per_netgroup = 4;
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
  void serve_session(Session& s);
  // A connection accepted, if one waited (false: none, or out of
  // descriptors).
  bool accept_one();
  // (under slots_mutex_) Room among the handshaking connections for one of
  // `group`; past its handshake, a peer's slot for `s` (false: refused,
  // `why` says why). Each shuts its victim down, its reason set.
  void make_handshake_room(const std::string& group);
  bool take_peer_slot(Session& s, std::string& why);
  Session* select_to_evict();
  void end_late_handshakes();
  void say_limited(ServerEvent e);

  BlockStore& store_;
  FileDescriptor listener_;
  FileDescriptor wake_;  // an eventfd: stop()
  Endpoint bound_;
  Options options_;
  std::mutex log_mutex_;
  std::string undo_error_said_;
  std::uint64_t group_key_[2];  // keys the netgroups' hash (Core's CompareNetGroupKeyed)
  std::mutex slots_mutex_;      // guards sessions_ (the list and each one's stage) and the eviction's choices
  std::list<Session> sessions_;
  struct Unsaid {
    std::chrono::steady_clock::time_point said{};  // when say_limited last said one of a kind
    std::uint64_t count = 0;                       // of that kind since (the said one counted)
  };
  Unsaid unsaid_[16];  // by ServerEvent::kind
};

}  // namespace blockwire::net
