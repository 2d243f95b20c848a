// Serving a blocks directory to one peer, read-only: headers from the
// directory's index, blocks from its blk files as they are on disk (the
// witness form sent without decoding; the stripped form re-encoded),
// notfound for what it does not have, pings answered.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/net/connection.hpp>

namespace blockwire::net {

struct BlockStore {
  const BlockIndex& index;
  XorKey key;
};

// Answers the peer, the handshake done, until it goes away (success) or
// misbehaves (the error receive() reported).
result<void> serve_peer(Connection& peer, const BlockStore& store);

}  // namespace blockwire::net
