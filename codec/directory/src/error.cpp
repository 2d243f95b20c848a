#include <blockwire/directory/error.hpp>

namespace blockwire::directory {

namespace {

const char* describe(int value) noexcept {
  switch (static_cast<errc>(value)) {
    case errc::no_undo_data: return "the scripts the block's inputs spend are not in the directory (it has no rev files)";
    case errc::no_chain: return "no chain: no block whose parent is all zeros";
    case errc::not_one_chain: return "its parent is not the block before it";
    case errc::input_changed: return "it changed while it was being packed";
    case errc::leveldb_corruption: return "the LevelDB database is damaged";
    case errc::bad_index_entry: return "an entry of the node's database does not decode";
    case errc::node_index: return "the block index there is a node's own (the node prunes its directory)";
    case errc::damaged_directory: return "the directory is damaged (see `blockwire blocks` and `scan`): repair it first";
    case errc::utxo_set_behind: return "the UTXO set kept beside needs blocks that would be deleted to reach the tip";
    case errc::store_failed: return "the UTXO set's store failed earlier: open it again";
    case errc::chainstate_changed: return "its best block changed while it was read (a node writing it?)";
    case errc::unknown_best_block: return "its best block is not among the directory's blocks";
    case errc::no_filters: return "no compact block filters are served from this directory";
    case errc::past_tip: return "past the tip of the best chain";
    case errc::other_chain: return "this copy of the directory has another best chain than the one planned on (behind, or another branch)";
    case errc::other_network: return "records of another network than the one asked for";
  }
  return nullptr;
}

// What the directory or the blocks hold is the data's; an input that
// changes under the writer, and a request the directory cannot meet as it
// is, are the system's (usage).
condition classify(int value) noexcept {
  switch (static_cast<errc>(value)) {
    case errc::input_changed:
    case errc::store_failed:
    case errc::chainstate_changed: return condition::io;
    case errc::node_index:
    case errc::utxo_set_behind:
    case errc::no_filters:
    case errc::past_tip:
    case errc::other_network: return condition::usage;
    case errc::no_undo_data:
    case errc::no_chain:
    case errc::not_one_chain:
    case errc::leveldb_corruption:
    case errc::bad_index_entry:
    case errc::damaged_directory:
    case errc::unknown_best_block:
    case errc::other_chain: return condition::bad_data;
  }
  return condition::bad_data;
}

const char* describe_open_step(int value) noexcept {
  switch (static_cast<open_step>(value)) {
    case open_step::key: return "reading the key";
    case open_step::blocks: return "reading blk files";
    case open_step::undo: return "reading rev files";
  }
  return nullptr;
}

// A key or blk files whose bytes are wrong are the caller's (a key that
// is not the directory's, a bad xor.dat, another network's records), not
// bad data to report as damage; rev files are what they hold.
condition open_step_kind(int value, condition cause) noexcept {
  const bool callers = static_cast<open_step>(value) != open_step::undo && cause == condition::bad_data;
  return callers ? condition::usage : cause;
}

}  // namespace

const std::error_category& open_step_category() noexcept {
  static const step_category instance("blockwire.directory.open_step", describe_open_step, open_step_kind);
  return instance;
}

const std::error_category& category() noexcept {
  static const enum_category instance("blockwire.directory", describe, classify);
  return instance;
}

}  // namespace blockwire::directory
