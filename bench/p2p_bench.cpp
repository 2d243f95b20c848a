// A block as a P2P message, against its floor: encoding it into a
// socket-like sink (a sink that takes the bytes and keeps none) against
// encode_block + SHA256d of its bytes; decoding it from a StreamReader
// against decode_block + SHA256d. (Issue 13's targets: 1.15x and 1.1x.)
// Compact blocks, on the segwit block (2,500 transactions):
//   CmpctBlockBuild        its cmpctblock from the block and its ids (the
//                          ids a node has with the block): target 150 µs
//   CmpctBlockReconstruct  the block rebuilt from that cmpctblock and a pool
//                          holding every transaction, check_block included
//   CmpctBlockCheck        check_block(block, ids) alone, the share of the
//                          reconstruction that is checking (both merkle trees)
//   CmpctBlockDecodeFloor  decode_block of the same block: the target is
//                          reconstruction in 1.5x its time
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>
#include <blockwire/p2p.hpp>
#include <blockwire/p2p/compact_blocks.hpp>

#include <benchmark/benchmark.h>

#include "block_data.hpp"

using namespace blockwire;

namespace {

// Takes every byte, as a socket's send buffer would, and keeps none.
struct SocketLike {
  std::uint64_t bytes = 0;
  result<void> write(std::span<const std::byte> b) {
    bytes += b.size();
    benchmark::DoNotOptimize(b.data());
    return success();
  }
};

void P2PEncodeBlockMessage(benchmark::State& state) {
  const p2p::Message message = p2p::BlockMessage{decode_block(test::block413567()).value()};
  std::vector<std::byte> scratch;
  for (auto _ : state) {
    SocketLike sink;
    if (!p2p::encode_message(message, network::mainnet, writer_ref(sink), scratch)) state.SkipWithError("encode failed");
    benchmark::DoNotOptimize(sink.bytes);
  }
}

void P2PEncodeBlockFloor(benchmark::State& state) {
  const Block block = decode_block(test::block413567()).value();
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    encode_block(block, out);
    benchmark::DoNotOptimize(sha256d(out));
  }
}

void P2PDecodeBlockMessage(benchmark::State& state) {
  std::vector<std::byte> bytes;
  p2p::encode_message(p2p::BlockMessage{decode_block(test::block413567()).value()}, network::mainnet, bytes);
  for (auto _ : state) {
    SpanReader source(bytes);
    StreamReader in{reader_ref(source)};
    auto message = p2p::decode_message(in, network::mainnet);
    if (!message) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(message);
  }
}

void P2PDecodeBlockFloor(benchmark::State& state) {
  const auto& bytes = test::block413567();
  for (auto _ : state) {
    auto block = decode_block(bytes);
    benchmark::DoNotOptimize(sha256d(bytes));
    benchmark::DoNotOptimize(block);
  }
}

}  // namespace

void CmpctBlockBuild(benchmark::State& state) {
  std::vector<TxIds> ids;
  const Block block = decode_block(test::segwit_block(), ids).value();
  std::uint64_t nonce = 1;
  for (auto _ : state) {
    auto cmpct = p2p::make_cmpctblock(block, ids, nonce++);
    benchmark::DoNotOptimize(cmpct.short_ids.data());
  }
}

void CmpctBlockReconstruct(benchmark::State& state) {
  std::vector<TxIds> ids;
  const Block block = decode_block(test::segwit_block(), ids).value();
  std::vector<p2p::PoolTransaction> pool;
  for (std::size_t i = 1; i < block.transactions.size(); ++i) pool.push_back({ids[i], &block.transactions[i]});
  const p2p::CmpctBlock cmpct = p2p::make_cmpctblock(block, ids, 7);
  for (auto _ : state) {
    auto partial = p2p::PartialBlock::start(cmpct, pool);
    if (!partial || !partial.value().missing().empty()) state.SkipWithError("not rebuilt from the pool");
    auto rebuilt = partial.value().finish(std::span<const Transaction>{});
    if (!rebuilt) state.SkipWithError("rebuilt block fails");
    benchmark::DoNotOptimize(rebuilt);
  }
}

void CmpctBlockCheck(benchmark::State& state) {
  std::vector<TxIds> ids;
  const Block block = decode_block(test::segwit_block(), ids).value();
  for (auto _ : state) {
    auto checked = check_block(block, ids);
    if (!checked) state.SkipWithError("check failed");
    benchmark::DoNotOptimize(checked);
  }
}

void CmpctBlockDecodeFloor(benchmark::State& state) {
  for (auto _ : state) {
    auto block = decode_block(test::segwit_block());
    benchmark::DoNotOptimize(block);
  }
}

BENCHMARK(CmpctBlockBuild)->Unit(benchmark::kMicrosecond);
BENCHMARK(CmpctBlockReconstruct)->Unit(benchmark::kMicrosecond);
BENCHMARK(CmpctBlockCheck)->Unit(benchmark::kMicrosecond);
BENCHMARK(CmpctBlockDecodeFloor)->Unit(benchmark::kMicrosecond);
BENCHMARK(P2PEncodeBlockMessage)->Unit(benchmark::kMicrosecond);
BENCHMARK(P2PEncodeBlockFloor)->Unit(benchmark::kMicrosecond);
BENCHMARK(P2PDecodeBlockMessage)->Unit(benchmark::kMicrosecond);
BENCHMARK(P2PDecodeBlockFloor)->Unit(benchmark::kMicrosecond);
