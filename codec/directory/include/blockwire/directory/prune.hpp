// Pruning a blocks directory blockwire writes, as a pruned node does: the
// oldest blk files and their rev files deleted whole once every block in
// them is far enough below the tip, and an index that outlives them. The
// index is Bitcoin Core's own block index (DIR/index, its LevelDB format:
// each block's height, status, transaction count, header and places; each
// file's record; the "prunedblockfiles" flag), so that every reader of a
// pruned node's directory (BlocksDirectory, and Core's own tools) reads a
// pruned blockwire directory the same way. The pruned blocks keep their
// headers there; their data is gone.
//
// Crash-safe in Core's order: the index is written (one synced LevelDB
// write) before any file is deleted. A crash in between leaves files the
// index no longer counts on, which the next prune deletes.
#pragma once

#include <blockwire/codec/height.hpp>
#include <blockwire/io/error.hpp>

#include <boost/outcome/std_result.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire {

// Bitcoin Core's MIN_BLOCKS_TO_KEEP: the blocks below the tip a pruned node
// keeps, so that a reorganization of that depth still finds their data
// and undo records.
inline constexpr std::size_t min_blocks_to_keep = 288;

struct PruneSpec {
  std::string dir;
  // The blocks at the top of the best chain whose data stays (at least
  // min_blocks_to_keep): a file is deleted once its highest block is
  // below them all. The last file (the one written to) is never deleted.
  std::size_t keep = min_blocks_to_keep;
  bool dry_run = false;  // say what would be deleted; write and delete nothing
  // What a user should hear of on the way (a writer's repair).
  std::function<void(std::string_view)> note;
};

struct Pruned {
  std::vector<unsigned> files;               // N of each blkNNNNN.dat deleted (with revNNNNN.dat), ascending
  std::uint64_t bytes = 0;                   // in them
  Height prune_height = Height::genesis();   // after: the lowest height from which every block of the best chain has its data
  BlockCount chain_size;                     // blocks in the best chain
  Height pruned_before = Height::genesis();  // the prune height before (genesis: never pruned)
};

// Errors (each with the directory and what was being done as its context):
// std::errc::invalid_argument (keep below min_blocks_to_keep),
// directory::errc::node_index (DIR holds a node's own block index: the
// node prunes its directory), directory::errc::damaged_directory (the
// chain was read around damage: nothing is deleted until it is repaired),
// directory::errc::utxo_set_behind (DIR/blockwire-utxos still needs blocks
// that would be deleted to reach the tip), the writer's lock
// (blockfiles::errc::directory_locked: fetch is writing DIR), reading the
// directory, LevelDB's, the system's.
result<Pruned> prune_directory(const PruneSpec& spec);

}  // namespace blockwire
