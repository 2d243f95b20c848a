// Bitcoin Core's block files.
//   WriteBlockBench_Append     BlockFileWriter::append(block413567): encode
//                              through a 64 KiB buffer, XOR in that buffer,
//                              write(2) to a file in /tmp (the file grows and
//                              rolls over at 128 MiB, as Core's does)
//   WriteBlockBench_Overwrite  the same record rewritten at offset 0 each time
//   ReadBlockBench             open the blk file, read and un-XOR the record
//                              at an offset, decode the block
//   FindByte_{Memchr,StdFind}_{Start,End}  the first byte of the magic in
//                              16 MiB: at the start (the real case: records
//                              follow each other) and at the very end
#include "detail/encoders.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <benchmark/benchmark.h>

#include "block_data.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <unistd.h>

using namespace blockwire;
namespace fs = std::filesystem;

namespace {

const XorKey key{std::byte{0x3c}, std::byte{0x91}, std::byte{0x0e}, std::byte{0x7a},
                 std::byte{0xd2}, std::byte{0x55}, std::byte{0x08}, std::byte{0xe1}};

fs::path temp_dir() {
  std::string templ = (fs::temp_directory_path() / "blockwire-bench-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) std::abort();
  return templ;
}

void WriteBlockBench_Append(benchmark::State& state) {
  const Block block = decode_block(test::block413567()).value();
  const fs::path dir = temp_dir();
  auto writer = BlockFileWriter::open(dir.string(), key);
  if (!writer) {
    state.SkipWithError("cannot open the directory");
    return;
  }
  for (auto _ : state) {
    if (!writer.value().append(block)) state.SkipWithError("append failed");
  }
  (void)writer.value().close();
  fs::remove_all(dir);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * test::block413567().size()));
}

void WriteBlockBench_Overwrite(benchmark::State& state) {
  const Block block = decode_block(test::block413567()).value();
  const fs::path dir = temp_dir();
  auto file = FileWriter::create((dir / "blk00000.dat").c_str());
  const Magic m = magic(network::mainnet);
  for (auto _ : state) {
    ::lseek(file.value().fd(), 0, SEEK_SET);
    XorWriter<FileWriter&> obfuscated(file.value(), key, 0);
    BufferedWriter<XorWriter<FileWriter&>&, 64 * 1024> w(obfuscated);
    w.write(std::span<const std::byte, 4>(m));
    wire::encode_u32(w, static_cast<std::uint32_t>(serialized_size(block)));
    detail::encode_block(w, block, witness::allow);
    if (!w.flush()) state.SkipWithError("write failed");
  }
  fs::remove_all(dir);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * test::block413567().size()));
}

void ReadBlockBench(benchmark::State& state) {
  const fs::path dir = temp_dir();
  std::uint64_t offset = 0;
  {
    auto writer = BlockFileWriter::open(dir.string(), key);
    (void)writer.value().append(test::segwit_block());
    offset = writer.value().append(test::block413567()).value().offset;
    (void)writer.value().close();
  }
  const std::string path = (dir / "blk00000.dat").string();
  for (auto _ : state) {
    auto file = FileReader::open(path.c_str());
    ::lseek(file.value().fd(), static_cast<off_t>(offset), SEEK_SET);
    BlockFileReader reader(file.value(), key, network::mainnet, offset);
    auto event = reader.next();
    const auto* record = event && event.value() ? std::get_if<BlockRecord>(&*event.value()) : nullptr;
    if (record == nullptr) {
      state.SkipWithError("no record");
      break;
    }
    auto block = decode_block(record->bytes);
    if (!block) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(block);
  }
  fs::remove_all(dir);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * test::block413567().size()));
}

// 16 MiB of a byte that is not the magic's first, with 0xf9 at `where`.
std::vector<std::byte> haystack(bool at_end) {
  std::vector<std::byte> v(16 << 20, std::byte{0x42});
  v[at_end ? v.size() - 1 : 0] = std::byte{0xf9};
  return v;
}

template <bool AtEnd>
void FindByte_Memchr(benchmark::State& state) {
  const auto v = haystack(AtEnd);
  for (auto _ : state) benchmark::DoNotOptimize(std::memchr(v.data(), 0xf9, v.size()));
}

template <bool AtEnd>
void FindByte_StdFind(benchmark::State& state) {
  const auto v = haystack(AtEnd);
  for (auto _ : state) benchmark::DoNotOptimize(std::find(v.begin(), v.end(), std::byte{0xf9}));
}

}  // namespace

BENCHMARK(WriteBlockBench_Append)->Unit(benchmark::kMicrosecond);
BENCHMARK(WriteBlockBench_Overwrite)->Unit(benchmark::kMicrosecond);
BENCHMARK(ReadBlockBench)->Unit(benchmark::kMicrosecond);
BENCHMARK(FindByte_Memchr<false>)->Name("FindByte_Memchr_Start");
BENCHMARK(FindByte_StdFind<false>)->Name("FindByte_StdFind_Start");
BENCHMARK(FindByte_Memchr<true>)->Name("FindByte_Memchr_End")->Unit(benchmark::kMicrosecond);
BENCHMARK(FindByte_StdFind<true>)->Name("FindByte_StdFind_End")->Unit(benchmark::kMicrosecond);
