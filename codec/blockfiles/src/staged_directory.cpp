#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/staged_directory.hpp>
#include <blockwire/io/file.hpp>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sys/stat.h>

namespace blockwire {

namespace {

namespace fs = std::filesystem;

error os_error() { return error(std::error_code(errno, std::system_category())); }

// The final path's own name and its parent, "a/b/" as "a/b".
fs::path normal(const std::string& final_path) {
  fs::path p = fs::absolute(final_path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p;
}

std::string stage_prefix(const fs::path& final_path) { return "." + final_path.filename().string() + ".partial-"; }

}  // namespace

result<StagedDirectory> StagedDirectory::create(const std::string& final_path) {
  const fs::path target = normal(final_path);
  std::string templ = (target.parent_path() / (stage_prefix(target) + "XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr) return os_error();
  return StagedDirectory(std::move(templ), final_path);
}

StagedDirectory::StagedDirectory(StagedDirectory&& other) noexcept
    : path_(std::move(other.path_)), final_(std::move(other.final_)), done_(other.done_) {
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
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::chmod(path_.c_str(), 0777 & ~mask) != 0) return os_error();
  if (::rename(path_.c_str(), final_.c_str()) != 0) return os_error();
  done_ = true;
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
