#include "leveldb_snapshot.hpp"

#include <blockwire/directory/error.hpp>
#include <blockwire/io/file.hpp>

#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/options.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string_view>
#include <system_error>
#include <vector>

namespace blockwire::detail {
namespace {

namespace fs = std::filesystem;

// A file LevelDB writes into the private directory: durability is not
// wanted there (the directory goes when the snapshot does), so no fsync.
class UnsyncedFile final : public leveldb::WritableFile {
 public:
  explicit UnsyncedFile(leveldb::WritableFile* file) : file_(file) {}
  leveldb::Status Append(const leveldb::Slice& data) override { return file_->Append(data); }
  leveldb::Status Close() override { return file_->Close(); }
  leveldb::Status Flush() override { return file_->Flush(); }
  leveldb::Status Sync() override { return file_->Flush(); }

 private:
  std::unique_ptr<leveldb::WritableFile> file_;
};

// A table read with pread(2), not mapped: mapped tables' pages count as
// the process's resident memory (the whole index, read once, would).
class PreadFile final : public leveldb::RandomAccessFile {
 public:
  PreadFile(std::string name, int fd) : name_(std::move(name)), fd_(fd) {}
  ~PreadFile() override { ::close(fd_); }
  leveldb::Status Read(std::uint64_t offset, std::size_t n, leveldb::Slice* result, char* scratch) const override {
    std::size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd_, scratch + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return leveldb::Status::IOError(name_, std::strerror(errno));
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    *result = leveldb::Slice(scratch, done);
    return leveldb::Status::OK();
  }

 private:
  std::string name_;
  int fd_;
};

class SilentLogger final : public leveldb::Logger {
 public:
  void Logv(const char*, std::va_list) override {}
};

// The private directory `mine` laid over the node's `theirs`: reads find a
// file in `mine` first, then in `theirs` unless LevelDB removed it; every
// write, rename and lock is in `mine`.
class OverlayEnv final : public leveldb::EnvWrapper {
 public:
  OverlayEnv(std::string mine, std::string theirs, bool hide_logs)
      : EnvWrapper(leveldb::Env::Default()), mine_(std::move(mine)), theirs_(std::move(theirs)), hide_logs_(hide_logs) {}

  leveldb::Status NewSequentialFile(const std::string& f, leveldb::SequentialFile** r) override {
    return target()->NewSequentialFile(source(f), r);
  }
  leveldb::Status NewRandomAccessFile(const std::string& f, leveldb::RandomAccessFile** r) override {
    const std::string path = source(f);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return errno == ENOENT ? leveldb::Status::NotFound(path, std::strerror(errno)) : leveldb::Status::IOError(path, std::strerror(errno));
    }
    *r = new PreadFile(path, fd);
    return leveldb::Status::OK();
  }
  leveldb::Status NewWritableFile(const std::string& f, leveldb::WritableFile** r) override {
    unhide(f);
    leveldb::WritableFile* file = nullptr;
    leveldb::Status s = target()->NewWritableFile(f, &file);
    if (s.ok()) *r = new UnsyncedFile(file);
    return s;
  }
  leveldb::Status NewAppendableFile(const std::string& f, leveldb::WritableFile** r) override {
    // Only its own files: appending to one of the node's would write there.
    if (!own(f)) return leveldb::Status::NotSupported("appending to the node's file", f);
    return target()->NewAppendableFile(f, r);
  }
  bool FileExists(const std::string& f) override { return target()->FileExists(source(f)); }
  leveldb::Status GetChildren(const std::string& dir, std::vector<std::string>* r) override {
    if (dir != mine_) return target()->GetChildren(dir, r);
    std::set<std::string> names;
    std::vector<std::string> some;
    if (auto s = target()->GetChildren(theirs_, &some); !s.ok()) return s;
    {
      const std::lock_guard lock(mutex_);
      for (std::string& n : some) {
        if (hide_logs_ && n.ends_with(".log")) continue;
        if (!hidden_.contains(n) && n != "LOCK" && n.rfind("LOG", 0) != 0) names.insert(std::move(n));
      }
    }
    some.clear();
    if (auto s = target()->GetChildren(mine_, &some); !s.ok()) return s;
    names.insert(some.begin(), some.end());
    r->assign(names.begin(), names.end());
    return leveldb::Status::OK();
  }
  leveldb::Status RemoveFile(const std::string& f) override {
    if (own(f)) return target()->RemoveFile(f);
    const std::lock_guard lock(mutex_);
    hidden_.insert(name(f));
    return leveldb::Status::OK();
  }
  leveldb::Status RenameFile(const std::string& from, const std::string& to) override {
    if (!own(from)) return leveldb::Status::NotSupported("renaming the node's file", from);
    unhide(to);
    return target()->RenameFile(from, to);
  }
  leveldb::Status GetFileSize(const std::string& f, std::uint64_t* size) override { return target()->GetFileSize(source(f), size); }

 private:
  static std::string name(const std::string& path) { return fs::path(path).filename().string(); }
  bool in_mine(const std::string& path) const { return fs::path(path).parent_path() == fs::path(mine_); }
  // Whether `path` is a file of the private directory itself (or not in
  // the database's directory at all).
  bool own(const std::string& path) const {
    if (!in_mine(path)) return true;
    std::error_code ec;
    return fs::exists(path, ec);
  }
  void unhide(const std::string& path) {
    const std::lock_guard lock(mutex_);
    if (in_mine(path)) hidden_.erase(name(path));
  }
  // Where a read of `path` goes.
  std::string source(const std::string& path) {
    if (own(path)) return path;
    const std::lock_guard lock(mutex_);
    if (hidden_.contains(name(path))) return path;  // (not found in the private directory)
    return (fs::path(theirs_) / name(path)).string();
  }

  std::string mine_;
  std::string theirs_;
  bool hide_logs_;
  std::mutex mutex_;
  std::set<std::string> hidden_;
};

// The private directories open now, each with the node's directory it
// stands for: LevelDB's words name the files it opened, and a person
// should read the path they gave, never the private one.
std::mutex private_dirs_mutex;
std::vector<std::pair<std::string, std::string>> private_dirs;

std::string in_users_words(std::string text) {
  const std::lock_guard lock(private_dirs_mutex);
  for (const auto& [mine, theirs] : private_dirs) {
    for (std::size_t at = text.find(mine); at != std::string::npos; at = text.find(mine, at + theirs.size())) {
      text.replace(at, mine.size(), theirs);
    }
  }
  return text;
}

constexpr const char* private_prefix = "blockwire-leveldb-";

// Private directories a killed process left behind (its PID is in the
// name, and no such process runs): removed, so that kill -9 leaves no
// litter that grows.
void remove_abandoned(const fs::path& temp) {
  std::error_code ec;
  for (fs::directory_iterator it(temp, ec), end; !ec && it != end; it.increment(ec)) {
    if (!left_by_dead_process(it->path().filename().string(), private_prefix)) continue;
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

}  // namespace

leveldb::ReadOptions checked_reads(bool fill_cache) {
  leveldb::ReadOptions options;
  options.verify_checksums = true;
  options.fill_cache = fill_cache;
  return options;
}

error leveldb_failure(const leveldb::Status& s) {
  const std::string words = in_users_words(s.ToString());
  error e = std::make_error_code(std::errc::io_error);
  if (s.IsNotFound()) {
    e = std::make_error_code(std::errc::no_such_file_or_directory);
  } else if (s.IsCorruption()) {
    e = directory::errc::leveldb_corruption;
  } else if (words.find(std::strerror(ENOSPC)) != std::string::npos) {
    // LevelDB keeps the system's words, not its code: a full disk said as
    // one (the user frees room), not as a failing device.
    e = std::make_error_code(std::errc::no_space_on_device);
  }
  // (the system's words LevelDB ends with, where they are the code's:
  // said once, by the code)
  std::string_view context = words;
  if (const std::string said = ": " + e.code().message(); context.size() > said.size() && context.ends_with(said)) {
    context.remove_suffix(said.size());
  }
  return e.in(context);
}

struct LevelDbSnapshot::State {
  std::string dir;  // the private one
  std::unique_ptr<OverlayEnv> env;
  SilentLogger logger;
  std::unique_ptr<leveldb::DB> db;

  ~State() {
    db.reset();
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
    const std::lock_guard lock(private_dirs_mutex);
    std::erase_if(private_dirs, [&](const auto& p) { return p.first == dir; });
  }
};

LevelDbSnapshot::LevelDbSnapshot(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
LevelDbSnapshot::LevelDbSnapshot(LevelDbSnapshot&&) noexcept = default;
LevelDbSnapshot& LevelDbSnapshot::operator=(LevelDbSnapshot&&) noexcept = default;
LevelDbSnapshot::~LevelDbSnapshot() = default;

leveldb::DB& LevelDbSnapshot::db() const noexcept { return *state_->db; }

result<LevelDbSnapshot> LevelDbSnapshot::open(const std::string& db_dir, bool with_logs) {
  std::error_code ec;
  if (!fs::is_directory(db_dir, ec)) return std::make_error_code(std::errc::no_such_file_or_directory);
  const std::string theirs = fs::absolute(db_dir, ec).lexically_normal().string();
  const fs::path temp = fs::temp_directory_path(ec);
  remove_abandoned(temp);
  error failure;
  // A table compacted away beside a running node while the manifest was
  // read: the next try reads the new manifest.
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto state = std::make_unique<State>();
    std::string pattern = (temp / (private_prefix + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) return last_system_error();
    state->dir = pattern;
    {
      const std::lock_guard lock(private_dirs_mutex);
      private_dirs.emplace_back(pattern, theirs);
    }
    state->env = std::make_unique<OverlayEnv>(state->dir, theirs, !with_logs);
    leveldb::Options options;
    options.env = state->env.get();
    options.info_log = &state->logger;
    options.create_if_missing = false;
    // As Core opens them: a damaged log record, table block or manifest is
    // an error, never skipped (a short set given as whole).
    options.paranoid_checks = true;
    options.max_open_files = 64;
    options.compression = leveldb::kNoCompression;  // (the table its log is replayed into: read once, thrown away)
    leveldb::DB* db = nullptr;
    const leveldb::Status status = leveldb::DB::Open(options, state->dir, &db);
    if (status.ok()) {
      state->db.reset(db);
      return LevelDbSnapshot(std::move(state));
    }
    failure = leveldb_failure(status);  // (while the private directory is known: LevelDB's words may name it)
  }
  return failure;
}

}  // namespace blockwire::detail
