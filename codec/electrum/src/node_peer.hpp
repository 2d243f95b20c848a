// The node behind the Electrum server, over P2P: one connection kept open
// that asks the node to announce its transactions (version's relay flag)
// and fetches each announced one into the Mempool; and, for a broadcast,
// a connection of its own that hands the node the transaction, which the
// node then announces on the first (the proof it took it: Core no longer
// says when it refuses one).
#pragma once

#include <blockwire/electrum/mempool.hpp>
#include <blockwire/electrum/server.hpp>
#include <blockwire/net/connection.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <variant>

namespace blockwire::electrum::detail {

class NodePeer {
 public:
  // `changed`: called (from the peer's thread) with the scripts whose
  // unconfirmed history changed. `in_chain`: whether a transaction is
  // confirmed already (announced as a block took it: not kept).
  NodePeer(const NodePeerOptions& options, network net, Mempool& mempool, ChainCoins chain, std::function<bool(const Txid&)> in_chain,
           std::function<void(const ScriptSet&)> changed);
  NodePeer(const NodePeer&) = delete;
  NodePeer& operator=(const NodePeer&) = delete;
  ~NodePeer();

  // Hands `raw` to the node: its txid once the node announced it, or why not.
  std::variant<Txid, std::string> broadcast(std::span<const std::byte> raw);
  // After the chain moved: the transactions that waited for their coins
  // (spending a block not yet read) are tried again; those still missing
  // a coin after two blocks are dropped.
  ScriptSet retry_waiting();
  // Ends the kept connection and every broadcast under way (their answers:
  // an error); from any thread.
  void stop();
  // The lowest fee rate the node relays, sat/kvB, as its feefilter said
  // (none: not said yet).
  std::optional<std::int64_t> relay_fee() const {
    const std::int64_t f = fee_filter_;
    return f >= 0 ? std::optional<std::int64_t>(f) : std::nullopt;
  }

 private:
  void run();
  void keep(const Transaction& tx);  // into the mempool, or waiting
  // Waiting transactions that spend `parent`'s outputs, tried again.
  void adopt(const Txid& parent, ScriptSet& touched);
  void say(const std::string& line) const;
  bool stopping() const;
  // `mine` (a connection's socket, -1: none) becomes `fd`: shut down by
  // stop(), at once when stopping already.
  void track(int& mine, int fd);
  bool sleep_for(std::chrono::seconds s);  // false: stopping

  NodePeerOptions options_;
  network net_;
  Mempool& mempool_;
  ChainCoins chain_;
  std::function<bool(const Txid&)> in_chain_;
  std::function<void(const ScriptSet&)> changed_;
  std::atomic<bool> connected_{false};
  std::atomic<std::int64_t> fee_filter_{-1};
  std::atomic<unsigned> broadcasting_{0};
  mutable std::mutex mutex_;  // guards what follows
  std::condition_variable wake_;
  bool stopping_ = false;
  std::set<int> sockets_;  // the kept connection's and the broadcasts', for shutdown(2) at stop
  std::string last_failure_;
  struct Waiting {
    Transaction tx;
    unsigned blocks = 0;  // tips it was tried again at
  };
  std::deque<Waiting> waiting_;
  std::uint64_t waiting_bytes_ = 0;
  std::thread thread_;
};

}  // namespace blockwire::electrum::detail
