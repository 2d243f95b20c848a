#include "core_json.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace blockwire::cli {

namespace {

std::string hex(std::span<const std::byte> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (std::byte b : bytes) {
    out += digits[std::to_integer<unsigned>(b) >> 4];
    out += digits[std::to_integer<unsigned>(b) & 15];
  }
  return out;
}

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
  const std::size_t size = serialized_size(tx);
  const std::size_t weight = 3 * serialized_size(tx, witness::disallow) + size;
  nlohmann::ordered_json j;
  j["txid"] = txid(tx).to_hex();
  j["hash"] = wtxid(tx).to_hex();
  j["version"] = tx.version;
  j["size"] = size;
  j["vsize"] = (weight + 3) / 4;
  j["weight"] = weight;
  j["locktime"] = tx.lock_time;
  nlohmann::ordered_json vin = nlohmann::ordered_json::array();
  const bool coinbase = tx.is_coinbase();
  for (const TxIn& in : tx.inputs) {
    nlohmann::ordered_json i;
    if (coinbase) {
      i["coinbase"] = hex(tx.script_sig(in));
    } else {
      i["txid"] = in.prevout.txid.to_hex();
      i["vout"] = in.prevout.index;
      i["scriptSig"] = {{"hex", hex(tx.script_sig(in))}};
    }
    if (in.witness_size != 0) {
      nlohmann::ordered_json items = nlohmann::ordered_json::array();
      for (const ByteRange item : tx.witness(in)) items.push_back(hex(tx.bytes(item)));
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
                    {"scriptPubKey", {{"hex", hex(tx.script_pubkey(out))}}}});
  }
  j["vout"] = vout;
  std::vector<std::byte> bytes;
  encode_transaction(tx, bytes);
  j["hex"] = hex(bytes);
  return j;
}

nlohmann::ordered_json block_json(const Block& block) {
  const BlockHeader& h = block.header;
  nlohmann::ordered_json j;
  j["hash"] = block_hash(h).to_hex();
  j["size"] = serialized_size(block);
  j["strippedsize"] = serialized_size(block, witness::disallow);
  j["weight"] = 3 * serialized_size(block, witness::disallow) + serialized_size(block);
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
