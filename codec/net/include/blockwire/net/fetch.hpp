// A blocks directory synced from a node, as one call: the directory's
// writer and index opened (a crash's leftovers repaired), the UTXO set kept
// beside brought to the tip (for the undo records), the peer reached and
// greeted, the blocks fetched headers first (sync_blocks), then the commit
// in the order that keeps the directory whole at every step: the set and
// the undo records flushed, the blk files closed, and only then the index
// kept. A fetch stopped or failed keeps the whole, checked blocks appended
// before; a rerun goes on from there.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/utxo_store.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/net/connection.hpp>
#include <blockwire/net/endpoint.hpp>
#include <blockwire/net/sync.hpp>
#include <blockwire/p2p.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire::net {

// What the caller is told while a fetch runs (each optional).
struct FetchEvents {
  // The directory opened: what the writer repaired (writer.repaired()),
  // the index with the damage it read around (index.problems()), and its
  // notes (a kept index refused and read from the files, say).
  std::function<void(const BlockFileWriter& writer, const BlockIndex& index, std::span<const std::string> notes)> opened;
  // The UTXO set at the directory's tip: how it got there.
  std::function<void(const UtxoStore::Opening&)> utxo_set_opened;
  std::function<void(std::uint64_t done, std::uint64_t total)> building;  // the set built from the blocks
  CoinsProgressFn importing;                                              // the set copied from Core's chainstate
  std::function<void(const SyncProgress&)> syncing;                       // after each block appended
};

struct FetchRequest {
  Endpoint peer;
  // The peer's network, and the directory's when it has no blocks yet.
  network net = network::mainnet;
  // Take the network from the directory's blocks when it has some.
  bool net_from_records = false;
  std::string dir;
  XorKey key{};  // the directory's (key_for_writing: its xor.dat, or a new one)
  Timeouts timeouts{};
  // v2: BIP324 first, and v1 when the peer turns out to speak v1 only
  // (dial's rules).
  transport preferred = transport::v2;
  std::uint64_t max_blocks = 0;  // 0: to the peer's tip
  // Keep the UTXO set beside (DIR/blockwire-utxos) and write each block's
  // undo record, as a node does.
  bool undo = true;
  std::size_t cache_bytes = std::size_t{256} << 20;  // the set's changes held before a flush
  // When readable (a signalfd, an eventfd; never read here): the fetch
  // stops at once, between two blocks, with what it appended kept.
  int stop_fd = -1;
  FetchEvents events;
};

// Where a fetch that failed stopped (error::step() of FetchReport::failure).
enum class fetch_step : int {
  connecting = 1,  // the peer not reached
  handshake,       // the peer reached, its version not had
  directory,       // the directory not opened (the writer, the index)
  utxo_set,        // the UTXO set not opened or not brought to the tip
  syncing,         // the peer failed the sync (or went away)
  writing,         // the directory failed while blocks were appended (local_failure)
  following,       // the UTXO set refused an appended block (the block taken out again)
  stopped,         // asked to stop (stop_fd)
  flushing,        // the UTXO set not written after the sync
  closing,         // the blk files not closed after the sync
};
const std::error_category& fetch_step_category() noexcept;
inline std::error_code make_error_code(fetch_step s) noexcept { return {static_cast<int>(s), fetch_step_category()}; }

struct FetchReport {
  // None: fetched to the peer's tip or to max_blocks. Else the cause, its
  // step() the fetch_step it stopped at, its context what failed (the
  // peer and its message, the block, the path).
  std::optional<error> failure;
  std::optional<error> utxo_set_not_written;  // the sync failed, and so did writing the UTXO set after it
  std::optional<error> index_not_kept;        // the fetch succeeded; the next open reads the files again
  network net = network::mainnet;             // the directory's
  std::string peer_name;
  std::uint64_t peer_bytes_received = 0;
  std::optional<p2p::Version> version;  // the peer's, once greeted
  transport transport_used = transport::v1;
  std::string session_id;                    // BIP324's, as hex; "" on v1
  v1_fallback fallback = v1_fallback::none;  // v2 offered, v1 used: why
  std::uint64_t peer_bytes_sent = 0;         // (of the last connection, as peer_bytes_received)
  SyncProgress sync;
  std::optional<Height> start_height;  // the directory's tip, before (none: no chain)
  std::optional<Height> height;        // the directory's tip, after
  BlockHash tip = BlockHash::all_zeros();
  bool damaged = false;  // the directory had damage, read around (the blocks it left out fetched again)
  double seconds = 0;
};

// What a person should hear of a fetch besides its failure's message: why
// v1 was used after a v2 (BIP324) attempt (`peer`: the peer as the user
// named it), said before the outcome; and, for a handshake the peer closed
// before it sent a byte, why a node does that (it refuses us, or is
// another network's), said after the failure. None when there is nothing.
std::optional<std::string> v1_fallback_note(const FetchReport& report, const std::string& peer);
std::optional<std::string> closed_handshake_note(const FetchReport& report);
// What is said before the outcome: an index of `dir` that could not be
// kept, and v1_fallback_note.
std::vector<std::string> outcome_notes(const FetchReport& report, const std::string& dir, const std::string& peer);
// The lines that say a failed fetch (none when it did not fail): the
// failure, what its step means for DIR (`dir`, as the user named it:
// what it holds, whether a rerun goes on), closed_handshake_note, and a
// UTXO set not written. `signal`: the signal that stopped it, if one did.
std::vector<std::string> failure_lines(const FetchReport& report, const std::string& dir, std::string_view signal);
// The summary of a fetch that ended well: the peer, the transport, what
// was fetched and how fast, DIR's height and tip, and why it stopped (the
// tip reached, or `max_blocks`).
std::vector<std::string> summary_lines(const FetchReport& report, const std::string& dir, std::uint64_t max_blocks);

// Never throws for what the peer, the directory or the disk does: every
// failure is in the report. The directory is made when missing, only once
// the peer has answered (a fetch that cannot connect leaves nothing).
FetchReport fetch(const FetchRequest& request);

}  // namespace blockwire::net

template <>
struct std::is_error_code_enum<blockwire::net::fetch_step> : std::true_type {};
