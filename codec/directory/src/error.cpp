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
  }
  return nullptr;
}

// What the directory or the blocks hold is the data's; an input that
// changes under the writer is the system's.
condition classify(int value) noexcept { return static_cast<errc>(value) == errc::input_changed ? condition::io : condition::bad_data; }

}  // namespace

const std::error_category& category() noexcept {
  static const enum_category instance("blockwire.directory", describe, classify);
  return instance;
}

}  // namespace blockwire::directory
