// Decodes a block file given on the command line and prints its hash.
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  auto file = blockwire::FileReader::open(argv[1]);
  if (!file) return 2;
  blockwire::StreamReader in{blockwire::reader_ref(file.value())};
  auto block = blockwire::decode_block(in);
  if (!block) {
    std::fprintf(stderr, "%s\n", block.error().message().c_str());
    return 1;
  }
  std::printf("%s %zu\n", blockwire::block_hash(block.value().header).to_hex().c_str(), block.value().transactions.size());
  return 0;
}
