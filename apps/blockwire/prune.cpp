// blockwire prune: a blocks directory blockwire writes, pruned as a node
// prunes its own (prune_directory). Here: what is said, and how.
#include "commands.hpp"
#include "text.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/directory/prune.hpp>

#include <cstdio>

namespace blockwire::cli {

namespace {

// "blk00000.dat to blk00005.dat" (and their rev files), or one name.
std::string file_range(const std::vector<unsigned>& files) {
  const std::string first = block_file_name(files.front());
  if (files.size() == 1) return first;
  const bool consecutive = files.back() - files.front() + 1 == files.size();
  return count_of(files.size(), "blk file") + (consecutive ? ", " + first + " to " + block_file_name(files.back()) : " from " + first);
}

}  // namespace

int prune(const PruneOptions& o) {
  PruneSpec spec;
  spec.dir = o.dir;
  spec.keep = o.keep;
  spec.dry_run = o.dry_run;
  spec.note = [](std::string_view line) { std::fprintf(stderr, "blockwire prune: %.*s\n", static_cast<int>(line.size()), line.data()); };
  auto done = prune_directory(spec);
  if (!done) {
    std::fprintf(stderr, "blockwire prune: %s\n", done.error().message().c_str());
    return exit_status_of(done.error());
  }
  const Pruned& p = done.value();
  if (o.json) {
    std::printf("{\"files\":[");
    for (std::size_t i = 0; i < p.files.size(); ++i) std::printf("%s\"%s\"", i == 0 ? "" : ",", block_file_name(p.files[i]).c_str());
    std::printf("],\"bytes\":%llu,\"pruneheight\":%u,\"blocks\":%llu,\"dry_run\":%s}\n", static_cast<unsigned long long>(p.bytes),
                p.prune_height.to_wire(), static_cast<unsigned long long>(p.chain_size.value()), o.dry_run ? "true" : "false");
    return ok;
  }
  if (p.chain_size.empty()) {
    std::printf("%s: no blocks yet: nothing to prune\n", o.dir.c_str());
    return ok;
  }
  if (p.files.empty()) {
    std::printf("%s: nothing to prune: %s; no file but the last holds only blocks below the last %s%s\n", o.dir.c_str(),
                count_of(p.chain_size.value(), "block").c_str(), with_commas(o.keep).c_str(),
                p.prune_height != Height::genesis()
                    ? (" (pruned below height " + with_commas(p.prune_height.to_wire()) + " already)").c_str()
                    : "");
    return ok;
  }
  std::printf(
      "%s: %s %s and their rev files (%s); the blocks below height %s are pruned (their headers kept in %s/index), %s of %s "
      "have their data\n",
      o.dir.c_str(), o.dry_run ? "would delete" : "deleted", file_range(p.files).c_str(), count_of(p.bytes, "byte").c_str(),
      with_commas(p.prune_height.to_wire()).c_str(), o.dir.c_str(), with_commas(p.chain_size.heights(p.prune_height).size()).c_str(),
      count_of(p.chain_size.value(), "block").c_str());
  return ok;
}

}  // namespace blockwire::cli
