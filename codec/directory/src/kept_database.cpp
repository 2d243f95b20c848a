#include "kept_database.hpp"

#include "leveldb_snapshot.hpp"

#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/error.hpp>

#include <filesystem>

namespace blockwire::detail {

result<KeptDatabase> open_kept_database(const std::string& blocks_dir, const char* name, leveldb::Options options) {
  namespace fs = std::filesystem;
  const std::string kept = BlocksDirectory::kept_index_path(blocks_dir);
  if (kept.empty()) {
    // (the caller names the directory)
    return error(std::make_error_code(std::errc::read_only_file_system)).in("there is nowhere to keep the index");
  }
  std::error_code ec;
  fs::create_directories(kept, ec);
  if (ec) return error(ec).in(kept);
  KeptDatabase out;
  out.path = (fs::path(kept) / name).string();
  options.create_if_missing = true;
  options.paranoid_checks = true;
  leveldb::DB* db = nullptr;
  const leveldb::Status s = leveldb::DB::Open(options, out.path, &db);
  if (s.IsIOError() && s.ToString().find("/LOCK") != std::string::npos) {
    // (LevelDB's lock: one process at a time)
    return error(std::make_error_code(std::errc::device_or_resource_busy))
        .in("another process has " + out.path + " open (a rest of the same directory?)");
  }
  if (!s.ok()) return leveldb_failure(s);
  out.db.reset(db);
  return out;
}

result<std::optional<BlockHash>> read_block_hash(leveldb::DB& db, const leveldb::Slice& key) {
  std::string v;
  const leveldb::Status s = db.Get(checked_reads(), key, &v);
  if (s.IsNotFound()) return std::optional<BlockHash>{};
  if (!s.ok()) return leveldb_failure(s);
  if (v.size() != 32) return error(directory::errc::bad_index_entry);
  const BlockHash at = BlockHash::from_bytes(bytes_of(leveldb::Slice(v)).first<32>());
  if (at.is_all_zeros()) return std::optional<BlockHash>{};
  return std::optional<BlockHash>(at);
}

}  // namespace blockwire::detail
