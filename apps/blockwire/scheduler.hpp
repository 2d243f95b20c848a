// export and utxos --tables on a Dask scheduler: run by Python's
// blockwire.distributed in this process's place.
#pragma once

#include <string>
#include <vector>

namespace blockwire::cli {

// Replaces this process with `python3 -m blockwire.distributed COMMAND
// ARGS...` (BLOCKWIRE_PYTHON names another interpreter; the build tree's
// package is on its path when there). Returns only when that cannot be
// run: the exit status, the problem said.
int run_on_scheduler(const char* command, const std::vector<std::string>& args);

}  // namespace blockwire::cli
