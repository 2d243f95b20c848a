// For comparison only: the layout most libraries use (Bitcoin Core's too),
// where every script and witness item is its own heap allocation. Decoded
// with blockwire's own wire toolkit, so that the benchmark measures the
// layout, not the parser.
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/codec/wire.hpp>

#include <cstdint>
#include <vector>

namespace bench::per_script {

using Bytes = std::vector<std::byte>;
struct TxIn {
  blockwire::OutPoint prevout;
  Bytes script_sig;
  std::uint32_t sequence;
  std::vector<Bytes> witness;
};
struct TxOut {
  std::int64_t value;
  Bytes script_pubkey;
};
struct Transaction {
  std::uint32_t version;
  std::vector<TxIn> inputs;
  std::vector<TxOut> outputs;
  std::uint32_t lock_time;
};
struct Block {
  blockwire::BlockHeader header;
  std::vector<Transaction> transactions;
};

namespace d = blockwire::wire;

inline Bytes decode_bytes(blockwire::DecodingContext& ctx) {
  Bytes b;
  ctx.read_append(b, d::decode_compact_size(ctx));
  return b;
}

// Segwit blocks only in the witness::allow form; enough for the two blocks.
inline void decode_tx(blockwire::DecodingContext& ctx, Transaction& tx) {
  tx.version = d::decode_u32(ctx);
  std::uint64_t n = d::decode_compact_size(ctx);
  std::uint8_t flags = 0;
  if (n == 0) {
    flags = d::decode_u8(ctx);
    n = d::decode_compact_size(ctx);
  }
  tx.inputs.resize(n);
  for (TxIn& in : tx.inputs) {
    d::decode_hash(ctx, in.prevout.txid);
    in.prevout.index = d::decode_u32(ctx);
    in.script_sig = decode_bytes(ctx);
    in.sequence = d::decode_u32(ctx);
  }
  tx.outputs.resize(d::decode_compact_size(ctx));
  for (TxOut& out : tx.outputs) {
    out.value = d::decode_i64(ctx);
    out.script_pubkey = decode_bytes(ctx);
  }
  if (flags & 1) {
    for (TxIn& in : tx.inputs) {
      in.witness.resize(d::decode_compact_size(ctx));
      for (Bytes& item : in.witness) item = decode_bytes(ctx);
    }
  }
  tx.lock_time = d::decode_u32(ctx);
}

inline void decode_block(blockwire::DecodingContext& ctx, Block& b) {
  b.header.version = d::decode_i32(ctx);
  d::decode_hash(ctx, b.header.prev_block);
  d::decode_hash(ctx, b.header.merkle_root);
  b.header.time = d::decode_u32(ctx);
  b.header.bits = d::decode_u32(ctx);
  b.header.nonce = d::decode_u32(ctx);
  b.transactions.resize(d::decode_compact_size(ctx));
  for (Transaction& tx : b.transactions) decode_tx(ctx, tx);
}

}  // namespace bench::per_script
