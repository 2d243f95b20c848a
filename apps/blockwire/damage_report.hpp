// Damage in a blocks directory, said the same way by every command: what
// its index left out, and what a writer repaired of a crash on open.
#pragma once

#include <blockwire/blockfiles.hpp>

#include <string>

namespace blockwire::cli {

// Prints the index's problems to standard error, the first few in full and
// then how many in all, each line prefixed by "blockwire COMMAND: ".
// Returns whether there were any: the command's exit status is then
// bad_data (serve, which runs on, only says so).
bool report_index_problems(const char* command, const std::string& dir, const BlockIndex& index);

// What BlockFileWriter::open repaired (a torn record, an unfinished
// batch), if anything, on standard error.
void report_repair(const char* command, const std::string& dir, const BlockFileWriter& writer);

}  // namespace blockwire::cli
