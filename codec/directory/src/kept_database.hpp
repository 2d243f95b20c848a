// The LevelDB databases blockwire keeps beside a directory's kept index
// (the transaction index, the address index): opened in one way, each
// with the block it has reached under one key.
#pragma once

#include <blockwire/codec/ids.hpp>
#include <blockwire/io/error.hpp>

#include <leveldb/db.h>

#include <memory>
#include <optional>
#include <string>

namespace blockwire::detail {

struct KeptDatabase {
  std::unique_ptr<leveldb::DB> db;
  std::string path;  // its folder
};

// The database `name` in the kept index of `blocks_dir`, made when missing
// (`options` with create_if_missing and paranoid_checks set). Errors:
// std::errc::read_only_file_system where the index cannot be kept,
// device_or_resource_busy where another process has it open (LevelDB's
// lock), LevelDB's (leveldb_failure).
result<KeptDatabase> open_kept_database(const std::string& blocks_dir, const char* name, leveldb::Options options);

// The block hash stored under `key`: nothing when there is none, or when
// it is all zeros (written where no block was reached yet).
// directory::errc::bad_index_entry for a value of another size.
result<std::optional<BlockHash>> read_block_hash(leveldb::DB& db, const leveldb::Slice& key);

}  // namespace blockwire::detail
