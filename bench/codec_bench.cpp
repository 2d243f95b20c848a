// Encoding, decoding and sizing the two real blocks, by three routes:
//   Templated   the private encoders/decoders instantiated right here on a
//               concrete writer (what a header-only library would do)
//   WriterRef   the same encoders on an unbuffered writer_ref: an indirect
//               call per field
//   Public      the compiled entry points: writer_ref + BufferedWriter inside
// Names follow Bitcoin Core's benchmarks (SerializeBlock, DeserializeBlock,
// SizeComputerBlock), suffixed by route and block.
// GCC 12 warns of a vector's insert overflowing an empty region where the
// templated encoder writes a 4-byte field into a cleared vector: its
// stringop analysis of inlined std::vector code, not an overflow (the
// library's encoders, which this inlines, run under ASan in the tests).
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#include "detail/decoders.hpp"
#include "detail/encoders.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/io.hpp>

#include <benchmark/benchmark.h>

#include <cstring>

#include "block_data.hpp"
#include "per_script_layout.hpp"

using namespace blockwire;

namespace {

writer_ref opaque(writer_ref ref) {
  benchmark::DoNotOptimize(ref);
  return ref;
}

const Block& decoded(const std::vector<std::byte>& bytes) {
  static std::vector<std::pair<const void*, Block>> cache;
  for (const auto& [key, block] : cache) {
    if (key == &bytes) return block;
  }
  cache.emplace_back(&bytes, decode_block(bytes).value());
  return cache.back().second;
}

void per_block(benchmark::State& state, const std::vector<std::byte>& bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

// Encoding -------------------------------------------------------------------

void SerializeBlock_Templated(benchmark::State& state, const std::vector<std::byte>* bytes) {
  const Block& block = decoded(*bytes);
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    VectorWriter sink(out);
    BufferedWriter<VectorWriter&, 0> w(sink);  // an insert into the vector per field
    detail::encode_block(w, block, witness::allow);
    if (!w.flush()) state.SkipWithError("encode failed");
    benchmark::DoNotOptimize(out.data());
  }
  per_block(state, *bytes);
}

void SerializeBlock_TemplatedLending(benchmark::State& state, const std::vector<std::byte>* bytes) {
  const Block& block = decoded(*bytes);
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    VectorWriter sink(out);
    BufferedWriter<VectorWriter&> w(sink);  // writes in place into the vector's storage
    detail::encode_block(w, block, witness::allow);
    if (!w.flush()) state.SkipWithError("encode failed");
    benchmark::DoNotOptimize(out.data());
  }
  per_block(state, *bytes);
}

void SerializeBlock_WriterRef(benchmark::State& state, const std::vector<std::byte>* bytes) {
  const Block& block = decoded(*bytes);
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    VectorWriter sink(out);
    BufferedWriter<writer_ref, 0> w(opaque(writer_ref(sink)));
    detail::encode_block(w, block, witness::allow);
    if (!w.flush()) state.SkipWithError("encode failed");
    benchmark::DoNotOptimize(out.data());
  }
  per_block(state, *bytes);
}

// The public entry point through a writer_ref (any sink; a vector here).
void SerializeBlock_Public(benchmark::State& state, const std::vector<std::byte>* bytes) {
  const Block& block = decoded(*bytes);
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    VectorWriter sink(out);
    if (!encode_block(block, sink)) state.SkipWithError("encode failed");
    benchmark::DoNotOptimize(out.data());
  }
  per_block(state, *bytes);
}

// The public entry point for a vector, which lends its storage.
void SerializeBlock_PublicVector(benchmark::State& state, const std::vector<std::byte>* bytes) {
  const Block& block = decoded(*bytes);
  std::vector<std::byte> out;
  for (auto _ : state) {
    out.clear();
    encode_block(block, out);
    benchmark::DoNotOptimize(out.data());
  }
  per_block(state, *bytes);
}

// Decoding (objects destroyed included, as in Bitcoin Core's bench) -----------

void DeserializeBlock_Templated(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    DecodingContext ctx(*bytes);
    Block block;
    detail::decode_block(ctx, block, witness::allow);
    if (!ctx.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(block);
  }
  per_block(state, *bytes);
}

// Zero-copy: one validating pass that records offsets (BlockView::parse),
// and the same plus a walk that reads every field of every transaction,
// the prevouts' txids included (what a reader of the block needs; ids are
// not computed).
void BlockView_Parse(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    auto view = BlockView::parse(*bytes);
    if (!view) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(view);
  }
  per_block(state, *bytes);
}

void BlockView_Walk(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    auto view = BlockView::parse(*bytes);
    if (!view) state.SkipWithError("parse failed");
    std::uint64_t sum = 0;
    for (std::size_t t = 0; t < view.value().transaction_count(); ++t) {
      const TransactionView tx = view.value().transaction(t);
      sum += tx.version() + tx.lock_time();
      for (std::size_t i = 0; i < tx.input_count(); ++i) {
        const InputView in = tx.input(i);
        std::uint64_t txid_word;  // the prevout's txid read too, as a lookup of the coin would
        std::memcpy(&txid_word, in.prevout().txid.bytes().data(), 8);
        sum += txid_word + in.prevout().index + in.sequence() + in.script_sig().size();
        for (const auto item : in.witness()) sum += item.size();
      }
      for (std::size_t o = 0; o < tx.output_count(); ++o) {
        const OutputView out = tx.output(o);
        sum += static_cast<std::uint64_t>(out.value().to_sat()) + out.script_pubkey().size();
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  per_block(state, *bytes);
}

// bitcoin_slices' visiting benchmark, as its own benches sum the outputs:
// parse, then every output's value and script length.
void BlockView_SumOutputs(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    auto view = BlockView::parse(*bytes);
    if (!view) state.SkipWithError("parse failed");
    std::uint64_t sum = 0;
    for (std::size_t t = 0; t < view.value().transaction_count(); ++t) {
      for (const OutputView out : view.value().transaction(t).outputs()) {
        sum += static_cast<std::uint64_t>(out.value().to_sat()) + out.script_pubkey().size();
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  per_block(state, *bytes);
}

// bitcoin_slices' two tasks through the one-pass route: BlockView::visit
// with nothing to do (its Block::parse), and summing every output's value
// and script length as each transaction passes (its Block::visit).
void BlockView_VisitParse(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    auto header = BlockView::visit(*bytes, [](const TransactionView&) {});
    if (!header) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(header);
  }
  per_block(state, *bytes);
}

void BlockView_VisitSumOutputs(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    std::uint64_t sum = 0;
    auto header = BlockView::visit(*bytes, [&](const TransactionView& tx) {
      for (const OutputView out : tx.outputs()) sum += static_cast<std::uint64_t>(out.value().to_sat()) + out.script_pubkey().size();
    });
    if (!header) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(sum);
  }
  per_block(state, *bytes);
}

// The same bytes into a layout with a heap allocation per script and per
// witness item: what blockwire's one-payload-per-transaction layout saves.
void DeserializeBlock_PerScriptLayout(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    DecodingContext ctx(*bytes);
    bench::per_script::Block block;
    bench::per_script::decode_block(ctx, block);
    if (!ctx.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(block);
  }
  per_block(state, *bytes);
}

void DeserializeBlock_PublicSpan(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    auto block = decode_block(*bytes);
    if (!block) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(block);
  }
  per_block(state, *bytes);
}

void DeserializeBlock_PublicReaderRef(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    SpanReader source(*bytes);
    auto block = decode_block(reader_ref(source));
    if (!block) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(block);
  }
  per_block(state, *bytes);
}

void DeserializeBlock_PublicStreamReader(benchmark::State& state, const std::vector<std::byte>* bytes) {
  for (auto _ : state) {
    SpanReader source(*bytes);
    StreamReader stream{reader_ref(source)};
    auto block = decode_block(stream);
    if (!block) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(block);
  }
  per_block(state, *bytes);
}

// Size -------------------------------------------------------------------------

void SizeComputerBlock_Public(benchmark::State& state, const std::vector<std::byte>* bytes) {
  const Block& block = decoded(*bytes);
  for (auto _ : state) {
    std::size_t size = serialized_size(block);
    benchmark::DoNotOptimize(size);
  }
  per_block(state, *bytes);
}

// The physical limit for the same bytes: one memcpy.
void MemcpyBlock(benchmark::State& state, const std::vector<std::byte>* bytes) {
  std::vector<std::byte> out(bytes->size());
  for (auto _ : state) {
    std::memcpy(out.data(), bytes->data(), out.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  per_block(state, *bytes);
}

BLOCKWIRE_BENCH_BOTH(SerializeBlock_Templated);
BLOCKWIRE_BENCH_BOTH(SerializeBlock_TemplatedLending);
BLOCKWIRE_BENCH_BOTH(SerializeBlock_WriterRef);
BLOCKWIRE_BENCH_BOTH(SerializeBlock_Public);
BLOCKWIRE_BENCH_BOTH(SerializeBlock_PublicVector);
BLOCKWIRE_BENCH_BOTH(DeserializeBlock_Templated);
BLOCKWIRE_BENCH_BOTH(DeserializeBlock_PerScriptLayout);
BLOCKWIRE_BENCH_BOTH(BlockView_Parse);
BLOCKWIRE_BENCH_BOTH(BlockView_Walk);
BLOCKWIRE_BENCH_BOTH(BlockView_SumOutputs);
BLOCKWIRE_BENCH_BOTH(BlockView_VisitParse);
BLOCKWIRE_BENCH_BOTH(BlockView_VisitSumOutputs);
BLOCKWIRE_BENCH_BOTH(DeserializeBlock_PublicSpan);
BLOCKWIRE_BENCH_BOTH(DeserializeBlock_PublicReaderRef);
BLOCKWIRE_BENCH_BOTH(DeserializeBlock_PublicStreamReader);
BLOCKWIRE_BENCH_BOTH(SizeComputerBlock_Public);
BLOCKWIRE_BENCH_BOTH(MemcpyBlock);

}  // namespace
