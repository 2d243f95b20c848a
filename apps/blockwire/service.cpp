#include "service.hpp"

#include <systemd/sd-daemon.h>

#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>

namespace blockwire::cli::service {

namespace {

void notify(const std::string& state) {
  // (sd_notify does nothing without NOTIFY_SOCKET; its failure costs the
  // unit its readiness, which systemd then says: nothing to do here)
  (void)sd_notify(0, state.c_str());
}

// Whether standard error is the stream systemd connected to the journal.
bool to_journal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  unsigned long long device = 0;
  unsigned long long inode = 0;
  struct stat st {};
  return std::sscanf(stream, "%llu:%llu", &device, &inode) == 2 && ::fstat(2, &st) == 0 && st.st_dev == device && st.st_ino == inode;
}

}  // namespace

void ready(const std::string& status) { notify("READY=1\nSTATUS=" + status); }

void status(const std::string& status) { notify("STATUS=" + status); }

void stopping() { notify("STOPPING=1\nSTATUS=stopping"); }

std::string tip_status(const std::string& dir, const std::string& network, std::optional<Height> tip) {
  return dir + " (" + network + "): " + (tip ? "tip " + to_string(*tip) : std::string("no blocks yet"));
}

const char* prefix(level l) {
  static const bool journal = to_journal();
  if (!journal) return "";
  switch (l) {
    case level::error: return "<3>";
    case level::warning: return "<4>";
    case level::notice: return "<5>";
    case level::info: return "<6>";
  }
  return "";
}

}  // namespace blockwire::cli::service
