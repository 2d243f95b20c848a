// Talking to Bitcoin nodes: connections, the handshake, headers-first sync
// into blk files, and serving a blocks directory. A library on the public
// API of p2p and directory (and the libraries below them).
#pragma once

#include <blockwire/net/connection.hpp>
#include <blockwire/net/endpoint.hpp>
#include <blockwire/net/error.hpp>
#include <blockwire/net/fetch.hpp>
#include <blockwire/net/filter_client.hpp>
#include <blockwire/net/serve.hpp>
#include <blockwire/net/sync.hpp>
