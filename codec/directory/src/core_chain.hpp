// The chain of a blocks directory from Bitcoin Core's block index beside
// it, trusted once checked against the files it points to.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/undo.hpp>

#include <optional>
#include <string>
#include <variant>

namespace blockwire::detail {

struct CoreChain {
  BlockIndex index;
  std::optional<UndoIndex> undo;  // with undo wanted and rev files there
  // The files of blocks read past what Core's index knows (their undo
  // records are paired, not known).
  std::vector<unsigned> files_read;
};

// DIR/index read and checked, the blk files read past the last record it
// knows, and (with `undo`) the undo records where it says they are. A
// string says why it could not be used (for a person, naming the file);
// an I/O failure of the blk files beyond it is the error.
std::variant<CoreChain, std::string> read_core_chain(const std::string& blocks_dir, const XorKey& key, network net, bool undo);

}  // namespace blockwire::detail
