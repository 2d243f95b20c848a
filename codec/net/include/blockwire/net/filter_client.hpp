// BIP157 from the client's side: a peer's header chain, then its filter
// checkpoints, filter headers and filters, each checked against the others
// before it is handed on.
#pragma once

#include <blockwire/codec/height.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/net/connection.hpp>

#include <cstdint>
#include <functional>
#include <vector>

namespace blockwire::net {

struct PeerFilter {
  Height height = Height::genesis();
  BlockHash block_hash = BlockHash::all_zeros();
  std::vector<std::byte> filter;  // the encoded basic filter
  Hash256 header;                 // its BIP157 filter header
};

// Every basic filter of the peer's best chain, in height order, to `each`.
// The headers come first (getheaders from genesis; links and proof of work
// checked), then the checkpoints (getcfcheckpt), the filter headers 2,000
// at a time (each range must start from the header before it and meet the
// checkpoints) and the filters 1,000 at a time (each must hash to its
// header's filter hash and decode as BIP158 says). Errors: bad_filter,
// the header errors of a sync, and what receive() reports.
result<void> fetch_filters(Connection& peer, const std::function<void(const PeerFilter&)>& each);

}  // namespace blockwire::net
