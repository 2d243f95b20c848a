// blockwire-io-example: copies a file through the io layer and checks it.
//
// The input is read through a BufferedReader in 4-byte fields (the way a
// decoder reads), written through BufferedWriter<writer_ref> to OUTPUT in the
// same fields, then OUTPUT is read back and compared with the input.
#include <blockwire/io.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace blockwire;

namespace {

constexpr const char* usage =
    "usage: blockwire-io-example INPUT [OUTPUT]\n"
    "\n"
    "Copies INPUT to OUTPUT (default: INPUT.copy) through blockwire's io layer:\n"
    "4-byte reads through a BufferedReader, 4-byte writes through a\n"
    "BufferedWriter<writer_ref> to a FileWriter, then reads OUTPUT back and\n"
    "compares. Exit status: 0 identical, 1 different, 2 usage or I/O error.\n";

int fail(const char* what, const std::string& path, const error& e) {
  std::fprintf(stderr, "blockwire-io-example: %s %s: %s\n", what, path.c_str(), e.message().c_str());
  return 2;
}

// Reads a whole file in 4-byte reads through a BufferedReader.
result<std::vector<std::byte>> read_fields(const std::string& path) {
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  BufferedReader<reader_ref> buffered{reader_ref(file.value())};
  std::vector<std::byte> out;
  for (;;) {
    std::byte field[4];
    auto n = buffered.read_some(field);
    if (!n) return n.error();
    if (n.value() == 0) return out;
    out.insert(out.end(), field, field + n.value());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(usage, argc == 2 ? stdout : stderr);
    return argc == 2 ? 0 : 2;
  }
  const std::string input = argv[1];
  const std::string output = argc == 3 ? argv[2] : input + ".copy";
  const auto start = std::chrono::steady_clock::now();

  auto data = read_fields(input);
  if (!data) return fail("cannot read", input, data.error());

  auto file = FileWriter::create(output.c_str());
  if (!file) return fail("cannot create", output, file.error());
  BufferedWriter<writer_ref> w{writer_ref(file.value())};
  const std::span<const std::byte> bytes(data.value());
  std::size_t i = 0;
  for (; i + 4 <= bytes.size(); i += 4) w.write(bytes.subspan(i).first<4>());
  w.write(bytes.subspan(i));
  if (auto r = w.flush(); !r) return fail("cannot write", output, r.error());
  if (auto r = file.value().close(); !r) return fail("cannot close", output, r.error());

  auto back = read_fields(output);
  if (!back) return fail("cannot read back", output, back.error());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const bool same = back.value() == data.value();
  std::printf("%s -> %s: %zu bytes written as %zu 4-byte fields, read back %s (%.1f ms, %.0f MB/s)\n", input.c_str(), output.c_str(),
              bytes.size(), (bytes.size() + 3) / 4, same ? "identical" : "DIFFERENT", seconds * 1e3,
              3.0 * static_cast<double>(bytes.size()) / seconds / 1e6);
  return same ? 0 : 1;
}
