// The chain of a blocks directory from Bitcoin Core's block index beside
// it, trusted once checked against the files it points to.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/undo.hpp>

#include <optional>
#include <string>
#include <variant>

namespace blockwire::detail {

// DIR/index read and checked (with `undo`, the tip's undo record too), and
// the blk files read past the last record it knows. A string says why it
// could not be used, for a person, naming the file.
std::variant<BlockIndex, std::string> read_core_chain(const std::string& blocks_dir, const XorKey& key, network net, bool undo);

}  // namespace blockwire::detail
