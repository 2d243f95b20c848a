#include "core_json.hpp"

#include <blockwire/io/hex.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace blockwire::cli {

namespace {

std::string hex32(std::uint32_t v) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", v);
  return text;
}

// Hex of one script or witness item at a time: the only text held in
// memory is the item being written.
void write_hex(JsonOutput& out, std::span<const std::byte> bytes) { out.string(to_hex(bytes)); }

}  // namespace

double difficulty(std::uint32_t bits) {
  const int exponent = static_cast<int>(bits >> 24);
  const double mantissa = static_cast<double>(bits & 0x00ffffff);
  if (mantissa == 0) return 0;
  // The difficulty-1 target is 0xffff * 256^(0x1d - 3).
  return 65535.0 / mantissa * std::pow(256.0, 0x1d - exponent);
}

void write_transaction_json(JsonOutput& out, const Transaction& tx) {
  out.begin_object();
  out.key("txid");
  out.string(txid(tx).to_hex());
  out.key("hash");
  out.string(wtxid(tx).to_hex());
  out.key("version");
  out.uint(tx.version);
  out.key("size");
  out.uint(serialized_size(tx));
  out.key("vsize");
  out.uint(vsize(tx));
  out.key("weight");
  out.uint(weight(tx));
  out.key("locktime");
  out.uint(tx.lock_time);
  out.key("vin");
  out.begin_array();
  const bool coinbase = tx.is_coinbase();
  for (const TxIn& in : tx.inputs) {
    out.begin_object();
    if (coinbase) {
      out.key("coinbase");
      write_hex(out, tx.script_sig(in));
    } else {
      out.key("txid");
      out.string(in.prevout.txid.to_hex());
      out.key("vout");
      out.uint(in.prevout.index);
      out.key("scriptSig");
      out.begin_object();
      out.key("hex");
      write_hex(out, tx.script_sig(in));
      out.end_object();
    }
    if (in.witness_size != 0) {
      out.key("txinwitness");
      out.begin_array();
      for (const ByteRange item : tx.witness(in)) write_hex(out, tx.bytes(item));
      out.end_array();
    }
    out.key("sequence");
    out.uint(in.sequence);
    out.end_object();
  }
  out.end_array();
  out.key("vout");
  out.begin_array();
  for (std::size_t n = 0; n < tx.outputs.size(); ++n) {
    const TxOut& o = tx.outputs[n];
    out.begin_object();
    out.key("value");
    out.number(static_cast<double>(o.value) / 1e8);
    out.key("n");
    out.uint(n);
    out.key("scriptPubKey");
    out.begin_object();
    out.key("hex");
    write_hex(out, tx.script_pubkey(o));
    out.end_object();
    out.end_object();
  }
  out.end_array();
  out.key("hex");
  std::vector<std::byte> bytes;
  encode_transaction(tx, bytes);
  write_hex(out, bytes);
  out.end_object();
}

void write_block_json(JsonOutput& out, const Block& block) {
  const BlockHeader& h = block.header;
  out.begin_object();
  out.key("hash");
  out.string(block_hash(h).to_hex());
  out.key("size");
  out.uint(serialized_size(block));
  out.key("strippedsize");
  out.uint(serialized_size(block, witness::disallow));
  out.key("weight");
  out.uint(weight(block));
  out.key("version");
  out.integer(h.version);
  out.key("versionHex");
  out.string(hex32(static_cast<std::uint32_t>(h.version)));
  out.key("merkleroot");
  out.string(h.merkle_root.to_hex());
  out.key("tx");
  out.begin_array();
  for (const Transaction& tx : block.transactions) write_transaction_json(out, tx);
  out.end_array();
  out.key("time");
  out.uint(h.time);
  out.key("nonce");
  out.uint(h.nonce);
  out.key("bits");
  out.string(hex32(h.bits));
  out.key("difficulty");
  out.number(difficulty(h.bits));
  out.key("nTx");
  out.uint(block.transactions.size());
  if (!h.prev_block.is_zero()) {
    out.key("previousblockhash");
    out.string(h.prev_block.to_hex());
  }
  out.end_object();
}

}  // namespace blockwire::cli
