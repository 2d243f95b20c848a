// blockwire rest: Bitcoin Core's REST interface over a blocks directory
// (rest::Server) until SIGINT or SIGTERM; blocks appended meanwhile are
// read within a second.
#include "commands.hpp"
#include "directory_options.hpp"
#include "progress.hpp"
#include "service.hpp"
#include "text.hpp"

#include <blockwire/io/stop_signals.hpp>
#include <blockwire/net.hpp>
#include <blockwire/rest.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <unistd.h>
#include <mutex>
#include <thread>

namespace blockwire::cli {

int rest_command(const RestOptions& o) {
  auto opened = open_directory("rest", o, true, true);
  if (const int* status = std::get_if<int>(&opened)) return *status;
  BlockStore store(std::get<BlocksDirectory>(std::move(opened)));
  if (auto filters = store.enable_filters(); !filters || !filters.value()) {
    std::fprintf(stderr, "%sblockwire rest: %s: no rev files: /rest/blockfilter and /rest/blockfilterheaders are not served\n",
                 service::prefix(service::level::warning), o.dir.c_str());
  }
  // The transaction index, made or brought to the tip now (a progress bar
  // on a terminal: the first time reads every block).
  std::optional<TxIndex> tx_index;
  const bool want_tx_index = o.tx_index || o.addresses;
  if (want_tx_index && store.directory().pruned()) {
    // (as Core: its -txindex refuses -prune; the pruned blocks' transactions are gone)
    std::fprintf(stderr, "%sblockwire rest: %s: a pruned directory (its blocks begin at height %u): %s needs every block\n",
                 service::prefix(service::level::error), o.dir.c_str(), store.directory().prune_height().to_wire(),
                 o.addresses ? "--addresses" : "--txindex");
    return usage_or_io;
  }
  if (want_tx_index) {
    int status = ok;
    auto lock = store.lock();
    tx_index = open_tx_index("rest", store.directory(), status);
    if (!tx_index) return status;
  }
  std::optional<AddressIndex> addresses;
  if (o.addresses) {
    int status = ok;
    auto lock = store.lock();
    addresses = open_address_index("rest", store.directory(), 0, status);
    if (!addresses) return status;
  }
  std::string utxo_set = o.utxo_set.empty() ? rest::utxo_set_beside(o.dir) : o.utxo_set;
  if (utxo_set.empty())
    std::fprintf(stderr, "%sblockwire rest: no UTXO set beside %s: /rest/getutxos is not served (--utxos)\n",
                 service::prefix(service::level::warning), o.dir.c_str());
  // (checked when the options were read: it parses)
  const net::Endpoint where = net::parse_endpoint(o.listen, 8332).value();
  rest::HttpLimits limits;
  limits.threads = o.threads;
  limits.max_per_address = o.max_per_address;
  limits.work_queue = o.work_queue;
  if (o.timeout_seconds != 0) limits.request_time = limits.idle_time = std::chrono::seconds(o.timeout_seconds);
  limits.max_connections = connections_allowed(limits.max_connections);
  if (o.max_connections != 0) limits.max_connections = o.max_connections;
  const FileDescriptor signals = block_stop_signals();  // (before the server's threads)
  if (signals.get() < 0) {
    std::fprintf(stderr, "%sblockwire rest: signalfd: %s\n", service::prefix(service::level::error), std::strerror(errno));
    return usage_or_io;
  }
  rest::ServerOptions options;
  options.limits = limits;
  const std::string network_name(name(store.directory().net()));
  options.new_tip = [&](std::optional<Height> tip) { service::status(service::tip_status(o.dir, network_name, tip)); };
  auto server = rest::Server::listen(store, rest::Indexes{tx_index ? &*tx_index : nullptr, addresses ? &*addresses : nullptr},
                                     std::move(utxo_set), where.host.empty() ? "0.0.0.0" : where.host, where.port, options);
  if (!server) {
    std::fprintf(stderr, "%sblockwire rest: %s\n", service::prefix(service::level::error), server.error().message().c_str());
    return usage_or_io;
  }
  std::printf("listening on %s\n", server.value()->local_address().c_str());
  std::fflush(stdout);
  {
    const auto lock = store.lock();
    service::ready(service::tip_status(o.dir, network_name, store.directory().chain_size().last()));
  }
  const bool signalled = server.value()->run(signals.get());
  service::stopping();
  if (const std::string name = signalled ? stop_signal_name(signals) : ""; !name.empty()) {
    std::fprintf(stderr, "%sblockwire rest: %s: stopping\n", service::prefix(service::level::notice), name.c_str());
  }
  return ok;
}

}  // namespace blockwire::cli
