// What Bitcoin Core's getblock 3 JSON says of each output script of a
// chain: the transactions that fund it or spend from it, the outputs
// paying it and the inputs spending them. From Core's JSON alone (no
// blockwire code), for the address index's tests. OP_RETURN outputs are
// in no index.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace test {

struct ScriptTruth {
  struct Tx {
    std::uint32_t height;
    std::size_t position;  // in its block
    std::string txid;
    friend auto operator<=>(const Tx&, const Tx&) = default;
  };
  struct Output {
    std::string txid;
    std::uint32_t vout;
    std::int64_t value;
    std::uint32_t height;
    friend auto operator<=>(const Output&, const Output&) = default;
  };
  std::string address;  // Core's, when the script has one
  std::set<Tx> txs;     // oldest first
  std::vector<Output> funded;
  std::vector<Output> spent;  // (height: the spending block's)
  // Per block: transactions, outputs funded and their sum, inputs spent and their sum.
  struct Block {
    std::uint64_t txs = 0, funded = 0, spent = 0;
    std::int64_t funded_sum = 0, spent_sum = 0;
  };
  std::map<std::uint32_t, Block> blocks;
  std::vector<Output> unspent() const {
    std::set<std::pair<std::string, std::uint32_t>> gone;
    for (const Output& s : spent) gone.insert({s.txid, s.vout});
    std::vector<Output> left;
    for (const Output& f : funded) {
      if (!gone.contains({f.txid, f.vout})) left.push_back(f);
    }
    return left;
  }
};

inline std::int64_t sats(const nlohmann::json& btc) { return std::llround(btc.get<double>() * 1e8); }

using AddressTruth = std::map<std::string, ScriptTruth>;  // by the script's hex

// Adds getblock 3's `block` to `truth`.
inline void add_block(AddressTruth& truth, const nlohmann::json& block) {
  const auto height = block["height"].get<std::uint32_t>();
  std::size_t position = 0;
  for (const auto& tx : block["tx"]) {
    std::set<std::string> touched;
    const std::string txid = tx["txid"].get<std::string>();
    const auto add = [&](const nlohmann::json& script_pubkey, const ScriptTruth::Output& o, bool spent) {
      if (script_pubkey["type"] == "nulldata") return;
      const std::string hex = script_pubkey["hex"].get<std::string>();
      ScriptTruth& t = truth[hex];
      if (script_pubkey.contains("address")) t.address = script_pubkey["address"].get<std::string>();
      ScriptTruth::Block& b = t.blocks[height];
      if (touched.insert(hex).second) {
        ++b.txs;
        t.txs.insert({height, position, txid});
      }
      if (spent) {
        ++b.spent;
        b.spent_sum += o.value;
        t.spent.push_back(o);
      } else {
        ++b.funded;
        b.funded_sum += o.value;
        t.funded.push_back(o);
      }
    };
    for (const auto& in : tx["vin"]) {
      if (!in.contains("prevout")) continue;
      add(in["prevout"]["scriptPubKey"],
          {in["txid"].get<std::string>(), in["vout"].get<std::uint32_t>(), sats(in["prevout"]["value"]), height}, true);
    }
    for (const auto& out : tx["vout"]) {
      add(out["scriptPubKey"], {txid, out["n"].get<std::uint32_t>(), sats(out["value"]), height}, false);
    }
    ++position;
  }
}

}  // namespace test
