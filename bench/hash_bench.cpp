// Hashing: where a block's decode time goes when txids are wanted.
//   DeserializeBlock_Hashed       decode_block(bytes, ids): every txid and
//                                 wtxid hashed from the bytes as decoded
//   DeserializeBlock_ThenHash     decode, then txid()/wtxid() per transaction
//                                 (each encodes the transaction again)
//   HashNeededBytes               SHA256d over exactly the bytes that must be
//                                 hashed (stripped bytes of every transaction,
//                                 full bytes of segwit ones), one message at a
//                                 time through OpenSSL: the floor of hashing
//                                 them one after another
//   MerkleRoot                    leaves precomputed (Core's bench name)
//   MerkleBound                   the root's pair hashes alone, lanes full
//   TxIds_View                    every id of a parsed block, hashing alone
//   BlockHash, SHA256_1MiB, SHA256_64, SHA256D64_1024, SHA256Block
//   SipHash_1MiB (_Bytewise), SipHash_Hash256 (_Writer)
#include "detail/decoders.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <benchmark/benchmark.h>

#include "block_data.hpp"

#include <array>
#include <random>

using namespace blockwire;

namespace {

void per_block(benchmark::State& state, const std::vector<std::byte>& bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

void DeserializeBlock_Hashed(benchmark::State& state, const std::vector<std::byte>* bytes) {
  std::vector<TxIds> ids;
  for (auto _ : state) {
    auto block = decode_block(*bytes, ids);
    if (!block) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(block);
    benchmark::DoNotOptimize(ids.data());
  }
  per_block(state, *bytes);
}

void DeserializeBlock_ThenHash(benchmark::State& state, const std::vector<std::byte>* bytes) {
  std::vector<TxIds> ids;
  for (auto _ : state) {
    auto block = decode_block(*bytes);
    if (!block) state.SkipWithError("decode failed");
    ids.clear();
    for (const Transaction& tx : block.value().transactions) {
      ids.push_back({tx.txid(), tx.has_witness() ? tx.wtxid() : Wtxid::all_zeros()});
    }
    benchmark::DoNotOptimize(ids.data());
  }
  per_block(state, *bytes);
}

// The spans that a decode-and-hash pass must hash, found once up front.
struct NeededSpans {
  std::vector<std::vector<std::span<const std::byte>>> txid_parts;  // per transaction
  std::vector<std::span<const std::byte>> wtxid_whole;              // segwit transactions
  std::size_t bytes = 0;
};

NeededSpans needed_spans(const std::vector<std::byte>& raw) {
  const BlockView view = BlockView::parse(raw).value();
  NeededSpans s;
  for (std::size_t i = 0; i < view.transaction_count(); ++i) {
    const TransactionView tx = view.transaction(i);
    if (!tx.has_witness()) {
      s.txid_parts.push_back({tx.bytes()});
      s.bytes += tx.size();
    } else {
      const auto parts = tx.txid_parts();
      s.txid_parts.push_back({parts.begin(), parts.end()});
      s.wtxid_whole.push_back(tx.bytes());
      s.bytes += tx.stripped_size() + tx.size();
    }
  }
  return s;
}

void HashNeededBytes(benchmark::State& state, const std::vector<std::byte>* bytes) {
  const NeededSpans spans = needed_spans(*bytes);
  Sha256 sha;
  for (auto _ : state) {
    for (const auto& parts : spans.txid_parts) {
      for (auto part : parts) sha.update(part);
      benchmark::DoNotOptimize(sha256d_of(sha));
    }
    for (auto whole : spans.wtxid_whole) benchmark::DoNotOptimize(sha256d(whole));
  }
  state.counters["hashed_bytes"] = static_cast<double>(spans.bytes);
  per_block(state, *bytes);
}

void MerkleRoot(benchmark::State& state, const std::vector<std::byte>* bytes) {
  std::vector<TxIds> ids;
  (void)decode_block(*bytes, ids).value();
  std::vector<Hash256> leaves;
  for (const auto& id : ids) leaves.push_back(id.txid.to_raw_hash());
  for (auto _ : state) {
    bool mutated = false;
    benchmark::DoNotOptimize(merkle_root(leaves, &mutated));
  }
  state.counters["leaves"] = static_cast<double>(leaves.size());
}

// Every txid and wtxid of a parsed block (tx_ids over a BlockView): the
// ids' hashing alone, without the decode. `blocks` counts the 64-byte
// compressions (each message's with its padding, and the second hash's
// one), so ns_per_block compares with the kernel's own per-block time.
void TxIds_View(benchmark::State& state, const std::vector<std::byte>* bytes) {
  const BlockView view = BlockView::parse(*bytes).value();
  std::vector<TxIds> ids(view.transaction_count());
  std::size_t blocks = 0;
  const auto compressions = [](std::size_t n) { return (n + 8) / 64 + 1 + 1; };
  for (std::size_t i = 0; i < view.transaction_count(); ++i) {
    const TransactionView tx = view.transaction(i);
    blocks += compressions(tx.stripped_size());
    if (tx.has_witness()) blocks += compressions(tx.size());
  }
  for (auto _ : state) {
    tx_ids(view, 0, ids);
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetLabel(sha256d64_implementation());
  state.counters["blocks"] = static_cast<double>(blocks);
  state.counters["ns_per_block"] =
      benchmark::Counter(static_cast<double>(blocks) * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BlockHash(benchmark::State& state, const std::vector<std::byte>* bytes) {
  const BlockHeader header = decode_header(std::span(*bytes).first(80)).value();
  for (auto _ : state) benchmark::DoNotOptimize(block_hash(header));
}

// One SHA-256 pass over the block's bytes: the physical limit of hashing it.
void SHA256Block(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) benchmark::DoNotOptimize(sha256(*bytes));
  per_block(state, *bytes);
}

std::vector<std::byte> random_bytes(std::size_t n) {
  std::vector<std::byte> v(n);
  std::mt19937_64 rng(7);
  for (auto& b : v) b = static_cast<std::byte>(rng());
  return v;
}

// The bound MerkleRoot is measured against: as many SHA256d-of-64-bytes as
// the block's root needs (each level's pairs, an odd last hash paired with
// itself), in one call over contiguous blocks, so that every call but the
// last fills the fastest kernel's lanes; no levels, no copies, no checks.
void MerkleBound(benchmark::State& state, const std::vector<std::byte>* bytes) {
  std::vector<TxIds> ids;
  (void)decode_block(*bytes, ids).value();
  std::size_t pairs = 0;
  for (std::size_t n = ids.size(); n > 1; n = (n + 1) / 2) pairs += (n + 1) / 2;
  const auto data = random_bytes(64 * pairs);
  std::vector<std::byte> out(32 * pairs);
  for (auto _ : state) {
    sha256d64(out, data);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(sha256d64_implementation());
  state.counters["pairs"] = static_cast<double>(pairs);
}

void SHA256_1MiB(benchmark::State& state) {
  const auto data = random_bytes(1 << 20);
  for (auto _ : state) benchmark::DoNotOptimize(sha256(data));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size()));
}

void SHA256_64(benchmark::State& state) {
  const auto data = random_bytes(64);
  for (auto _ : state) benchmark::DoNotOptimize(sha256(data));
}

// 1,024 pairs of hashes into 1,024 hashes: one merkle level's work.
void SHA256D64_1024(benchmark::State& state) {
  const auto data = random_bytes(64 * 1024);
  std::vector<std::byte> out(32 * 1024);
  for (auto _ : state) {
    sha256d64(out, data);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetLabel(sha256d64_implementation());
  state.counters["ns_per_pair"] =
      benchmark::Counter(1024 * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// One pair alone (MerkleBuilder::add's case): the single-lane path.
void SHA256D64_One(benchmark::State& state) {
  auto data = random_bytes(64);
  std::array<std::byte, 32> out;
  for (auto _ : state) {
    sha256d64(out, data);
    data[0] = out[0];  // each hash depends on the last: latency, as up a tree
  }
  benchmark::DoNotOptimize(out);
}

// The same pairs through the general one-shot path, for comparison.
void SHA256D_64x1024(benchmark::State& state) {
  const auto data = random_bytes(64 * 1024);
  std::vector<Hash256> out(1024);
  for (auto _ : state) {
    for (std::size_t i = 0; i < 1024; ++i) out[i] = sha256d(std::span(data).subspan(64 * i, 64));
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["ns_per_pair"] =
      benchmark::Counter(1024 * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// SipHash-2-4 of 1 MiB in one write (whole words), and fed a byte at a
// time (the pattern that made Core's proposed seed change slower).
void SipHash_1MiB(benchmark::State& state) {
  const auto data = random_bytes(1 << 20);
  for (auto _ : state) {
    SipHasher h(1, 2);
    h.update(data);
    benchmark::DoNotOptimize(h.finish());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size()));
}

void SipHash_1MiB_Bytewise(benchmark::State& state) {
  const auto data = random_bytes(1 << 20);
  for (auto _ : state) {
    SipHasher h(1, 2);
    for (std::size_t i = 0; i < data.size(); ++i) h.update(std::span(data).subspan(i, 1));
    benchmark::DoNotOptimize(h.finish());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size()));
}

// One short id's hash: a txid through the fixed 32-byte path, and through
// the general writer.
void SipHash_Hash256(benchmark::State& state) {
  const auto data = random_bytes(32);
  Hash256 h(std::span<const std::byte, 32>(data.data(), 32));
  std::uint64_t k0 = 0x0706050403020100;
  for (auto _ : state) {
    benchmark::DoNotOptimize(siphash(k0, 0x0f0e0d0c0b0a0908, h));
    benchmark::ClobberMemory();
  }
}

void SipHash_Hash256_Writer(benchmark::State& state) {
  const auto data = random_bytes(32);
  for (auto _ : state) {
    SipHasher h(0x0706050403020100, 0x0f0e0d0c0b0a0908);
    h.update(data);
    benchmark::DoNotOptimize(h.finish());
    benchmark::ClobberMemory();
  }
}

BLOCKWIRE_BENCH_BOTH(DeserializeBlock_Hashed);
BLOCKWIRE_BENCH_BOTH(DeserializeBlock_ThenHash);
BLOCKWIRE_BENCH_BOTH(HashNeededBytes);
BLOCKWIRE_BENCH_BOTH(MerkleRoot);
BLOCKWIRE_BENCH_BOTH(MerkleBound);
BLOCKWIRE_BENCH_BOTH(TxIds_View);
BLOCKWIRE_BENCH_BOTH(BlockHash);
BLOCKWIRE_BENCH_BOTH(SHA256Block);
BENCHMARK(SHA256_1MiB)->Unit(benchmark::kMicrosecond);
BENCHMARK(SHA256_64);
BENCHMARK(SHA256D64_1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(SHA256D_64x1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(SHA256D64_One);
BENCHMARK(SipHash_1MiB)->Unit(benchmark::kMicrosecond);
BENCHMARK(SipHash_1MiB_Bytewise)->Unit(benchmark::kMicrosecond);
BENCHMARK(SipHash_Hash256);
BENCHMARK(SipHash_Hash256_Writer);

}  // namespace
