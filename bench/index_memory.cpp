// What a directory's index holds in memory: opens DIR as every command
// does (no undo data) and prints, as JSON, where the index came from, its
// blocks, and its arrays' bytes (BlockIndex::memory_bytes) in all and a
// block. For bench/instant_start.
//   index_memory DIR
#include <blockwire/directory.hpp>

#include <cstdio>

using namespace blockwire;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: index_memory DIR\n");
    return 2;
  }
  BlocksDirectory::Options options;
  options.undo = false;
  auto dir = BlocksDirectory::open(argv[1], options);
  if (!dir) {
    std::fprintf(stderr, "index_memory: %s\n", dir.error().message().c_str());
    return 2;
  }
  const BlockIndex& index = dir.value().index();
  static constexpr const char* sources[] = {"kept_index", "core_index", "blk_files"};
  const auto blocks = index.size();
  std::printf("{\"source\": \"%s\", \"blocks\": %zu, \"bytes\": %zu, \"bytes_per_block\": %.1f}\n",
              sources[static_cast<int>(dir.value().source())], blocks, index.memory_bytes(),
              blocks == 0 ? 0.0 : static_cast<double>(index.memory_bytes()) / static_cast<double>(blocks));
  return 0;
}
