#include "random_nonce.hpp"

#include <blockwire/io/sha256.hpp>
#include <blockwire/net/serve.hpp>
#include <blockwire/p2p/compact_blocks.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <optional>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <variant>

namespace blockwire::net {

TipSignal::TipSignal() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), ownership::own) {}

void TipSignal::notify() noexcept {
  const std::uint64_t one = 1;
  (void)!::write(fd_.get(), &one, sizeof one);
}

void TipSignal::clear() noexcept {
  std::uint64_t count = 0;
  (void)!::read(fd_.get(), &count, sizeof count);
}

namespace {

using clock = std::chrono::steady_clock;

// The block at `height` of the best chain, if there is one (the index locked).
std::optional<IndexedBlock> on_best_chain(const BlockIndex& index, Height height) {
  if (!index.chain_size().contains(height)) return std::nullopt;
  return index.at_height(height);
}

// Core's FindForkInGlobalIndex: the height of the first locator hash on our
// best chain; the genesis block's (0) when none is.
Height fork_point(const BlockIndex& index, const std::vector<BlockHash>& locator) {
  for (const BlockHash& hash : locator) {
    const auto b = index.find(hash);
    if (b && index.on_best_chain(*b)) return b->height;
  }
  return Height::genesis();
}

// getheaders: from the fork point on, up to 2,000 headers or the stop hash.
// With no locator, the stop hash's header alone, as Core answers; nothing,
// not even an empty headers message, when the stop hash is unknown (Core
// returns without an answer there).
std::optional<p2p::Headers> headers_after(const BlockIndex& index, const p2p::GetHeaders& request) {
  p2p::Headers out;
  if (request.locator.empty()) {
    const auto b = index.find(request.stop);
    if (!b) return std::nullopt;
    if (auto header = index.header(*b)) out.headers.push_back(header.value());
    return out;
  }
  // (A header that cannot be read back ends the answer there.)
  for (Height h = fork_point(index, request.locator).next(); out.headers.size() < p2p::max_headers; ++h) {
    const auto b = on_best_chain(index, h);
    if (!b) break;
    auto header = index.header(*b);
    if (!header) break;
    out.headers.push_back(header.value());
    if (b->hash == request.stop) break;
  }
  return out;
}

// What a peer asked for, per connection.
struct PeerState {
  bool send_headers = false;                     // sendheaders: announce by headers
  bool high_bandwidth = false;                   // sendcmpct(1, 2): announce a new block by cmpctblock
  bool addr_answered = false;                    // getaddr is answered once, as Core does
  std::optional<BlockHash> continuation;         // Core's m_continuation_block: the last hash of a full getblocks inv
  BlockHash announced = BlockHash::all_zeros();  // the tip the peer knows of from us
  std::uint64_t cmpct_nonce = 0;
};

// getblocks: an inv of up to 500 hashes after the fork point, stopping
// before the stop hash; a full one remembers its last hash (continuation).
p2p::Inv blocks_after(const BlockIndex& index, const p2p::GetBlocks& request, PeerState& state) {
  p2p::Inv inv;
  for (Height h = fork_point(index, request.locator).next();; ++h) {
    const auto b = on_best_chain(index, h);
    if (!b || b->hash == request.stop) break;
    inv.items.push_back({p2p::inv::block, b->hash.to_raw_hash()});
    if (inv.items.size() == max_getblocks_inv) {
      state.continuation = b->hash;
      break;
    }
  }
  return inv;
}

// Where a requested block is, looked up under the lock: read and sent after.
struct Located {
  std::string path;
  std::uint64_t offset;
  std::int64_t depth;                       // below the tip (0: the tip); -1 off the best chain
  BlockHash hash = BlockHash::all_zeros();  // what the record must hold
};

// The record's block bytes, if it still holds that block: a writer may
// have cut the directory back and written other blocks there since the
// index was refreshed (it is checked, not trusted).
std::optional<std::vector<std::byte>> read_located(const Located& at, const XorKey& key, network net) {
  auto bytes = read_block_record(at.path, at.offset, key, net);
  if (!bytes || bytes.value().size() < header_size) return std::nullopt;
  auto header = decode_header(std::span<const std::byte>(bytes.value()).first(header_size));
  if (!header || block_hash(header.value()) != at.hash) return std::nullopt;
  return std::move(bytes).value();
}

std::optional<Located> locate(const BlockStore& store, const BlockHash& hash) {
  const auto lock = store.lock();
  const BlockIndex& index = store.index();
  const auto b = index.find(hash);
  if (!b || b->pruned) return std::nullopt;  // (a pruned block: notfound, as a pruned node answers)
  return Located{index.file_path(b->file), b->offset, index.on_best_chain(*b) ? *index.tip_height() - b->height : -1, b->hash};
}

class Server {
 public:
  Server(Connection& peer, const BlockStore& store) : peer_(peer), store_(store) {
    const auto lock = store_.lock();
    if (!store_.index().empty()) state_.announced = store_.index().tip();
    state_.cmpct_nonce = detail::random_nonce();
  }

  result<void> handle(const p2p::Message& message) {
    if (const auto* request = std::get_if<p2p::GetHeaders>(&message)) {
      std::optional<p2p::Headers> headers;
      {
        const auto lock = store_.lock();
        headers = headers_after(store_.index(), *request);
      }
      if (!headers) return success();
      return peer_.send(*headers);
    }
    if (const auto* request = std::get_if<p2p::GetBlocks>(&message)) {
      p2p::Inv inv;
      {
        const auto lock = store_.lock();
        inv = blocks_after(store_.index(), *request, state_);
      }
      if (inv.items.empty()) return success();  // Core sends no empty inv
      return peer_.send(inv);
    }
    if (const auto* request = std::get_if<p2p::GetData>(&message)) return send_data(*request);
    if (const auto* request = std::get_if<p2p::GetBlockTxn>(&message)) return send_block_transactions(*request);
    if (const auto* request = std::get_if<p2p::GetCFilters>(&message)) return send_filters(*request);
    if (const auto* request = std::get_if<p2p::GetCFHeaders>(&message)) return send_filter_headers(*request);
    if (const auto* request = std::get_if<p2p::GetCFCheckpt>(&message)) return send_filter_checkpoints(*request);
    if (std::holds_alternative<p2p::SendHeaders>(message)) {
      state_.send_headers = true;
    } else if (const auto* cmpct = std::get_if<p2p::SendCmpct>(&message)) {
      if (cmpct->version == p2p::compact_version_wtxid) state_.high_bandwidth = cmpct->announce;  // Core takes version 2 alone
    } else if (std::holds_alternative<p2p::GetAddr>(message)) {
      if (state_.addr_answered) return success();
      state_.addr_answered = true;
      return peer_.send(p2p::Addr{});  // we know of no other peer
    }
    // The rest (inv, addr, feefilter, mempool, wtxidrelay, sendaddrv2, a
    // pong...) needs nothing from a read-only peer.
    return success();
  }

  // The tip moved: tell the peer, as Core's SendMessages does.
  result<void> announce() {
    std::vector<BlockHeader> fresh;  // the new best-chain blocks since what the peer knows, oldest first
    BlockHash tip = BlockHash::all_zeros();
    std::optional<Located> single;
    {
      const auto lock = store_.lock();
      const BlockIndex& index = store_.index();
      if (index.empty()) return success();
      const IndexedBlock top = index.tip_block();
      tip = top.hash;
      if (tip == state_.announced) return success();
      const auto known = index.find(state_.announced);
      if (known && index.on_best_chain(*known) && top.height - known->height <= std::int64_t{max_blocks_to_announce}) {
        for (Height h = known->height.next(); h <= top.height; ++h) {
          auto header = index.header(*on_best_chain(index, h));
          if (!header) {  // (not read back: announced by inv)
            fresh.clear();
            break;
          }
          fresh.push_back(header.value());
        }
      }
      if (fresh.size() == 1) single = Located{index.file_path(top.file), top.offset, 0, top.hash};
    }
    state_.announced = tip;
    if (state_.high_bandwidth && single) {
      if (auto block = read_block(*single)) return peer_.send(p2p::make_cmpctblock(*block, state_.cmpct_nonce++));
    }
    if (state_.send_headers && !fresh.empty()) return peer_.send(p2p::Headers{std::move(fresh)});
    return peer_.send(p2p::Inv{{{p2p::inv::block, tip.to_raw_hash()}}});
  }

 private:
  std::optional<Block> read_block(const Located& at) {
    auto bytes = read_located(at, store_.key(), peer_.net());
    if (!bytes) return std::nullopt;
    auto block = decode_block(*bytes);
    if (!block) return std::nullopt;
    return std::move(block).value();
  }

  result<void> send_data(const p2p::GetData& request) {
    p2p::NotFound missing;
    for (const p2p::InvItem& item : request.items) {
      const std::uint32_t type = item.type & ~p2p::inv::witness_flag;
      const bool block_like = type == p2p::inv::block || type == p2p::inv::cmpct_block;
      const auto at = block_like ? locate(store_, BlockHash::from_raw_hash(item.hash)) : std::nullopt;
      // Transactions, filtered blocks, unknown types, blocks we lack, and
      // one whose record no longer holds it (or no longer reads).
      auto bytes = at ? read_located(*at, store_.key(), peer_.net()) : std::nullopt;
      std::optional<Block> decoded;
      const bool as_cmpct = at && type == p2p::inv::cmpct_block && at->depth >= 0 && at->depth <= max_cmpctblock_depth;
      const bool as_on_disk = (item.type & p2p::inv::witness_flag) != 0 || type == p2p::inv::cmpct_block;
      if (bytes && (as_cmpct || !as_on_disk)) {
        if (auto block = decode_block(*bytes)) decoded = std::move(block).value();
      }
      if (!bytes || ((as_cmpct || !as_on_disk) && !decoded)) {
        missing.items.push_back(item);
        continue;
      }
      if (as_cmpct) {
        if (auto r = peer_.send(p2p::make_cmpctblock(*decoded, state_.cmpct_nonce++)); !r) return r;
      } else if (as_on_disk) {
        if (auto r = peer_.send("block", *bytes); !r) return r;
      } else {
        const Block& block = *decoded;  // the form without witness data
        stripped_.clear();
        encode_block(block, stripped_, witness::disallow);
        if (auto r = peer_.send("block", stripped_); !r) return r;
      }
      // The last block of a full getblocks inv: an inv of the tip, so that
      // the peer asks for the next batch (Core's hashContinue).
      if (state_.continuation && state_.continuation->to_raw_hash() == item.hash) {
        state_.continuation.reset();
        std::optional<BlockHash> tip;
        {
          const auto lock = store_.lock();
          if (!store_.index().empty()) tip = store_.index().tip();
        }
        if (tip) {
          if (auto r = peer_.send(p2p::Inv{{{p2p::inv::block, tip->to_raw_hash()}}}); !r) return r;
        }
      }
    }
    if (!missing.items.empty()) return peer_.send(missing);
    return success();
  }

  result<void> send_block_transactions(const p2p::GetBlockTxn& request) {
    const auto at = locate(store_, request.block_hash);
    auto bytes = at ? read_located(*at, store_.key(), peer_.net()) : std::nullopt;
    if (!bytes) return success();  // Core ignores a getblocktxn for a block it lacks
    if (at->depth < 0 || at->depth > max_blocktxn_depth) return peer_.send("block", *bytes);  // too deep: the whole block, as Core sends it
    auto block = decode_block(*bytes);
    if (!block) return success();
    p2p::BlockTxn txn;
    txn.block_hash = request.block_hash;
    for (const std::uint16_t i : request.indexes) {
      // Core disconnects a peer asking past the block's transactions.
      if (i >= block.value().transactions.size()) return error(net::errc::getblocktxn_past_end, peer_.last_message_offset());
      txn.transactions.push_back(block.value().transactions[i]);
    }
    return peer_.send(txn);
  }

  // BIP157, with Core's rules (PrepareBlockFilterRequest): a filter type
  // we do not serve, an unknown stop hash, a start past it or too wide a
  // range, and the peer is disconnected, each with its own code. A stop
  // hash off our best chain (a block a reorg just left, which Core may
  // still serve from its index) disconnects too: its filters would need
  // the branch's own header chain. The peer hears of our new tip first,
  // so that a client can tell the chain changed. The height of the stop
  // block, or that error.
  result<Height> filter_range(std::uint8_t type, const BlockHash& stop, std::optional<std::uint32_t> start, std::uint32_t max) {
    const auto refuse = [&](net::errc why) { return error(why, peer_.last_message_offset()); };
    if (type != p2p::basic_filter_type || !store_.has_filters()) return refuse(net::errc::filter_type_not_served);
    std::optional<Height> stop_height;  // nothing: off the best chain
    {
      const auto lock = store_.lock();
      const auto b = store_.index().find(stop);
      if (!b) return refuse(net::errc::filter_stop_unknown);
      if (store_.index().on_best_chain(*b)) stop_height = b->height;
    }
    if (!stop_height) {
      (void)announce();  // outside the lock: it takes it
      return refuse(net::errc::filter_stop_not_on_chain);
    }
    if (start && *start > stop_height->to_wire()) return refuse(net::errc::filter_start_after_stop);
    if (start && stop_height->to_wire() - *start >= max) return refuse(net::errc::filter_range_too_wide);
    return *stop_height;
  }

  std::vector<BlockHash> best_hashes(Height from, Height to) const {
    const auto lock = store_.lock();
    std::vector<BlockHash> out;
    for (Height h = from; h <= to && store_.index().chain_size().contains(h); ++h) out.push_back(store_.index().at_height(h).hash);
    return out;
  }

  // (The start of a range filter_range took: at or below its stop, a height.)
  static Height start_of(std::uint32_t start_height) noexcept { return *Height::checked(start_height); }

  result<void> send_filters(const p2p::GetCFilters& request) {
    auto range = filter_range(request.filter_type, request.stop_hash, request.start_height, p2p::max_getcfilters);
    if (!range) return range.error();
    const Height start = start_of(request.start_height);
    const auto hashes = best_hashes(start, range.value());
    Height h = start;
    for (std::size_t i = 0; i < hashes.size(); ++i, ++h) {
      auto filter = store_.filter_at(h);
      if (!filter) return success();  // the directory changed under us: no answer, as Core when its index lags
      const auto encoded = filter.value().encoded();
      if (auto r = peer_.send(p2p::CFilter{request.filter_type, hashes[i], {encoded.begin(), encoded.end()}}); !r) return r;
    }
    return success();
  }

  result<void> send_filter_headers(const p2p::GetCFHeaders& request) {
    auto range = filter_range(request.filter_type, request.stop_hash, request.start_height, p2p::max_getcfheaders);
    if (!range) return range.error();
    const Height stop = range.value();
    const Height start = start_of(request.start_height);
    p2p::CFHeaders out{request.filter_type, request.stop_hash, {}, {}};
    if (const auto before = start.previous()) {
      auto previous = store_.filter_header_at(*before);
      if (!previous) return success();
      out.previous_header = previous.value();
    }
    for (Height h = start; h <= stop; ++h) {
      auto hash = store_.filter_hash_at(h);
      if (!hash) return success();
      out.filter_hashes.push_back(hash.value());
    }
    return peer_.send(out);
  }

  result<void> send_filter_checkpoints(const p2p::GetCFCheckpt& request) {
    auto range = filter_range(request.filter_type, request.stop_hash, std::nullopt, 0);
    if (!range) return range.error();
    p2p::CFCheckpt out{request.filter_type, request.stop_hash, {}};
    for (std::uint32_t h = p2p::cfcheckpt_interval; h <= range.value().to_wire(); h += p2p::cfcheckpt_interval) {
      auto header = store_.filter_header_at(*Height::checked(h));
      if (!header) return success();
      out.headers.push_back(header.value());
    }
    return peer_.send(out);
  }

  Connection& peer_;
  const BlockStore& store_;
  PeerState state_;
  std::vector<std::byte> stripped_;
};

}  // namespace

namespace {

// A request that uses what a node serves (what makes a peer worth a slot).
template <class M>
bool asks_for_data(const M&) {
  return std::is_same_v<M, p2p::GetHeaders> || std::is_same_v<M, p2p::GetBlocks> || std::is_same_v<M, p2p::GetData> ||
         std::is_same_v<M, p2p::GetBlockTxn> || std::is_same_v<M, p2p::GetCFilters> || std::is_same_v<M, p2p::GetCFHeaders> ||
         std::is_same_v<M, p2p::GetCFCheckpt>;
}

}  // namespace

result<void> serve_peer(Connection& peer, const BlockStore& store, TipSignal* tips, PeerWatch* watch) {
  Server server(peer, store);
  if (peer.peer_version() >= p2p::short_ids_version) {
    if (auto r = peer.send(p2p::SendCmpct{false, p2p::compact_version_wtxid}); !r) return r;
  }
  constexpr auto pong_timeout = std::chrono::minutes(20);  // Core's TIMEOUT_INTERVAL
  const auto ticks = [](clock::time_point t) { return static_cast<std::int64_t>(t.time_since_epoch().count()); };
  auto next_ping = watch != nullptr ? clock::now() + watch->ping_interval : clock::time_point::max();
  bool awaiting = false;  // a ping of ours not answered yet: its nonce, and when
  std::uint64_t pinged = 0;
  clock::time_point pinged_at;
  // The peer's silence is timed here, between messages: the loop also
  // wakes for new tips and pings, which do not count as the peer saying
  // anything.
  auto idle_until = clock::now() + peer.timeouts().idle;
  for (;;) {
    if (const auto now = clock::now(); now >= next_ping) {
      if (awaiting && now - pinged_at >= pong_timeout) return error(net::errc::timed_out, peer.bytes_received());
      if (!awaiting) {
        awaiting = true;
        pinged = detail::random_nonce();
        pinged_at = now;
        watch->ping_unanswered_since = ticks(now);
        if (auto r = peer.send(p2p::Ping{pinged}); !r) return r;
      }
      next_ping = now + watch->ping_interval;
    }
    if (!peer.has_buffered_input()) {
      const auto wake = std::min(idle_until, next_ping);
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(wake - clock::now());
      if (idle_until <= clock::now()) return error(net::errc::timed_out, peer.bytes_received());
      pollfd fds[2] = {{peer.fd(), POLLIN, 0}, {tips != nullptr ? tips->fd() : -1, POLLIN, 0}};
      const int n =
          ::poll(fds, tips != nullptr ? 2 : 1, static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(left.count(), 0, 1'000'000)));
      if (n < 0 && errno != EINTR) return std::error_code(errno, std::system_category());
      if (n <= 0) continue;
      if (tips != nullptr && fds[1].revents != 0) {
        tips->clear();
        if (auto r = server.announce(); !r) return r;
      }
      if (fds[0].revents == 0) continue;
    }
    auto message = peer.receive(idle_until);
    if (!message) {
      if (message.error().code() == net::errc::connection_closed && message.error().offset() == peer.bytes_received()) {
        return success();  // gone between messages: a goodbye
      }
      return message.error();
    }
    idle_until = clock::now() + peer.timeouts().idle;
    if (watch != nullptr) {
      if (const auto* pong = std::get_if<p2p::Pong>(&message.value()); pong != nullptr && awaiting && pong->nonce == pinged) {
        awaiting = false;
        watch->ping_unanswered_since = 0;
        const auto took =
            std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - pinged_at).count());
        if (const std::int64_t best = watch->min_ping_us.load(); best == 0 || took < best) watch->min_ping_us = took;
      }
      if (std::visit([](const auto& m) { return asks_for_data(m); }, message.value())) watch->asked = ticks(clock::now());
    }
    if (auto r = server.handle(message.value()); !r) return r;
  }
}

}  // namespace blockwire::net
