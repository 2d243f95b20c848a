#include <blockwire/directory/chain_walk.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/io/number_text.hpp>

#include <algorithm>

namespace blockwire {

namespace {

constexpr std::size_t problems_shown = 10;

}  // namespace

std::vector<std::string> index_problem_notes(const std::string& shown, const BlockIndex& index) {
  std::vector<std::string> notes;
  if (index.problem_count() == 0) return notes;
  const auto problems = index.problems();
  for (std::size_t i = 0; i < problems.size() && i < problems_shown; ++i) notes.push_back(shown + "/" + problems[i].message());
  if (index.problem_count() > problems_shown) notes.push_back("... and " + with_commas(index.problem_count() - problems_shown) + " more");
  notes.push_back(shown + ": " + count_of(index.problem_count(), "problem") +
                  " left out of the chain (damaged, failing proof of work, or linked to nothing); blockwire scan " + shown +
                  " reports every damaged byte");
  return notes;
}

ChainWalk plan_chain_walk(const BlocksDirectory& dir, const std::string& shown, std::uint64_t asked, BlockCount count,
                          std::uint64_t align) {
  ChainWalk walk;
  walk.notes = index_problem_notes(shown, dir.index());
  const BlockCount chain = dir.chain_size();
  if (chain.empty() && dir.index().size() == 0 && !dir.damaged()) {
    // A directory just made (or a fetch that has not had a block yet): a
    // chain of length zero, not damage.
    walk.notes.push_back(shown + ": no blocks yet");
    return walk;
  }
  if (chain.empty()) {
    walk.failure = error(directory::errc::no_chain).in(shown + " (" + count_of(dir.index().size(), "block") + ")");
    return walk;
  }
  const auto checked = Height::checked(asked);
  if (!checked || !chain.contains(*checked)) {
    walk.failure = error(directory::errc::past_tip)
                       .in("from height " + std::to_string(asked) + " (the best chain ends at height " + to_string(*chain.last()) + ")");
    return walk;
  }
  const Height from = *checked;
  walk.from = from;
  const std::uint64_t left = chain.value() - from.to_wire();
  walk.end =
      count.empty() || count.value() > left ? chain : BlockCount(from.to_wire() + count.value());  // (never past the tip, never wrapped)
  align = std::max<std::uint64_t>(align, 1);
  // A pruned node's directory: what is below its prune height is gone,
  // which is how the node keeps it, not damage. The walk starts where the
  // data does.
  if (const Height pruned = dir.prune_height(); from < pruned) {
    const std::uint64_t start = (std::uint64_t{pruned.to_wire()} + align - 1) / align * align;
    const std::string where = start >= walk.end.value()
                                  ? "nothing left to read in the range asked for"
                                  : "from height " + std::to_string(start) +
                                        (start != pruned.to_wire() ? " (a multiple of " + std::to_string(align) + ")" : std::string());
    walk.notes.push_back(shown + ": a pruned directory: the blocks below height " + to_string(pruned) +
                         " were pruned (their headers alone are kept); " + where);
    walk.from = *Height::checked(std::min(start, walk.end.value()));
  }
  return walk;
}

}  // namespace blockwire
