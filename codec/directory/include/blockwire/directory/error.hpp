// The directory layer's own failures.
#pragma once

#include <blockwire/io/error.hpp>

#include <system_error>
#include <type_traits>

namespace blockwire::directory {

// Values are stable: they may be stored or logged. Each means one thing.
enum class errc : int {
  no_undo_data = 1,    // a block that spends coins, in a directory with no rev files: the scripts it spends are not there
  no_chain,            // a directory with no block whose parent is all zeros: there is no chain to work on
  not_one_chain,       // blocks to pack with undo data whose parents are not each the block before
  input_changed,       // a block read again to be written is not the one read first
  leveldb_corruption,  // a LevelDB database of the node's (block index, chainstate) is damaged
  bad_index_entry,     // an entry of Bitcoin Core's block index or chainstate does not decode
  node_index,          // the directory's block index is a node's own: blockwire writes nothing into it
  damaged_directory,   // the directory's chain was read around damage: not changed until it is repaired
  utxo_set_behind,     // the UTXO set kept beside still needs blocks that would be gone to reach the tip
  store_failed,        // the UTXO set's store failed earlier (a block half applied): nothing more until it is opened again
  chainstate_changed,  // a chainstate's best block changed while it was read (a node writing it)
  unknown_best_block,  // a UTXO set's or chainstate's best block is not among the directory's blocks
  no_filters,          // BlockStore: filters are not served (not enabled, or no rev files to make them from)
  past_tip,            // BlockStore: a height past the best chain's tip
  other_chain,         // a copy of a directory whose best chain differs from the one a job was planned on (behind, or another branch)
  other_network,       // records of another network than the one asked for (a directory's; a block packed into one)
};

const std::error_category& category() noexcept;
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

// Which files BlocksDirectory::open failed to read (error::step()).
enum class open_step : int {
  key = 1,  // the key (DIR/xor.dat, or the one given): a wrong key is the caller's, whatever the bytes
  blocks,   // the blk files, or their index
  undo,     // the rev files (with Options::undo_required)
};

const std::error_category& open_step_category() noexcept;
inline std::error_code make_error_code(open_step s) noexcept { return {static_cast<int>(s), open_step_category()}; }

}  // namespace blockwire::directory

template <>
struct std::is_error_code_enum<blockwire::directory::errc> : std::true_type {};
template <>
struct std::is_error_code_enum<blockwire::directory::open_step> : std::true_type {};
