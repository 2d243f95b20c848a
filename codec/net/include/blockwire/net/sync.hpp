// Headers-first sync, as Bitcoin Core's initial block download does it:
// getheaders with a locator of the chain we have, then a ping: the peer
// answers in order, so its pong before any headers means it has no more
// (whether or not it sends an empty headers message, as Core does). Each
// header checked
// (links to the one before it or to our chain, proof of work against its
// own bits and the network's limit, no duplicates, at most 2,000 a
// message), then the blocks fetched with getdata (witness form), at most 16
// in flight, each checked (a hash we asked for; check_block) and appended
// whole, in chain order, through the block-file writer.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/net/connection.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace blockwire::net {

struct SyncProgress {
  enum class stop : unsigned char { running, tip_reached, max_blocks };
  std::uint64_t blocks = 0;      // appended so far
  std::uint64_t bytes = 0;       // of those blocks
  std::optional<Height> height;  // our tip's (none: no chain yet)
  std::int64_t peer_height = 0;  // as the peer's version message said it (a claim: any int32)
  stop stopped = stop::running;  // why a sync that succeeded ended
  // After a failure: it was ours (writing the directory), not the peer's;
  // the error's offset is then the blk file's.
  bool local_failure = false;

  // How far our tip is toward the height the peer announced, 0 to 1 (1
  // when it announced none).
  double fraction() const noexcept {
    const double ours = height ? height->to_wire() : 0.0;
    return peer_height <= 0 ? 1.0 : std::min(1.0, ours / static_cast<double>(peer_height));
  }
};

struct SyncOptions {
  std::uint64_t max_blocks = 0;                       // stop after this many appended; 0: up to the peer's tip
  std::size_t max_in_flight = 16;                     // Core's MAX_BLOCKS_IN_TRANSIT_PER_PEER
  std::function<void(const SyncProgress&)> progress;  // after each block
  // Each block once appended and in the index, with its transactions' ids
  // (a UtxoStore's follow: the undo records written). Its error ends the
  // sync as the writer's would (local_failure), the block's record taken
  // out of the files again (BlockFileWriter::rewind; the index keeps it:
  // do not keep the index after such an error).
  std::function<result<void>(const Block&, const BlockHash&, std::span<const TxIds>)> appended;
};

// Syncs `chain` (the directory's index, BlockIndex: the blocks it holds,
// side branches too, and the best chain by most work; empty for a new
// directory) and the directory behind `writer` to the peer's best chain,
// the connection's handshake done; each block appended is add()ed. `progress` follows the blocks
// appended; on an error it says how far the sync got, and the blocks
// appended before it stay (each whole and checked): nothing partial is
// written. A peer that sends only what is not an answer (pings, inv, addr)
// for the idle timeout is timed_out: it cannot stall the sync; one that
// answers neither a getheaders nor the ping after it within the handshake
// timeout is no_answer, and one that answers only the ping while it
// announced a higher chain than ours is ignores_getheaders (a node in
// initial block download), one that answers with no header past ours
// while it announced more is no_headers_past_ours. Errors:
// unconnected_headers, bad_header_pow, duplicate_header (offset: the
// header's byte, each header's transaction count taken to be the one byte
// of a zero), unrequested_block, block_not_found, check_block's codes
// (offset: the block message's), what receive() reports, and the writer's
// (local_failure).
result<void> sync_blocks(Connection& peer, BlockFileWriter& writer, BlockIndex& chain, std::int64_t peer_height, SyncProgress& progress,
                         const SyncOptions& options = {});

}  // namespace blockwire::net
