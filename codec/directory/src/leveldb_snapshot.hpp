// A LevelDB database of Bitcoin Core's (its block index, its chainstate)
// opened for reading without touching it, even while the node runs and
// holds its lock.
//
// LevelDB has no read-only mode: opening replays the log into a new table,
// writes a new manifest and removes what it no longer needs, and takes the
// LOCK file first. So the database is opened in a private temporary
// directory through an Env that overlays it on the node's: a file the
// private directory does not have is read from the node's (tables are
// immutable; the log and manifest are read as they are now), everything
// LevelDB writes goes to the private directory, and what it removes is
// only hidden. Nothing is copied and nothing is written into the node's
// directory. Beside a running node a table may be compacted away between
// reading the manifest and opening the table: open() tries again.
#pragma once

#include <blockwire/io/error.hpp>

#include <leveldb/options.h>
#include <leveldb/slice.h>
#include <leveldb/status.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace leveldb {
class DB;
}

namespace blockwire::detail {

class LevelDbSnapshot {
 public:
  // The database in `db_dir`. A failure is leveldb_failure's (LevelDB's
  // words its context), or std::errc::no_such_file_or_directory where
  // `db_dir` is not a directory (the caller names it). `with_logs` false:
  // its tables alone, its logs not replayed (hidden from LevelDB), for a
  // reader that streams them itself (leveldb_log.hpp); LevelDB would hold
  // a whole log in memory.
  static result<LevelDbSnapshot> open(const std::string& db_dir, bool with_logs = true);
  LevelDbSnapshot(LevelDbSnapshot&&) noexcept;
  LevelDbSnapshot& operator=(LevelDbSnapshot&&) noexcept;
  ~LevelDbSnapshot();  // closes the database and removes the private directory

  leveldb::DB& db() const noexcept;

 private:
  struct State;
  explicit LevelDbSnapshot(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

// A LevelDB key or value as bytes, and bytes as one.
inline std::span<const std::byte> bytes_of(const leveldb::Slice& s) noexcept {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}
inline leveldb::Slice slice_of(std::span<const std::byte> bytes) noexcept {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Reads as Core makes them: every block's checksum verified.
leveldb::ReadOptions checked_reads(bool fill_cache = true);

// What a LevelDB failure is: std::errc::no_such_file_or_directory,
// directory::errc::leveldb_corruption, std::errc::no_space_on_device (a full
// disk), or std::errc::io_error; its context is LevelDB's words (the
// files they name the user's, never the private directory's).
error leveldb_failure(const leveldb::Status& s);

}  // namespace blockwire::detail
