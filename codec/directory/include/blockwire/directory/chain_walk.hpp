// The heights a command that walks a directory's best chain reads, and
// what it tells its user first: one plan for the blockwire command and for
// Python's routes (blockwire.distributed), so that both say the same.
#pragma once

#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/io/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blockwire {

struct ChainWalk {
  Height from = Height::genesis();
  BlockCount end;                  // the blocks up to one past the last height; from's: nothing to read, which `notes` say (or a failure)
  std::vector<std::string> notes;  // lines for a person, in order, naming the directory as the user gave it
  std::optional<error> failure;    // no walk: said after the notes
};

// The block index's problems, as plan_chain_walk's notes say them (the
// first ten, how many more, and where to look): none when it has none.
std::vector<std::string> index_problem_notes(const std::string& shown, const BlockIndex& index);

// The walk of `dir`'s best chain from height `from` (as the user asked:
// any number, checked here), `count` blocks (none: to the
// tip). Notes: the block index's problems (the first ten, and how many),
// a directory with no block yet (nothing to read), a pruned directory's
// range moved up to its prune height, rounded up to a multiple of `align`
// (0 is taken as 1; or nothing left to read). `shown`: the directory as
// the user named it. Fails (failure, after the notes) with
// directory::errc::no_chain (blocks, none of them linked to genesis) and
// directory::errc::past_tip (`from` past the tip).
ChainWalk plan_chain_walk(const BlocksDirectory& dir, const std::string& shown, std::uint64_t from, BlockCount count,
                          std::uint64_t align = 1);

}  // namespace blockwire
