// Serving a blocks directory to peers, read-only, while a writer may be
// appending to it: what each message a peer sends gets back (the table is
// in docs/design.md, each row after Bitcoin Core's net_processing), new
// blocks announced as they appear, and the blocks themselves from the blk
// files as they are on disk (the witness form sent without decoding; the
// stripped form re-encoded).
#pragma once

#include <blockwire/directory.hpp>
#include <blockwire/directory/block_store.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/net/connection.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace blockwire::net {

// Wakes a peer's thread when the tip moved, through an eventfd its loop
// polls beside the socket. notify() is safe from any thread.
class TipSignal {
 public:
  TipSignal();
  void notify() noexcept;
  int fd() const noexcept { return fd_.get(); }
  void clear() noexcept;

 private:
  FileDescriptor fd_;
};

// What serve_peer may send unasked, and how much.
inline constexpr std::size_t max_blocks_to_announce = 8;  // Core's MAX_BLOCKS_TO_ANNOUNCE: more, and a headers peer gets an inv of the tip
inline constexpr std::size_t max_getblocks_inv = 500;     // Core's limit for an inv answering getblocks
inline constexpr int max_cmpctblock_depth = 5;            // Core's MAX_CMPCTBLOCK_DEPTH: deeper, a cmpctblock request gets the block
inline constexpr int max_blocktxn_depth = 10;             // Core's MAX_BLOCKTXN_DEPTH: deeper, a getblocktxn gets the block

// Answers the peer, the handshake done, until it goes away (success) or
// misbehaves (the error receive() reported, or the code of a request Core
// disconnects for: getblocktxn_past_end, the filter_ codes). First it
// sends sendcmpct(0, 2) to a peer of protocol 70014 or later, as Core does
// after the handshake: we can serve compact blocks, so the peer may pick
// us to announce new blocks by cmpctblock (high bandwidth). With `tips`,
// the peer is told of each new tip: a cmpctblock for a single new block to
// a peer that asked for high-bandwidth compact blocks, headers (up to 8)
// to one that sent sendheaders, else an inv of the tip. With `watch`, the
// peer is pinged every watch->ping_interval (Core's PING_INTERVAL, 2
// minutes) and dropped when a ping is unanswered for 20 minutes (Core's
// TIMEOUT_INTERVAL); `watch` tells a server how the peer is doing.
struct PeerWatch {
  std::chrono::milliseconds ping_interval{std::chrono::minutes(2)};
  // (steady clock ticks; 0: none) the peer's last request for data
  // (headers, blocks, filters), and since when a ping of ours is unanswered.
  std::atomic<std::int64_t> asked{0};
  std::atomic<std::int64_t> ping_unanswered_since{0};
  // The shortest round trip of a ping of ours and its pong, in
  // microseconds (0: none answered yet), as Core's m_min_ping_time.
  std::atomic<std::int64_t> min_ping_us{0};
};
result<void> serve_peer(Connection& peer, const BlockStore& store, TipSignal* tips = nullptr, PeerWatch* watch = nullptr);

}  // namespace blockwire::net
