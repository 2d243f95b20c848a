// A new blocks directory made whole or not at all: written under a hidden
// temporary name beside its place (".NAME.partial-XXXXXX", six random
// letters and digits), and renamed into place once complete, the rename
// synced. What a
// crash leaves of one is a staged directory no writer holds: the next
// writer removes it (remove_dead_stages).
#pragma once

#include <blockwire/io/error.hpp>

#include <string>
#include <vector>

namespace blockwire {

class StagedDirectory {
 public:
  // A staged directory beside `final_path` (which must not be there, or be
  // an empty directory). Error: the system's.
  static result<StagedDirectory> create(const std::string& final_path);
  StagedDirectory(StagedDirectory&& other) noexcept;  // the moved-from one removes nothing
  StagedDirectory& operator=(StagedDirectory&&) = delete;
  StagedDirectory(const StagedDirectory&) = delete;
  // Removes it, unless published.
  ~StagedDirectory();

  // Where to write now.
  const std::string& path() const noexcept { return path_; }
  // Renames it to its place (rename(2) replaces an empty directory: a
  // non-empty one means another writer got there first) and syncs the
  // parent, so that a power cut cannot make it look like a dead writer's.
  // Errors: the system's; published() says whether the rename was done.
  result<void> publish();
  bool published() const noexcept { return published_; }
  // Removes it now (what was written to it with it).
  void abandon() noexcept;

 private:
  StagedDirectory(std::string path, std::string final_path) : path_(std::move(path)), final_(std::move(final_path)) {}
  std::string path_;
  std::string final_;
  bool done_ = false;
  bool published_ = false;
};

// The staged directories beside `final_path` of writers that died (kill -9,
// a power cut): those whose lock no writer holds (being_written), or that
// have no lock file and are over a minute old (one just made has none
// yet). Removed; returns their paths.
std::vector<std::string> remove_dead_stages(const std::string& final_path);

}  // namespace blockwire
