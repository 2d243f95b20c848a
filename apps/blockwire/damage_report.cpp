#include "damage_report.hpp"

#include "text.hpp"

#include <cstdio>

namespace blockwire::cli {

namespace {
constexpr std::size_t shown = 10;
}

bool report_index_problems(const char* command, const std::string& dir, const BlockIndex& index) {
  const auto problems = index.problems();
  if (index.problem_count() == 0) return false;
  for (std::size_t i = 0; i < problems.size() && i < shown; ++i) {
    std::fprintf(stderr, "blockwire %s: %s/%s\n", command, dir.c_str(), problems[i].message().c_str());
  }
  if (index.problem_count() > shown) {
    std::fprintf(stderr, "blockwire %s: ... and %s more\n", command, with_commas(index.problem_count() - shown).c_str());
  }
  std::fprintf(stderr,
               "blockwire %s: %s: %s left out of the chain (damaged, failing proof of work, or linked to nothing); "
               "blockwire scan %s reports every damaged byte\n",
               command, dir.c_str(), count_of(index.problem_count(), "problem").c_str(), dir.c_str());
  return true;
}

void report_repair(const char* command, const std::string& dir, const BlockFileWriter& writer) {
  const auto& r = writer.repaired();
  if (!r) return;
  const bool torn = r->what == BlockFileRepair::kind::torn_record;
  std::fprintf(stderr, "blockwire %s: %s: %s (%s removed); it now ends at byte %llu of %s\n", command, dir.c_str(),
               torn ? "cut off a torn record at the end of the last blk file, left by a crash"
                    : "removed the blocks of an append that a crash interrupted",
               count_of(r->bytes, "byte").c_str(), static_cast<unsigned long long>(r->end.offset), block_file_name(r->end.file).c_str());
}

}  // namespace blockwire::cli
