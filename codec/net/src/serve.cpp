#include <blockwire/net/serve.hpp>

#include <algorithm>
#include <variant>

namespace blockwire::net {
namespace {

// getheaders: from the first locator hash on our best chain (the genesis
// block when none is), up to 2,000 headers or the stop hash. With no
// locator, the stop hash's header alone, as Core answers.
p2p::Headers headers_after(const BlockIndex& index, const p2p::GetHeaders& request) {
  const auto best = index.best_chain();
  if (request.locator.empty()) {
    p2p::Headers one;
    if (const IndexedBlock* b = index.find(request.stop)) one.headers.push_back(b->header);
    return one;
  }
  std::size_t from = 0;  // height of the last block the peer has
  for (const Hash256& hash : request.locator) {
    const IndexedBlock* b = index.find(hash);
    if (b != nullptr && b->height >= 0 && static_cast<std::size_t>(b->height) < best.size() &&
        &index.blocks()[best[static_cast<std::size_t>(b->height)]] == b) {
      from = static_cast<std::size_t>(b->height);
      break;
    }
  }
  p2p::Headers out;
  for (std::size_t h = from + 1; h < best.size() && out.headers.size() < p2p::max_headers; ++h) {
    const IndexedBlock& b = index.blocks()[best[h]];
    out.headers.push_back(b.header);
    if (b.hash == request.stop) break;
  }
  return out;
}

result<void> send_blocks(Connection& peer, const BlockStore& store, const p2p::GetData& request) {
  p2p::NotFound missing;
  std::vector<std::byte> stripped;
  for (const p2p::InvItem& item : request.items) {
    const std::uint32_t type = item.type & ~p2p::inv::witness_flag;
    const IndexedBlock* b = type == p2p::inv::block ? store.index.find(item.hash) : nullptr;
    if (b == nullptr) {
      missing.items.push_back(item);
      continue;
    }
    auto bytes = read_block_record(store.index.file_path(b->file), b->offset, store.key, peer.net());
    if (!bytes) return bytes.error();
    if ((item.type & p2p::inv::witness_flag) != 0) {  // as it is on disk
      if (auto r = peer.send("block", bytes.value()); !r) return r;
      continue;
    }
    auto block = decode_block(bytes.value());  // the form without witness data
    if (!block) return block.error();
    stripped.clear();
    encode_block(block.value(), stripped, witness::disallow);
    if (auto r = peer.send("block", stripped); !r) return r;
  }
  if (!missing.items.empty()) return peer.send(missing);
  return success();
}

}  // namespace

result<void> serve_peer(Connection& peer, const BlockStore& store) {
  for (;;) {
    auto message = peer.receive();
    if (!message) {
      if (message.error().code() == net_errc::connection_closed && message.error().offset() == peer.bytes_received()) {
        return success();  // gone between messages: a goodbye
      }
      return message.error();
    }
    result<void> sent = success();
    if (const auto* request = std::get_if<p2p::GetHeaders>(&message.value())) {
      sent = peer.send(headers_after(store.index, *request));
    } else if (const auto* blocks = std::get_if<p2p::GetData>(&message.value())) {
      sent = send_blocks(peer, store, *blocks);
    }
    // The rest (inv, addr, feefilter, sendheaders...) needs nothing from a
    // read-only peer.
    if (!sent) return sent;
  }
}

}  // namespace blockwire::net
