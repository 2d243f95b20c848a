// A block as a P2P message, against its floor: encoding it into a
// socket-like sink (a sink that takes the bytes and keeps none) against
// encode_block + SHA256d of its bytes; decoding it from a StreamReader
// against decode_block + SHA256d. (Issue 13's targets: 1.15x and 1.1x.)
#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>
#include <blockwire/p2p.hpp>

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

BENCHMARK(P2PEncodeBlockMessage)->Unit(benchmark::kMicrosecond);
BENCHMARK(P2PEncodeBlockFloor)->Unit(benchmark::kMicrosecond);
BENCHMARK(P2PDecodeBlockMessage)->Unit(benchmark::kMicrosecond);
BENCHMARK(P2PDecodeBlockFloor)->Unit(benchmark::kMicrosecond);
