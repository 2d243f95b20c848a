// A new blocks directory made whole or not at all: written under a hidden
// temporary name beside its place (".NAME.partial-XXXXXX", made with
// mkdtemp), and renamed into place once complete, the rename synced. What a
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
  StagedDirectory(StagedDirectory&& other) noexcept;
  StagedDirectory& operator=(StagedDirectory&&) = delete;
  StagedDirectory(const StagedDirectory&) = delete;
  // Removes it, unless published.
  ~StagedDirectory();

  // Where to write now.
  const std::string& path() const noexcept { return path_; }
  // Gives it the permissions a directory made by mkdir(2) would have
  // (mkdtemp makes it 0700), renames it to its place (rename(2) replaces
  // an empty directory: a non-empty one means another writer got there
  // first) and syncs the parent, so that a power cut cannot make it look
  // like a dead writer's. Errors: the system's.
  result<void> publish();
  // Removes it now (what was written to it with it).
  void abandon() noexcept;

 private:
  StagedDirectory(std::string path, std::string final_path) : path_(std::move(path)), final_(std::move(final_path)) {}
  std::string path_;
  std::string final_;
  bool done_ = false;
};

// The staged directories beside `final_path` of writers that died (kill -9,
// a power cut): those whose lock no writer holds (being_written), or that
// have no lock file and are over a minute old (one just made has none
// yet). Removed; returns their paths.
std::vector<std::string> remove_dead_stages(const std::string& final_path);

}  // namespace blockwire
