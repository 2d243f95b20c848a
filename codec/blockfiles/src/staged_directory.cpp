#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/staged_directory.hpp>
#include <blockwire/io/file.hpp>

#include <cerrno>
#include <chrono>
#include <random>
#include <filesystem>
#include <sys/stat.h>

namespace blockwire {

namespace {

namespace fs = std::filesystem;

// The final path's own name and its parent, "a/b/" as "a/b".
fs::path normal(const std::string& final_path) {
  fs::path p = fs::absolute(final_path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p;
}

std::string stage_prefix(const fs::path& final_path) {
  std::string prefix(1, '.');
  prefix += final_path.filename().string();
  prefix += ".partial-";
  return prefix;
}

}  // namespace

result<StagedDirectory> StagedDirectory::create(const std::string& final_path) {
  // mkdir(2) with 0777, so that the process's umask applies as to any
  // directory it makes (mkdtemp's 0700 would need a chmod, and reading the
  // umask means setting it: process-wide, racing other threads).
  const fs::path target = normal(final_path);
  static constexpr char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = stage_prefix(target);
    for (int i = 0; i < 6; ++i) name += letters[random() % (sizeof letters - 1)];
    const std::string path = (target.parent_path() / name).string();
    if (::mkdir(path.c_str(), 0777) == 0) return StagedDirectory(path, final_path);
    if (errno != EEXIST) return last_system_error();
  }
  return error(std::make_error_code(std::errc::file_exists));
}

StagedDirectory::StagedDirectory(StagedDirectory&& other) noexcept
    : path_(std::move(other.path_)), final_(std::move(other.final_)), done_(other.done_), published_(other.published_) {
  other.done_ = true;
}

StagedDirectory::~StagedDirectory() { abandon(); }

void StagedDirectory::abandon() noexcept {
  if (done_) return;
  done_ = true;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

result<void> StagedDirectory::publish() {
  if (::rename(path_.c_str(), final_.c_str()) != 0) return last_system_error();
  done_ = true;
  published_ = true;
  return sync_directory(normal(final_).parent_path().c_str());
}

std::vector<std::string> remove_dead_stages(const std::string& final_path) {
  const fs::path target = normal(final_path);
  const std::string prefix = stage_prefix(target);
  std::vector<std::string> removed;
  std::error_code ec;
  for (fs::directory_iterator it(target.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || name.size() != prefix.size() + 6 || !it->is_directory(ec)) continue;
    if (being_written(it->path().string())) continue;  // a writer at work
    // One with no lock file yet may be a writer's that has just made it.
    if (!fs::exists(it->path() / ".lock", ec)) {
      const auto age = fs::file_time_type::clock::now() - fs::last_write_time(it->path(), ec);
      if (ec || age < std::chrono::minutes(1)) continue;
    }
    std::error_code failed;
    fs::remove_all(it->path(), failed);
    if (!failed) removed.push_back(it->path().string());
  }
  return removed;
}

}  // namespace blockwire
