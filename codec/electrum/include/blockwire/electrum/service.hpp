// The Electrum protocol's answers (ElectrumX's protocol 1.4, which electrs
// and Fulcrum follow) over a blocks directory, its transaction index and
// its address index: a line of JSON-RPC 2.0 in (one request, a batch, a
// notification), the line to send back out. What a connection subscribed
// to is the caller's (Subscriptions), so that one Service answers every
// connection of a server and a test calls it with no socket at all.
#pragma once

#include <blockwire/directory/address_index.hpp>
#include <blockwire/directory/block_store.hpp>
#include <blockwire/directory/tx_index.hpp>
#include <blockwire/electrum/mempool.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

namespace blockwire::electrum {

// The protocol's version this server speaks (server.version, features).
inline constexpr std::string_view protocol_version = "1.4";

struct ServiceOptions {
  std::string banner;            // server.banner's text (empty: one that says what this server is)
  std::string donation_address;  // server.donation_address
  // A script with more transactions than this: its history, status and
  // unspent outputs refused ("history too large"), as electrs refuses them.
  std::uint64_t max_history = 200'000;
  std::size_t max_subscriptions = 10'000;  // scripthashes one connection may follow
  std::size_t max_batch = 20'000;          // requests in one batch
  // Bytes of one answer (a batch's): past it, the batch's other requests
  // get an error instead (a line of 4 MiB could ask for gigabytes).
  std::size_t max_answer = 64 << 20;
  // Checkpoint proofs' leaves hashed for one line (cp_height: a block
  // hash each); past it, the line's other proofs get an error.
  std::uint64_t max_proof_leaves = 8'000'000;
};

// What one connection follows: the tip's headers, and scripthashes, each
// with the status last sent and the highest block its history had then
// (Service::changes compares).
struct Subscriptions {
  bool headers = false;
  std::optional<Height> header_sent;  // the height of the last tip told (none twice)
  struct Followed {
    std::optional<std::string> status;
    std::optional<Height> top;  // the last block of the history the status was of (none: none)
  };
  std::map<ScriptHash, Followed, ScriptHashLess> scripts;
  bool version_said = false;  // server.version answered once (a second is an error, as ElectrumX has it)
  bool close = false;         // the answer is the last: the connection closes after it
};

// The node behind the server: its unconfirmed transactions, and how to
// hand it one. Without it, confirmed data only.
struct NodeSide {
  const Mempool* mempool = nullptr;
  // A raw transaction to the node: its txid once the node has it, or why not.
  std::function<std::variant<Txid, std::string>(std::span<const std::byte>)> broadcast;
  // The lowest fee rate the node relays, sat/kvB (none: not known yet).
  std::function<std::optional<std::int64_t>()> relay_fee;
};

class Service {
 public:
  // `transactions`: none answers blockchain.transaction.get "not found"
  // for every txid.
  Service(BlockStore& store, const TxIndex* transactions, const AddressIndex& addresses, ServiceOptions options, NodeSide node = {});

  // The answer to one line a client sent: a response, a batch's array, or
  // empty for notifications alone. Malformed JSON and requests get the
  // protocol's errors (-32700, -32600, -32601, -32602), never an exception.
  std::string answer(std::string_view line, Subscriptions& mine) const;

  // After the tip moved from `old_tip` (a block of the index, perhaps off
  // the best chain now): the notification lines `mine` is owed, its
  // statuses brought up to date. A status is worked out once a tip for
  // all connections (a script many wallets follow is read once). Safe
  // from several threads at once.
  // `touched`: scripts whose unconfirmed history changed (their statuses
  // are worked out again too).
  std::vector<std::string> changes(const BlockHash& old_tip, Subscriptions& mine, const ScriptSet* touched = nullptr) const;

  // Electrum's scripthash (the script's SHA-256, its bytes reversed in hex).
  static std::optional<ScriptHash> parse_scripthash(std::string_view hex);
  static std::string scripthash_hex(const ScriptHash& script);

  struct Impl;

 private:
  BlockStore& store_;
  const TxIndex* transactions_;
  const AddressIndex& addresses_;
  ServiceOptions options_;
  NodeSide node_;
  struct Statuses;  // the statuses worked out at the current tip
  std::shared_ptr<Statuses> statuses_;
};

}  // namespace blockwire::electrum
