// BIP324's cost beside v1's, a block message at a time (the segwit block,
// 1.38 MB): v1 hashes the payload once for the checksum (SHA256d); v2
// seals it (ChaCha20-Poly1305 and the length's FSChaCha20) on the sending
// side and opens it on the receiving one. And the cost of one connection's
// keys: an ElligatorSwift key made, the shared secret and the four ciphers
// derived.
#include <blockwire/io.hpp>
#include <blockwire/net/bip324.hpp>

#include <benchmark/benchmark.h>

#include <cstdlib>

#include "block_data.hpp"

using namespace blockwire;
namespace b = blockwire::net::bip324;

namespace {

// Two ends of one session, keys made once.
struct Session {
  b::PacketCipher sender{b::EllSwiftKey::generate().value()};
  b::PacketCipher receiver{b::EllSwiftKey::generate().value()};
  Session() {
    const auto s = sender.our_public_key();
    const auto r = receiver.our_public_key();
    if (!sender.initialize(r, true, network::mainnet) || !receiver.initialize(s, false, network::mainnet)) std::abort();
  }
};

std::vector<std::byte> block_packet() {
  const auto block = test::segwit_block();
  std::vector<std::byte> packet(block.size() + b::PacketCipher::overhead);
  std::copy(block.begin(), block.end(), packet.begin() + 4);
  return packet;
}

void V1ChecksumBlock(benchmark::State& state) {
  const auto block = test::segwit_block();
  for (auto _ : state) benchmark::DoNotOptimize(sha256d(block));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * block.size()));
}

void V2SealBlock(benchmark::State& state) {
  Session s;
  auto packet = block_packet();
  for (auto _ : state) {
    // (the contents are the last ciphertext: the cost is the same)
    if (!s.sender.seal(packet, {}, false)) state.SkipWithError("seal failed");
    benchmark::DoNotOptimize(packet.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * (packet.size() - b::PacketCipher::overhead)));
}

void V2OpenBlock(benchmark::State& state) {
  Session s;
  auto packet = block_packet();
  for (auto _ : state) {
    state.PauseTiming();
    if (!s.sender.seal(packet, {}, false)) state.SkipWithError("seal failed");
    state.ResumeTiming();
    const auto length = s.receiver.decrypt_length(std::span(packet).first<3>());
    bool decoy = false;
    if (!s.receiver.open(std::span(packet).subspan(3), {}, decoy)) state.SkipWithError("tag failed");
    benchmark::DoNotOptimize(length);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * (packet.size() - b::PacketCipher::overhead)));
}

void V2SessionKeys(benchmark::State& state) {
  const auto peer = b::EllSwiftKey::generate().value().public_key();
  for (auto _ : state) {
    b::PacketCipher cipher(b::EllSwiftKey::generate().value());
    if (!cipher.initialize(peer, true, network::mainnet)) state.SkipWithError("initialize failed");
    benchmark::DoNotOptimize(cipher.session_id().data());
  }
}

}  // namespace

BENCHMARK(V1ChecksumBlock)->Unit(benchmark::kMicrosecond);
BENCHMARK(V2SealBlock)->Unit(benchmark::kMicrosecond);
BENCHMARK(V2OpenBlock)->Unit(benchmark::kMicrosecond);
BENCHMARK(V2SessionKeys)->Unit(benchmark::kMicrosecond);
