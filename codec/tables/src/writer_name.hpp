// Temporary files' names of a writer's own: a worker Dask thinks dead may
// still be writing what another is given to write, and with one name they
// would write one file.
#pragma once

#include <string>

namespace blockwire::tables {

// 16 hex digits, 64 random bits.
std::string writer_name();

}  // namespace blockwire::tables
