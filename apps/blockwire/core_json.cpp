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

}  // namespace

double difficulty(std::uint32_t bits) {
  const int exponent = static_cast<int>(bits >> 24);
  const double mantissa = static_cast<double>(bits & 0x00ffffff);
  if (mantissa == 0) return 0;
  // The difficulty-1 target is 0xffff * 256^(0x1d - 3).
  return 65535.0 / mantissa * std::pow(256.0, 0x1d - exponent);
}

nlohmann::ordered_json transaction_json(const Transaction& tx) {
  nlohmann::ordered_json j;
  j["txid"] = txid(tx).to_hex();
  j["hash"] = wtxid(tx).to_hex();
  j["version"] = tx.version;
  j["size"] = serialized_size(tx);
  j["vsize"] = vsize(tx);
  j["weight"] = weight(tx);
  j["locktime"] = tx.lock_time;
  nlohmann::ordered_json vin = nlohmann::ordered_json::array();
  const bool coinbase = tx.is_coinbase();
  for (const TxIn& in : tx.inputs) {
    nlohmann::ordered_json i;
    if (coinbase) {
      i["coinbase"] = to_hex(tx.script_sig(in));
    } else {
      i["txid"] = in.prevout.txid.to_hex();
      i["vout"] = in.prevout.index;
      i["scriptSig"] = {{"hex", to_hex(tx.script_sig(in))}};
    }
    if (in.witness_size != 0) {
      nlohmann::ordered_json items = nlohmann::ordered_json::array();
      for (const ByteRange item : tx.witness(in)) items.push_back(to_hex(tx.bytes(item)));
      i["txinwitness"] = items;
    }
    i["sequence"] = in.sequence;
    vin.push_back(i);
  }
  j["vin"] = vin;
  nlohmann::ordered_json vout = nlohmann::ordered_json::array();
  for (std::size_t n = 0; n < tx.outputs.size(); ++n) {
    const TxOut& out = tx.outputs[n];
    vout.push_back({{"value", static_cast<double>(out.value) / 1e8},
                    {"n", n},
                    {"scriptPubKey", {{"hex", to_hex(tx.script_pubkey(out))}}}});
  }
  j["vout"] = vout;
  std::vector<std::byte> bytes;
  encode_transaction(tx, bytes);
  j["hex"] = to_hex(bytes);
  return j;
}

nlohmann::ordered_json block_json(const Block& block) {
  const BlockHeader& h = block.header;
  nlohmann::ordered_json j;
  j["hash"] = block_hash(h).to_hex();
  j["size"] = serialized_size(block);
  j["strippedsize"] = serialized_size(block, witness::disallow);
  j["weight"] = weight(block);
  j["version"] = h.version;
  j["versionHex"] = hex32(static_cast<std::uint32_t>(h.version));
  j["merkleroot"] = h.merkle_root.to_hex();
  nlohmann::ordered_json txs = nlohmann::ordered_json::array();
  for (const Transaction& tx : block.transactions) txs.push_back(transaction_json(tx));
  j["tx"] = txs;
  j["time"] = h.time;
  j["nonce"] = h.nonce;
  j["bits"] = hex32(h.bits);
  j["difficulty"] = difficulty(h.bits);
  j["nTx"] = block.transactions.size();
  if (!h.prev_block.is_zero()) j["previousblockhash"] = h.prev_block.to_hex();
  return j;
}

}  // namespace blockwire::cli
