// Undo data: the undo data of a block shaped like 413567 (a coin for each
// of its inputs; scripts and values taken from the block's own outputs,
// mostly P2PKH as in 2016, heights near 413,000).
//   UndoWrite_Append  UndoFileWriter::append into a rev file in /tmp: the
//                     record encoded into one buffer, SHA256d(parent ||
//                     data) over it, XOR, one write(2) (a new file every
//                     256 records, about 36 MB, as files roll)
//   UndoWrite_Floor   encode_block_undo into a reused vector + the same
//                     SHA256d: issue 15's target is Append in 1.2x of it
//   UndoWrite_WriteOnly  what Append adds that the floor lacks, alone: a
//                     record's bytes (already encoded) appended with one
//                     write(2), the space reserved a MiB at a time as the
//                     writer does, files rolled as Append rolls them
//   UndoDecode        decode_block_undo of the record's data
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>
#include <blockwire/undo.hpp>

#include <benchmark/benchmark.h>

#include "block_data.hpp"

#include <fcntl.h>
#include <filesystem>
#include <linux/falloc.h>
#include <optional>
#include <unistd.h>

using namespace blockwire;
namespace fs = std::filesystem;

namespace {

BlockUndo undo_like_413567() {
  const Block block = decode_block(test::block413567()).value();
  BlockUndo undo;
  std::size_t k = 0;
  for (std::size_t t = 1; t < block.transactions.size(); ++t) {
    TxUndo& tx = undo.transactions.emplace_back();
    for (std::size_t i = 0; i < block.transactions[t].input_count(); ++i, ++k) {
      const Transaction& source = block.transactions[1 + k % (block.transactions.size() - 1)];
      const OutputView o = source.output(k % source.output_count());
      const auto script = o.script_pubkey();
      tx.coins.push_back({*Height::checked(413'000 - k % 5'000), k % 97 == 0, o.value(), {script.begin(), script.end()}});
    }
  }
  return undo;
}

const BlockHash parent = BlockHash::from_hex("0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069").value();

void UndoWrite_Append(benchmark::State& state) {
  const BlockUndo undo = undo_like_413567();
  std::string templ = (fs::temp_directory_path() / "blockwire-bench-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) std::abort();
  const XorKey key{std::byte{0x3c}, std::byte{0x91}, std::byte{0x0e}, std::byte{0x7a},
                   std::byte{0x55}, std::byte{0xd2}, std::byte{0x08}, std::byte{0xee}};
  UndoFileWriter writer(templ, key);
  std::uint64_t records = 0;
  unsigned file = 0;
  for (auto _ : state) {
    if (!writer.append(undo, parent, file)) state.SkipWithError("append failed");
    if (++records % 256 == 0) {  // the next file, as Core's roll; the last one removed off the clock
      state.PauseTiming();
      (void)writer.close();
      fs::remove(fs::path(templ) / undo_file_name(file++));
      state.ResumeTiming();
    }
  }
  fs::remove_all(templ);
  const std::size_t size = serialized_size(undo);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
  state.counters["bytes"] = static_cast<double>(size);
}

void UndoWrite_Floor(benchmark::State& state) {
  const BlockUndo undo = undo_like_413567();
  std::vector<std::byte> bytes;
  for (auto _ : state) {
    bytes.clear();
    encode_block_undo(undo, bytes);
    benchmark::DoNotOptimize(undo_checksum(parent, bytes));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * serialized_size(undo)));
}

void UndoWrite_WriteOnly(benchmark::State& state) {
  const BlockUndo undo = undo_like_413567();
  std::vector<std::byte> record;
  encode_block_undo(undo, record);
  record.resize(record.size() + 8 + 32);  // the frame and the checksum
  std::string templ = (fs::temp_directory_path() / "blockwire-bench-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) std::abort();
  std::uint64_t records = 0;
  unsigned file = 0;
  std::optional<FileWriter> out;
  std::uint64_t size = 0, reserved = 0;
  for (auto _ : state) {
    if (!out) {
      state.PauseTiming();
      out.emplace(FileWriter::append((fs::path(templ) / undo_file_name(file)).c_str()).value());
      size = reserved = 0;
      state.ResumeTiming();
    }
    if (size + record.size() > reserved) {
      constexpr std::uint64_t chunk = 1 << 20;
      const std::uint64_t upto = (size + record.size() + chunk - 1) / chunk * chunk;
      if (::fallocate(out->fd(), FALLOC_FL_KEEP_SIZE, static_cast<off_t>(size), static_cast<off_t>(upto - size)) == 0) reserved = upto;
    }
    if (!out->write(record)) state.SkipWithError("write failed");
    size += record.size();
    if (++records % 256 == 0) {
      state.PauseTiming();
      (void)out->close();
      out.reset();
      fs::remove(fs::path(templ) / undo_file_name(file++));
      state.ResumeTiming();
    }
  }
  fs::remove_all(templ);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * record.size()));
}

void UndoDecode(benchmark::State& state) {
  const BlockUndo undo = undo_like_413567();
  std::vector<std::byte> bytes;
  encode_block_undo(undo, bytes);
  for (auto _ : state) {
    auto undo = decode_block_undo(bytes);
    benchmark::DoNotOptimize(undo);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
  std::size_t inputs = 0;
  for (const TxUndo& tx : undo.transactions) inputs += tx.coins.size();
  state.counters["inputs"] = static_cast<double>(inputs);
}

}  // namespace

BENCHMARK(UndoWrite_Append)->Unit(benchmark::kMicrosecond);
BENCHMARK(UndoWrite_Floor)->Unit(benchmark::kMicrosecond);
BENCHMARK(UndoWrite_WriteOnly)->Unit(benchmark::kMicrosecond);
BENCHMARK(UndoDecode)->Unit(benchmark::kMicrosecond);
