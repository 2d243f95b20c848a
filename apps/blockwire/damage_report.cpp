#include "damage_report.hpp"

#include "text.hpp"

#include <blockwire/directory/chain_walk.hpp>

#include <cstdio>

namespace blockwire::cli {

bool report_index_problems(const char* command, const std::string& dir, const BlockIndex& index) {
  const std::vector<std::string> notes = index_problem_notes(dir, index);
  for (const std::string& note : notes) std::fprintf(stderr, "blockwire %s: %s\n", command, note.c_str());
  return !notes.empty();
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
