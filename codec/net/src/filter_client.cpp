#include <blockwire/codec.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/net/error.hpp>
#include <blockwire/net/filter_client.hpp>
#include <blockwire/p2p.hpp>

#include <algorithm>
#include <variant>

namespace blockwire::net {

namespace {

// The next message of type M (others passed by: an inv of a new tip, a
// getheaders of the peer's own). `announced`: set when the peer announces
// a block, a tip other than the one we fetch up to; should the peer then
// end the connection (serve does at a request for a block its best chain
// no longer has), that is net::errc::chain_changed.
template <class M>
result<M> next(Connection& peer, bool& announced) {
  for (;;) {
    auto m = peer.receive();
    if (!m) {
      if (announced && m.error().code() == net::errc::connection_closed) return error(net::errc::chain_changed, m.error().offset());
      return m.error();
    }
    if (auto* got = std::get_if<M>(&m.value())) return std::move(*got);
    if (std::holds_alternative<p2p::GetHeaders>(m.value())) {
      if (auto r = peer.send(p2p::Headers{}); !r) return r.error();
    }
    if (const auto* inv = std::get_if<p2p::Inv>(&m.value())) {
      for (const auto& item : inv->items) announced = announced || (item.type & ~p2p::inv::witness_flag) == p2p::inv::block;
    }
  }
}

error bad(const Connection& peer) { return error(net::errc::bad_filter, peer.last_message_offset()); }

// The peer's best chain's block hashes from genesis, each header linked to
// the one before and its proof of work checked.
result<std::vector<BlockHash>> header_chain(Connection& peer, bool& announced) {
  std::vector<BlockHash> chain{genesis_hash(peer.net())};
  for (;;) {
    if (auto r = peer.send(p2p::GetHeaders{p2p::protocol_version, {chain.back()}, BlockHash::all_zeros()}); !r) return r.error();
    auto headers = next<p2p::Headers>(peer, announced);
    if (!headers) return headers.error();
    for (const BlockHeader& h : headers.value().headers) {
      const BlockHash hash = block_hash(h);
      if (h.prev_block != chain.back()) return error(net::errc::unconnected_headers, peer.last_message_offset());
      if (!proof_of_work_ok(hash, h.bits, peer.net())) return error(net::errc::bad_header_pow, peer.last_message_offset());
      chain.push_back(hash);
    }
    if (headers.value().headers.size() < p2p::max_headers) return chain;
  }
}

}  // namespace

result<void> fetch_filters(Connection& peer, const std::function<void(const PeerFilter&)>& each) {
  bool announced = false;
  auto hashes = header_chain(peer, announced);
  announced = false;  // what came before the chain was read is in it
  if (!hashes) return hashes.error();
  const std::vector<BlockHash>& chain = hashes.value();
  const std::size_t tip = chain.size() - 1;

  if (auto r = peer.send(p2p::GetCFCheckpt{p2p::basic_filter_type, chain[tip]}); !r) return r;
  auto checkpoints = next<p2p::CFCheckpt>(peer, announced);
  if (!checkpoints) return checkpoints.error();
  if (checkpoints.value().filter_type != p2p::basic_filter_type || checkpoints.value().stop_hash != chain[tip] ||
      checkpoints.value().headers.size() != tip / p2p::cfcheckpt_interval) {
    return bad(peer);
  }

  // Ranges that end on a checkpoint (0 to 1,000, then 1,001 to 2,000, ...):
  // each range's headers are checked against one before its filters are
  // handed on (past the last checkpoint nothing can check them but the
  // filters' hashes).
  Hash256 header;  // zero before genesis
  for (std::size_t start = 0, stop = 0; start <= tip; start = stop + 1) {
    stop = std::min(tip, (start / p2p::cfcheckpt_interval + 1) * p2p::cfcheckpt_interval);
    const p2p::GetCFHeaders ask{p2p::basic_filter_type, static_cast<std::uint32_t>(start), chain[stop]};
    if (auto r = peer.send(ask); !r) return r;
    auto got = next<p2p::CFHeaders>(peer, announced);
    if (!got) return got.error();
    const p2p::CFHeaders& h = got.value();
    if (h.filter_type != p2p::basic_filter_type || h.stop_hash != chain[stop] || h.previous_header != header ||
        h.filter_hashes.size() != stop - start + 1) {
      return bad(peer);
    }
    std::vector<Hash256> headers;
    for (std::size_t i = 0; i < h.filter_hashes.size(); ++i) {
      header = filters::filter_header(h.filter_hashes[i], header);
      headers.push_back(header);
      const std::size_t height = start + i;
      if (height != 0 && height % p2p::cfcheckpt_interval == 0 &&
          checkpoints.value().headers[height / p2p::cfcheckpt_interval - 1] != header) {
        return bad(peer);
      }
    }
    // This range's filters, 1,000 a request, each checked against its hash.
    for (std::size_t from = start; from <= stop; from += p2p::max_getcfilters) {
      const std::size_t to = std::min(stop, from + p2p::max_getcfilters - 1);
      if (auto r = peer.send(p2p::GetCFilters{p2p::basic_filter_type, static_cast<std::uint32_t>(from), chain[to]}); !r) return r;
      for (std::size_t height = from; height <= to; ++height) {
        auto f = next<p2p::CFilter>(peer, announced);
        if (!f) return f.error();
        const std::size_t i = height - start;
        if (f.value().filter_type != p2p::basic_filter_type || f.value().block_hash != chain[height] ||
            sha256d(f.value().filter) != h.filter_hashes[i]) {
          return bad(peer);
        }
        if (!filters::GcsFilter::decode(filters::basic_params(chain[height]), f.value().filter)) return bad(peer);
        each(PeerFilter{*Height::checked(height), chain[height], std::move(f.value().filter),
                        headers[i]});  // (a place in `chain`: a height)
      }
    }
  }
  return success();
}

}  // namespace blockwire::net
