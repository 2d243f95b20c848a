// --scheduler: the command becomes `python3 -m blockwire.distributed ...`
// (the Dask client is Python's), which locks OUT, reports and exits as the
// command does.
#include "scheduler.hpp"
#include "commands.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#ifndef BLOCKWIRE_PYTHON_EXECUTABLE
#define BLOCKWIRE_PYTHON_EXECUTABLE "python3"
#endif

namespace blockwire::cli {

int run_on_scheduler(const char* command, const std::vector<std::string>& args) {
  const char* chosen = std::getenv("BLOCKWIRE_PYTHON");
  const std::string python = chosen != nullptr && *chosen != '\0' ? chosen : BLOCKWIRE_PYTHON_EXECUTABLE;
  std::vector<std::string> line = {python, "-m", "blockwire.distributed", command};
  line.insert(line.end(), args.begin(), args.end());
#ifdef BLOCKWIRE_PYTHON_DIR
  // The build tree's package, after the user's own path: an installed
  // blockwire (pip install .) is found without it.
  if (std::error_code ec; std::filesystem::is_directory(BLOCKWIRE_PYTHON_DIR "/blockwire", ec)) {
    const char* path = std::getenv("PYTHONPATH");
    std::string value = path != nullptr && *path != '\0' ? std::string(path) + ":" : std::string();
    value += BLOCKWIRE_PYTHON_DIR;
    ::setenv("PYTHONPATH", value.c_str(), 1);
  }
#endif
  std::vector<char*> argv;
  for (std::string& a : line) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  ::execvp(argv[0], argv.data());
  std::fprintf(stderr,
               "blockwire %s: --scheduler runs Python's blockwire.distributed, but %s could not be run: %s (BLOCKWIRE_PYTHON\n"
               "names an interpreter that has blockwire and Dask's distributed; see docs/export.md)\n",
               command, python.c_str(), std::strerror(errno));
  return usage_or_io;
}

}  // namespace blockwire::cli
