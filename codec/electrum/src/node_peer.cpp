#include "node_peer.hpp"

#include <blockwire/io/hex.hpp>

#include <sys/socket.h>

#include <random>
#include <set>

namespace blockwire::electrum::detail {

namespace {

using clock = std::chrono::steady_clock;

constexpr std::uint64_t node_bloom = 4;  // answers `mempool` (BIP35) to anyone
constexpr std::uint64_t max_waiting_bytes = 32 << 20;
constexpr unsigned max_broadcasts = 4;  // at once: each holds a thread until the node answers
constexpr auto ping_every = std::chrono::seconds(30);

net::Timeouts peer_timeouts() {
  net::Timeouts t;
  t.connect = std::chrono::seconds(3);  // (a stop waits for a connect under way: the node is near)
  t.idle = std::chrono::minutes(3);     // (pinged every 30 s: an answer comes long before)
  return t;
}

std::uint64_t random_nonce() {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  return generator();
}

const char* transport_name(net::transport t) { return t == net::transport::v2 ? "v2" : "v1"; }

}  // namespace

NodePeer::NodePeer(const NodePeerOptions& options, network net, Mempool& mempool, ChainCoins chain,
                   std::function<bool(const Txid&)> in_chain, std::function<void(const ScriptSet&)> changed)
    : options_(options),
      net_(net),
      mempool_(mempool),
      chain_(std::move(chain)),
      in_chain_(std::move(in_chain)),
      changed_(std::move(changed)) {
  thread_ = std::thread([this] { run(); });
}

void NodePeer::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    for (const int fd : sockets_) ::shutdown(fd, SHUT_RDWR);
  }
  wake_.notify_all();
}

bool NodePeer::stopping() const {
  const std::lock_guard lock(mutex_);
  return stopping_;
}

void NodePeer::track(int& mine, int fd) {
  const std::lock_guard lock(mutex_);
  if (mine >= 0) sockets_.erase(mine);
  mine = fd;
  if (fd < 0) return;
  sockets_.insert(fd);
  if (stopping_) ::shutdown(fd, SHUT_RDWR);
}

NodePeer::~NodePeer() {
  stop();
  thread_.join();
}

void NodePeer::say(const std::string& line) const {
  if (options_.log) options_.log("node " + options_.peer.to_string() + ": " + line);
}

bool NodePeer::sleep_for(std::chrono::seconds s) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, s, [&] { return stopping_; });
}

void NodePeer::keep(const Transaction& tx) {
  const Txid txid = tx.txid();
  if (in_chain_(txid)) return;  // (announced as a block took it)
  auto added = mempool_.add(tx, chain_);
  if (!added) {
    say("transaction " + txid.to_hex() + " not kept: " + added.error().message());
    return;
  }
  ScriptSet touched = std::move(added.value().touched);
  switch (added.value().what) {
    case Mempool::outcome::missing_inputs: {
      const std::lock_guard lock(mutex_);
      waiting_bytes_ += tx.size();
      waiting_.push_back({tx, 0});
      while (waiting_bytes_ > max_waiting_bytes) {
        waiting_bytes_ -= waiting_.front().tx.size();
        waiting_.pop_front();
      }
      break;
    }
    case Mempool::outcome::full: say("transaction " + txid.to_hex() + " not kept: the mempool's 300 MB are full"); break;
    case Mempool::outcome::overspends: say("transaction " + txid.to_hex() + " not kept: its outputs are worth more than its coins"); break;
    case Mempool::outcome::added: adopt(txid, touched); break;
    case Mempool::outcome::known: break;
  }
  if (!touched.empty()) changed_(touched);
}

void NodePeer::adopt(const Txid& parent, ScriptSet& touched) {
  std::vector<Transaction> children;
  {
    const std::lock_guard lock(mutex_);
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      bool spends = false;
      for (std::size_t i = 0; i < it->tx.input_count() && !spends; ++i) spends = it->tx.input(i).prevout().txid == parent;
      if (!spends) {
        ++it;
        continue;
      }
      waiting_bytes_ -= it->tx.size();
      children.push_back(std::move(it->tx));
      it = waiting_.erase(it);
    }
  }
  for (const Transaction& child : children) {
    auto added = mempool_.add(child, chain_);
    if (!added || added.value().what != Mempool::outcome::added) continue;
    touched.insert(added.value().touched.begin(), added.value().touched.end());
    adopt(child.txid(), touched);
  }
}

ScriptSet NodePeer::retry_waiting() {
  std::deque<Waiting> again;
  {
    const std::lock_guard lock(mutex_);
    again.swap(waiting_);
    waiting_bytes_ = 0;
  }
  ScriptSet touched;
  std::deque<Waiting> still;
  for (Waiting& w : again) {
    if (in_chain_(w.tx.txid())) continue;
    auto added = mempool_.add(w.tx, chain_);
    if (!added) {
      say("transaction " + w.tx.txid().to_hex() + " not kept: " + added.error().message());
      continue;
    }
    // (missing a coin through two blocks: it spends what the node will not take)
    if (added.value().what == Mempool::outcome::missing_inputs && ++w.blocks < 2) still.push_back(std::move(w));
    touched.insert(added.value().touched.begin(), added.value().touched.end());
  }
  const std::lock_guard lock(mutex_);
  for (Waiting& w : still) {
    if (waiting_bytes_ + w.tx.size() > max_waiting_bytes) break;
    waiting_bytes_ += w.tx.size();
    waiting_.push_back(std::move(w));
  }
  return touched;
}

void NodePeer::run() {
  const auto stopped = [this] { return stopping(); };
  int socket = -1;
  const auto on_socket = [&](int fd) { track(socket, fd); };
  bool said_failure = false;
  while (!stopped()) {
    net::Dialed dialed = net::dial(options_.peer, net_, peer_timeouts(), options_.preferred, on_socket, stopped);
    std::optional<error> failure = dialed.failure;
    std::optional<net::Connection>& c = dialed.connection;
    std::set<Hash256> asked;  // announced and asked for, not yet come (asked once)
    if (c && !failure) {
      net::LocalVersion us;
      us.relay = true;
      auto version = c->handshake_outbound(us);
      if (!version) failure = version.error();
      if (version) {
        connected_ = true;
        said_failure = false;
        say("connected (" + std::string(transport_name(c->transport_kind())) + "), following its mempool");
        // (Core disconnects a peer asking for its whole mempool unless it serves bloom filters or the peer is whitelisted)
        if ((version.value().services & node_bloom) != 0) {
          if (auto r = c->send("mempool", {}); !r) failure = r.error();
        }
        std::optional<std::uint64_t> ping_out;
        while (!failure && !stopped()) {
          auto message = c->receive(clock::now() + ping_every);
          if (!message) {
            if (message.error().code() == net::errc::timed_out && !ping_out) {
              ping_out = random_nonce();
              if (auto r = c->send(p2p::Ping{*ping_out}); !r) failure = r.error();
              continue;
            }
            failure = message.error();
            break;
          }
          if (const auto* pong = std::get_if<p2p::Pong>(&message.value()); pong && ping_out && pong->nonce == *ping_out) {
            ping_out.reset();
          } else if (const auto* inv = std::get_if<p2p::Inv>(&message.value())) {
            p2p::GetData wanted;
            for (const p2p::InvItem& item : inv->items) {
              const bool by_wtxid = item.type == p2p::inv::wtx;
              if (item.type != p2p::inv::tx && !by_wtxid) continue;
              if (!by_wtxid && mempool_.contains(Txid::from_raw_hash(item.hash))) continue;
              if (asked.size() > 100'000) asked.clear();
              if (!asked.insert(item.hash).second) continue;
              wanted.items.push_back({by_wtxid ? p2p::inv::wtx : p2p::inv::tx | p2p::inv::witness_flag, item.hash});
            }
            if (!wanted.items.empty()) {
              if (auto r = c->send(wanted); !r) failure = r.error();
            }
          } else if (const auto* tx = std::get_if<p2p::TxMessage>(&message.value())) {
            asked.erase(tx->tx.wtxid().to_raw_hash());
            asked.erase(tx->tx.txid().to_raw_hash());
            keep(tx->tx);
          } else if (const auto* filter = std::get_if<p2p::FeeFilter>(&message.value())) {
            fee_filter_ = filter->fee_rate;
          } else if (const auto* gone = std::get_if<p2p::NotFound>(&message.value())) {
            for (const p2p::InvItem& item : gone->items) asked.erase(item.hash);
          }
        }
      }
    }
    const bool was_connected = connected_.exchange(false);
    track(socket, -1);  // (closed with `dialed` below: its number may be reused)
    if (stopped()) break;
    const std::string why = failure ? (c ? c->describe(*failure) : failure->message()) : "closed";
    {
      const std::lock_guard lock(mutex_);
      last_failure_ = why;
    }
    if (was_connected) {
      // (its announcements are no longer heard: what it drops would stay here)
      const ScriptSet touched = mempool_.clear();
      if (!touched.empty()) changed_(touched);
    }
    if (was_connected || !said_failure) say(why + "; trying again every " + std::to_string(options_.retry.count()) + " s");
    said_failure = true;
    if (!sleep_for(options_.retry)) break;
  }
}

std::variant<Txid, std::string> NodePeer::broadcast(std::span<const std::byte> raw) {
  auto decoded = decode_transaction(raw);
  if (!decoded) return "not a transaction: " + decoded.error().message();
  const Transaction& tx = decoded.value();
  const Txid txid = tx.txid();
  if (mempool_.contains(txid)) return txid;
  if (!connected_) {
    const std::lock_guard lock(mutex_);
    return "no connection to the node at " + options_.peer.to_string() + (last_failure_.empty() ? "" : " (" + last_failure_ + ")");
  }
  if (++broadcasting_ > max_broadcasts) {
    --broadcasting_;
    return "too many broadcasts under way: try again in a moment";
  }
  struct Release {
    std::atomic<unsigned>& n;
    ~Release() { --n; }
  } release{broadcasting_};
  net::Timeouts timeouts;
  timeouts.connect = std::min(timeouts.connect, std::chrono::milliseconds(options_.broadcast_timeout));
  timeouts.idle = options_.broadcast_timeout;
  timeouts.handshake = options_.broadcast_timeout;
  const auto stopped = [this] { return stopping(); };
  int socket = -1;  // (shut down by stop())
  net::Dialed dialed = net::dial(
      options_.peer, net_, timeouts, options_.preferred, [&](int fd) { track(socket, fd); }, stopped);
  struct Forget {  // (before `dialed` closes it: its number may be reused)
    NodePeer& peer;
    int& socket;
    ~Forget() { peer.track(socket, -1); }
  } const forget{*this, socket};
  if (!dialed.connection || dialed.failure) {
    const error e = dialed.failure.value_or(error(net::errc::connection_closed));
    return "could not reach the node at " + options_.peer.to_string() + ": " +
           (dialed.connection ? dialed.connection->describe(e) : e.message());
  }
  net::Connection& c = *dialed.connection;
  if (auto v = c.handshake_outbound(); !v) return c.describe(v.error());
  // The transaction, then a ping: the pong says the node has read it (and a
  // node that still speaks BIP61 has said if it refused it before).
  const auto exchange = [&](const p2p::Message& first, clock::time_point until) -> std::variant<std::optional<Transaction>, std::string> {
    const std::uint64_t nonce = random_nonce();
    if (auto r = c.send(first); !r) return c.describe(r.error());
    if (auto r = c.send(p2p::Ping{nonce}); !r) return c.describe(r.error());
    std::optional<Transaction> got;
    for (;;) {
      auto message = c.receive(until);
      if (!message) return stopped() ? std::string("the server is stopping") : c.describe(message.error());
      if (const auto* reject = std::get_if<p2p::Reject>(&message.value()); reject && reject->message == "tx") {
        return "the node rejected it: " + reject->reason + " (code " + std::to_string(reject->code) + ")";
      }
      if (const auto* sent = std::get_if<p2p::TxMessage>(&message.value()); sent && sent->tx.txid() == txid) got = sent->tx;
      if (const auto* pong = std::get_if<p2p::Pong>(&message.value()); pong && pong->nonce == nonce) return got;
    }
  };
  const auto until = clock::now() + options_.broadcast_timeout;
  if (auto r = exchange(p2p::TxMessage{tx}, until); std::holds_alternative<std::string>(r)) return std::get<std::string>(r);
  while (clock::now() < until && !stopped()) {
    if (mempool_.wait_for(txid, std::min(until, clock::now() + std::chrono::milliseconds(200)))) return txid;
  }
  if (stopped()) return "the server is stopping";
  // Not announced: a node that had it already does not announce it again,
  // but gives it to anyone who asks once it waited two minutes (Core's
  // UNCONDITIONAL_RELAY_DELAY).
  const auto asked =
      exchange(p2p::GetData{{{p2p::inv::tx | p2p::inv::witness_flag, txid.to_raw_hash()}}}, clock::now() + std::chrono::seconds(5));
  if (const auto* had = std::get_if<std::optional<Transaction>>(&asked); had && *had) {
    keep(**had);
    return txid;
  }
  return "the node did not announce it within " + std::to_string(options_.broadcast_timeout.count()) +
         " s: it refused it (Core says why in its log, not to its peers) or holds it back";
}

}  // namespace blockwire::electrum::detail
