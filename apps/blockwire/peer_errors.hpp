// How the network commands turn a peer's failure into their exit status
// (a peer that broke the protocol or sent a bad block is bad data, 1; a
// timeout, a closed connection or a socket error is I/O, 2).
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/net.hpp>

#include <string>

namespace blockwire::cli {

// --timeout SECONDS: every timeout that long; 0 (not given): `defaults`.
net::Timeouts timeouts_from_option(unsigned seconds, net::Timeouts defaults = {});
int exit_status_of_peer_error(const error& e);

}  // namespace blockwire::cli
