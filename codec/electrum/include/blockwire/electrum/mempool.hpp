// Mempool: a node's unconfirmed transactions as an Electrum server keeps
// them, from what the node announced. Each is kept with the coins it
// spends (their scripts and values: from the chain, or from another
// transaction kept here), so that a scripthash's unconfirmed history,
// balance and unspent outputs are read from memory. Scripts and
// signatures are not checked again: the node announces only what it
// accepted. What two transactions spend alike, the one announced last
// keeps (a node announces a replacement, never the replaced one), the
// other leaves with its descendants; a block's transactions leave, and
// those spending what the block spends. Safe from several threads.
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/directory/address_index.hpp>
#include <blockwire/io/error.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace blockwire::electrum {

// A coin a transaction spends: its script's hash and its value.
struct SpentOutput {
  ScriptHash script;
  Amount value;
};

// The confirmed coin at `outpoint` (none: the chain has no such output).
using ChainCoins = std::function<result<std::optional<SpentOutput>>(const OutPoint& outpoint)>;

struct ScriptHashLess {
  bool operator()(const ScriptHash& a, const ScriptHash& b) const noexcept {
    return std::lexicographical_compare(a.bytes().begin(), a.bytes().end(), b.bytes().begin(), b.bytes().end());
  }
};
using ScriptSet = std::set<ScriptHash, ScriptHashLess>;

class Mempool {
 public:
  // At most `max_bytes` of transactions (their serialized sizes), as
  // Core's -maxmempool bounds its own: past it, newcomers are refused.
  explicit Mempool(std::uint64_t max_bytes = 300'000'000) : max_bytes_(max_bytes) {}

  enum class outcome {
    added,
    known,           // already kept
    missing_inputs,  // a coin it spends is neither in the chain nor kept here (yet)
    overspends,      // its outputs are worth more than its coins
    full,            // max_bytes reached
  };
  struct Added {
    outcome what = outcome::added;
    std::vector<Txid> removed;  // what it replaced, with their descendants
    ScriptSet touched;          // the scripts whose unconfirmed history changed
  };
  // Errors: the chain's lookups'.
  result<Added> add(const Transaction& tx, const ChainCoins& chain);
  // A block joined the chain: its transactions leave, and those that spend
  // a coin it spends (conflicts), with their descendants. The scripts whose
  // unconfirmed history changed.
  ScriptSet confirmed(const Block& block);
  // What was kept before `before` leaves, with its descendants (Core
  // expires what waited two weeks, and says nothing of it).
  ScriptSet expire(std::chrono::steady_clock::time_point before);
  // Everything leaves (the node it came from is gone).
  ScriptSet clear();

  // A script's unconfirmed transactions as the protocol lists them: those
  // whose every coin is confirmed (height 0) first, then those spending an
  // unconfirmed one (-1), each group in txid order.
  struct Entry {
    Txid txid = Txid::all_zeros();
    std::int64_t height = 0;  // 0 or -1
    Amount fee;
  };
  std::vector<Entry> history(const ScriptHash& script) const;
  // What the script's unconfirmed transactions add to it (funded less spent).
  std::int64_t balance(const ScriptHash& script) const;
  struct Output {
    OutPoint outpoint;
    Amount value;
  };
  // Outputs to the script of unconfirmed transactions, not spent by another.
  std::vector<Output> unspent(const ScriptHash& script) const;
  // Whether a kept transaction spends `outpoint`.
  bool spends(const OutPoint& outpoint) const;
  std::optional<Transaction> transaction(const Txid& txid) const;
  bool contains(const Txid& txid) const;
  // Waits until `txid` is kept, or `until`.
  bool wait_for(const Txid& txid, std::chrono::steady_clock::time_point until) const;

  // Electrum's fee histogram as ElectrumX and Fulcrum make it: [fee rate
  // (sat/vB, rounded down), vbytes] from the highest rate down, bins of
  // 30,000 vbytes growing by 10% each, a rate with more than two bins'
  // worth alone in its own; what is left under a bin at the end not shown
  // (a mempool under 30,000 vbytes: none).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> fee_histogram() const;
  // The fee rate (sat/vB) a transaction needs to be in the next `blocks`
  // blocks if they were made of the highest-rate transactions kept (a
  // block: 1,000,000 vB); none when all kept would fit in them.
  std::optional<double> fee_rate_for(std::uint64_t blocks) const;

  std::size_t size() const;
  std::uint64_t bytes() const;

 private:
  struct Kept {
    Transaction tx;
    Amount fee;
    std::uint64_t vsize = 0;
    std::vector<SpentOutput> coins;   // an input each
    std::vector<ScriptHash> outputs;  // each output's script, hashed once
    ScriptSet scripts;                // funded or spent
    std::chrono::steady_clock::time_point since;
  };
  // Removes `txid` (and, with `descendants`, what spends its outputs),
  // their scripts into `touched`.
  void remove(const Txid& txid, bool descendants, std::vector<Txid>* removed, ScriptSet& touched);
  bool has_unconfirmed_coin(const Kept& k) const;

  std::uint64_t max_bytes_;
  std::uint64_t bytes_ = 0;
  mutable std::mutex mutex_;
  mutable std::condition_variable added_;
  std::map<Txid, Kept> txs_;
  std::map<OutPoint, Txid> spenders_;
  std::map<ScriptHash, std::set<Txid>, ScriptHashLess> by_script_;
};

}  // namespace blockwire::electrum
