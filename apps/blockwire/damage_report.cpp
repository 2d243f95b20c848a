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
  if (const auto& r = writer.repaired()) std::fprintf(stderr, "blockwire %s: %s\n", command, r->message(dir).c_str());
}

}  // namespace blockwire::cli
