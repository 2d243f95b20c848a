#include <blockwire/io.hpp>

#include <doctest/doctest.h>

#include "../support/temp_dir.hpp"
#include "test_support.hpp"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace blockwire;

namespace {

std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> text{std::istreambuf_iterator<char>(in), {}};
  const auto bytes = std::as_bytes(std::span{text});
  return {bytes.begin(), bytes.end()};
}

// Through a BufferedWriter, in the wire format's pieces, then finished.
void write_and_finish(const std::string& path, std::span<const std::byte> data, bool* direct) {
  auto file = DirectFileWriter::create(path.c_str());
  REQUIRE(file);
  *direct = file.value().direct();
  BufferedWriter<DirectFileWriter&> w(file.value());
  test::write_in_pieces(w, data, 7);
  REQUIRE(w.flush());
  REQUIRE(file.value().finish());
}

}  // namespace

TEST_CASE("DirectFileWriter: what is written, of every length around its 4 KiB blocks and 1 MiB memory, is the file") {
  test::TempDir dir;
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097}, std::size_t{1 << 20},
                              std::size_t{(1 << 20) + 1}, std::size_t{3'300'017}}) {
    CAPTURE(n);
    const auto data = test::random_bytes(n, n);
    bool direct = false;
    write_and_finish(dir.file("out"), data, &direct);
    CHECK(read_file(dir.file("out")) == data);
  }
}

TEST_CASE("DirectFileWriter: a large write in one piece, and a file system without O_DIRECT (tmpfs) written through the cache") {
  const auto data = test::random_bytes(5'000'000 + 3, 9);
  for (const std::string& base : {std::filesystem::temp_directory_path().string(), std::string("/dev/shm")}) {
    if (!std::filesystem::is_directory(base)) continue;
    CAPTURE(base);
    const std::string path = base + "/blockwire-direct-test-" + std::to_string(::getpid());
    auto file = DirectFileWriter::create(path.c_str());
    REQUIRE(file);
    REQUIRE(file.value().write(data));
    REQUIRE(file.value().finish());
    CHECK(read_file(path) == data);
    std::filesystem::remove(path);
  }
}

TEST_CASE("DirectFileWriter: no space left is an error at finish(), not a short file said to be whole") {
  auto file = DirectFileWriter::create("/dev/full");
  REQUIRE(file);
  BufferedWriter<DirectFileWriter&> w(file.value());
  test::write_in_pieces(w, test::random_bytes(3'000'000, 3), 2);
  CHECK(w.flush());  // the buffer commits into the writer's memory
  auto r = file.value().finish();
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == std::errc::no_space_on_device);
}
