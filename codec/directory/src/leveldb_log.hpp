// LevelDB's write-ahead log read as a stream, without building a memtable
// of it: a node that flushed a long initial download in one batch leaves
// its whole block index in the log, and LevelDB's own open replays all of
// it into memory (and a new table) before a key can be read.
//
// The formats are LevelDB's documented ones (doc/log_format.md, and
// write_batch.cc's comment for a batch): the log is 32 KiB blocks of
// records, each a 7-byte header (masked CRC-32C of the type and payload,
// the length, the type: full, first, middle, last) and its payload; a
// record is a WriteBatch (sequence number, count, then each entry a tag,
// put or delete, and its length-prefixed key and value). The manifest is
// such a log of version edits; of them only the log numbers are read.
#pragma once

#include <blockwire/io/error.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire::detail {

// The log files a database still needs, in the order they were written:
// the numbers its manifest gives (its log number, and the one before it
// while a compaction of that one is under way), as DBImpl::Recover picks
// them. Errors: no CURRENT or manifest (std::errc::no_such_file_or_directory),
// a damaged one (directory::errc::leveldb_corruption); the error's context
// names the file and what is wrong with it.
result<std::vector<std::string>> live_logs(const std::string& db_dir);

// Every entry of every batch in the log file `path`, in the order they
// were written: `each(key, value)` for a put, `value` nothing for a
// delete. A record whose checksum fails, or a batch that does not decode,
// is directory::errc::leveldb_corruption (as LevelDB's paranoid_checks
// make it), its context `path` and what is wrong there; a record cut short
// at the end of the file (a writer that died mid-append) ends the log, as
// LevelDB reads it.
using LogEntry = std::function<void(std::string_view key, std::optional<std::string_view> value)>;
result<void> read_log(const std::string& path, const LogEntry& each);

}  // namespace blockwire::detail
