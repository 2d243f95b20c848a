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

void write_transaction_json(JsonOutput& out, const TransactionView& tx) {
  out.begin_object();
  out.key("txid");
  out.string(tx.txid().to_hex());
  out.key("hash");
  out.string(tx.wtxid().to_hex());
  out.key("version");
  out.uint(tx.version());
  out.key("size");
  out.uint(tx.size());
  out.key("vsize");
  out.uint(tx.vsize());
  out.key("weight");
  out.uint(tx.weight());
  out.key("locktime");
  out.uint(tx.lock_time());
  out.key("vin");
  out.begin_array();
  const bool coinbase = tx.is_coinbase();
  for (std::size_t i = 0; i < tx.input_count(); ++i) {
    const InputView in = tx.input(i);
    out.begin_object();
    if (coinbase) {
      out.key("coinbase");
      write_hex(out, in.script_sig);
    } else {
      out.key("txid");
      out.string(in.prevout.txid.to_hex());
      out.key("vout");
      out.uint(in.prevout.index);
      out.key("scriptSig");
      out.begin_object();
      out.key("hex");
      write_hex(out, in.script_sig);
      out.end_object();
    }
    if (!in.witness.empty()) {
      out.key("txinwitness");
      out.begin_array();
      for (const auto item : in.witness) write_hex(out, item);
      out.end_array();
    }
    out.key("sequence");
    out.uint(in.sequence);
    out.end_object();
  }
  out.end_array();
  out.key("vout");
  out.begin_array();
  for (std::size_t n = 0; n < tx.output_count(); ++n) {
    const OutputView o = tx.output(n);
    out.begin_object();
    out.key("value");
    out.number(static_cast<double>(o.value) / 1e8);
    out.key("n");
    out.uint(n);
    out.key("scriptPubKey");
    out.begin_object();
    out.key("hex");
    write_hex(out, o.script_pubkey);
    out.end_object();
    out.end_object();
  }
  out.end_array();
  out.key("hex");
  write_hex(out, tx.bytes());
  out.end_object();
}

void write_block_json(JsonOutput& out, const BlockView& block) {
  const BlockHeader& h = block.header();
  out.begin_object();
  out.key("hash");
  out.string(block_hash(h).to_hex());
  out.key("size");
  out.uint(block.size());
  out.key("strippedsize");
  out.uint(block.stripped_size());
  out.key("weight");
  out.uint(block.weight());
  out.key("version");
  out.integer(h.version);
  out.key("versionHex");
  out.string(hex32(static_cast<std::uint32_t>(h.version)));
  out.key("merkleroot");
  out.string(h.merkle_root.to_hex());
  out.key("tx");
  out.begin_array();
  for (std::size_t i = 0; i < block.transaction_count(); ++i) write_transaction_json(out, block.transaction(i));
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
  out.uint(block.transaction_count());
  if (!h.prev_block.is_zero()) {
    out.key("previousblockhash");
    out.string(h.prev_block.to_hex());
  }
  out.end_object();
}

}  // namespace blockwire::cli
