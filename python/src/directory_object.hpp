// A blocks directory opened for Python: the library's BlocksDirectory
// behind a lock, since the interpreter's is released while it reads and
// two threads may call it at once. Readers share it (the library's reads
// are safe side by side: export's threads read one directory); refresh()
// takes it alone.
#pragma once

#include "bindings.hpp"

#include <blockwire/directory.hpp>

#include <memory>
#include <shared_mutex>

namespace blockwire::python {

// Every use of `dir` holds `lock`, shared, and refresh() alone (it
// changes the index, and may replace the whole object, under the readers); an IndexedBlock is used
// under the same hold that found it (its id means nothing after a
// refresh). Whoever holds the lock never waits for the interpreter's; and
// it is waited for with the interpreter's released (Unlocked, or a
// call_guard of it), since a refresh may hold it for long: the other
// Python threads go on meanwhile.
struct DirectoryObject {
  DirectoryObject(BlocksDirectory opened, std::string opened_path) : dir(std::move(opened)), path(std::move(opened_path)) {}
  BlocksDirectory dir;
  const std::string path;  // as opened
  mutable std::shared_mutex lock;

  std::size_t size() const {
    const std::shared_lock held(lock);
    return dir.chain_size().value();
  }
  // The best chain's block at `height`, `lock` held; IndexError (a C++
  // exception until pybind11 translates it: safe without the
  // interpreter's lock) past the tip.
  IndexedBlock at_held(std::int64_t height) const {
    const auto at = Height::checked(height);
    if (!at || !dir.chain_size().contains(*at)) {
      throw py::index_error("height " + std::to_string(height) + " is not in the best chain (0 to " +
                            std::to_string(dir.chain_size().value()) + " - 1)");
    }
    return dir.at_height(*at);
  }
  IndexedBlock at(std::int64_t height) const {
    const std::shared_lock held(lock);
    return at_held(height);
  }
};

using DirectoryPtr = std::shared_ptr<DirectoryObject>;

// A height a Python caller named, or ValueError naming `what` where no
// block could be at it (past 2^31 - 1).
inline Height height_named(std::uint64_t value, const char* what) {
  const auto height = Height::checked(value);
  if (!height) throw py::value_error(std::string(what) + " " + std::to_string(value) + " is past any block's height (2^31 - 1)");
  return *height;
}

// Heights [start, stop) of the best chain, stop defaulting to its length,
// checked (IndexError, ValueError).
std::pair<std::size_t, std::size_t> height_range(const DirectoryObject& d, std::int64_t start, std::optional<std::int64_t> stop);

// export's rows of `table` in heights [start, stop): NDJSON's as dicts,
// lazily; CSV's as a pandas DataFrame (tables.cpp).
py::object export_rows(const DirectoryPtr& d, const std::string& table, std::int64_t start, std::optional<std::int64_t> stop);
py::object export_table(const DirectoryPtr& d, const std::string& table, std::int64_t start, std::optional<std::int64_t> stop);

}  // namespace blockwire::python
