// blockwire electrum: the Electrum protocol over a blocks directory
// (electrum::Server) until SIGINT or SIGTERM, its indexes made at the
// first start and extended as blocks arrive.
#include "commands.hpp"
#include "directory_options.hpp"
#include "service.hpp"
#include "text.hpp"

#include <blockwire/electrum/server.hpp>
#include <blockwire/io/stop_signals.hpp>
#include <blockwire/net.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unistd.h>

namespace blockwire::cli {

int electrum_command(const ElectrumOptions& o) {
  auto opened = open_directory("electrum", o, true, true);
  if (const int* status = std::get_if<int>(&opened)) return *status;
  BlockStore store(std::get<BlocksDirectory>(std::move(opened)));
  if (store.directory().pruned()) {
    // (the pruned blocks' transactions are gone: no history could be whole)
    std::fprintf(stderr, "%sblockwire electrum: %s: a pruned directory (its blocks begin at height %u): the indexes need every block\n",
                 service::prefix(service::level::error), o.dir.c_str(), store.directory().prune_height().to_wire());
    return usage_or_io;
  }
  std::optional<electrum::NodePeerOptions> node;
  if (!o.peer.empty()) {
    auto peer_at = net::parse_endpoint(o.peer, default_port(store.directory().net()));
    if (!peer_at) {
      std::fprintf(stderr, "%sblockwire electrum: --peer %s: not HOST[:PORT]\n", service::prefix(service::level::error), o.peer.c_str());
      return usage_or_io;
    }
    node.emplace();
    node->peer = peer_at.value();
    node->preferred = o.v1 ? net::transport::v1 : net::transport::v2;
    node->broadcast_timeout = std::chrono::seconds(o.broadcast_timeout);
    node->log = [](const std::string& line) {
      std::fprintf(stderr, "%sblockwire electrum: %s\n", service::prefix(service::level::info), line.c_str());
      std::fflush(stderr);
    };
  }
  std::optional<TxIndex> tx_index;
  {
    int status = ok;
    auto lock = store.lock();
    tx_index = open_tx_index("electrum", store.directory(), status);
    if (!tx_index) return status;
  }
  std::optional<AddressIndex> addresses;
  {
    int status = ok;
    auto lock = store.lock();
    addresses = open_address_index("electrum", store.directory(), 0, status);
    if (!addresses) return status;
  }
  // (checked when the options were read: it parses)
  const net::Endpoint where = net::parse_endpoint(o.listen, 50001).value();
  electrum::ServerOptions options;
  options.limits.threads = o.threads;
  options.limits.max_per_address = o.max_per_address;
  options.limits.idle = std::chrono::seconds(o.idle_seconds);
  options.service.max_history = o.max_history;
  options.service.max_subscriptions = o.max_subscriptions;
  options.service.banner = o.banner;
  options.node = std::move(node);
  const std::string network_name(name(store.directory().net()));
  options.new_tip = [&](std::optional<Height> tip) { service::status(service::tip_status(o.dir, network_name, tip)); };
  if (!o.tls_listen.empty()) {
    const net::Endpoint tls_at = net::parse_endpoint(o.tls_listen, 50002).value();
    options.tls = electrum::Tls{tls_at.host.empty() ? "0.0.0.0" : tls_at.host, tls_at.port, o.tls_cert, o.tls_key};
  }
  options.limits.max_connections = connections_allowed(options.limits.max_connections);
  const FileDescriptor signals = block_stop_signals();  // (before the server's threads)
  if (signals.get() < 0) {
    std::fprintf(stderr, "%sblockwire electrum: signalfd: %s\n", service::prefix(service::level::error), std::strerror(errno));
    return usage_or_io;
  }
  auto server = electrum::Server::listen(store, &*tx_index, *addresses, where.host.empty() ? "0.0.0.0" : where.host, where.port, options);
  if (!server) {
    std::fprintf(stderr, "%sblockwire electrum: %s\n", service::prefix(service::level::error), server.error().message().c_str());
    return usage_or_io;
  }
  std::printf("listening on %s\n", server.value()->local_address().c_str());
  if (options.tls) std::printf("listening with TLS on %s\n", server.value()->tls_address().c_str());
  std::fflush(stdout);
  {
    const auto lock = store.lock();
    service::ready(service::tip_status(o.dir, network_name, store.directory().chain_size().last()));
  }
  const bool signalled = server.value()->run(signals.get());
  service::stopping();
  if (const std::string name = signalled ? stop_signal_name(signals) : ""; !name.empty()) {
    std::fprintf(stderr, "%sblockwire electrum: %s: stopping\n", service::prefix(service::level::notice), name.c_str());
  }
  return ok;
}

}  // namespace blockwire::cli
