// blockwire serve: net::Server on a blocks directory, each of its events a
// line on standard error. SIGINT or SIGTERM stops it: no new peers, every
// connection shut down, every thread joined.
#include "commands.hpp"
#include "damage_report.hpp"
#include "directory_options.hpp"
#include "option_helpers.hpp"
#include "service.hpp"
#include "text.hpp"

#include <blockwire/directory.hpp>
#include <blockwire/io/stop_signals.hpp>
#include <blockwire/net.hpp>
#include <blockwire/net/server.hpp>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace blockwire::cli {

int serve(const ServeOptions& o) {
  // With its rev files (BIP157 filters are made from them); blocks alone
  // when they cannot be read.
  auto opened = open_directory("serve", o, true, true);
  if (const int* status = std::get_if<int>(&opened)) return *status;
  BlocksDirectory& dir = std::get<BlocksDirectory>(opened);
  if (const auto& e = dir.undo_error()) {
    std::fprintf(stderr, "%sblockwire serve: %s: reading rev files: %s (no filters served)\n", service::prefix(service::level::warning),
                 o.dir.c_str(), e->message().c_str());
  }
  auto where = net::parse_endpoint(o.listen, default_port(dir.net()));  // empty: every address
  if (!where) {
    std::fprintf(stderr, "%sblockwire serve: --listen %s: not ADDR:PORT\n", service::prefix(service::level::error), o.listen.c_str());
    return usage_or_io;
  }
  // Damage is said; the chain without it is served.
  (void)report_index_problems("serve", o.dir, dir.index());
  const std::size_t block_count = dir.index().size();
  const auto height = static_cast<std::int64_t>(dir.chain_size().value()) - 1;  // (-1: no block yet)
  const std::optional<Height> tip = dir.chain_size().last();
  const network net = dir.net();
  const std::string network_name(name(net));

  BlockStore store(std::move(dir));
  // BIP157: filters are served (NODE_COMPACT_FILTERS) when the directory
  // has rev files to make them from.
  if (auto with_filters = store.enable_filters(); !with_filters) {
    std::fprintf(stderr, "%sblockwire serve: %s: reading the kept filters: %s (no filters served)\n",
                 service::prefix(service::level::warning), o.dir.c_str(), with_filters.error().message().c_str());
  } else if (with_filters.value()) {
    std::fprintf(stderr, "%sblockwire serve: compact block filters (BIP157) from the rev files\n", service::prefix(service::level::info));
  }

  // The signals arrive through a descriptor the server polls; every thread
  // started after this inherits the mask and never sees them. Before it
  // (reading the directory, which may take a while) a signal ends the
  // process at once: nothing is written, nothing to finish.
  const FileDescriptor signals = block_stop_signals();

  net::Server::Options options;
  options.max_peers = o.max_peers;
  options.max_per_address = o.max_per_address;
  options.max_handshaking = o.max_handshaking;
  options.max_handshaking_per_netgroup = o.max_handshaking_per_netgroup;
  options.ping_interval = std::chrono::seconds(o.ping_seconds);
  options.timeouts = timeouts_from_option(o.timeout_seconds, net::serving_timeouts);
  options.stop_fd = signals.get();
  options.v2 = !o.v1;
  options.log = [&](const net::ServerEvent& e) {
    if (e.what == net::ServerEvent::kind::stopping) {
      service::stopping();
      const std::string name = stop_signal_name(signals);
      std::fprintf(stderr, "%sblockwire serve: %s: stopping\n", service::prefix(service::level::notice),
                   name.empty() ? "asked" : name.c_str());
    } else if (e.what == net::ServerEvent::kind::new_damage) {
      const auto lock = store.lock();
      (void)report_index_problems("serve", o.dir, store.index());
    } else {
      if (e.what == net::ServerEvent::kind::new_tip) service::status(service::tip_status(o.dir, network_name, e.height));
      const bool trouble = e.what == net::ServerEvent::kind::refresh_failed || e.what == net::ServerEvent::kind::undo_failed;
      std::fprintf(stderr, "%sblockwire serve: %s\n", service::prefix(trouble ? service::level::warning : service::level::info),
                   e.message().c_str());
    }
    std::fflush(stderr);
  };
  auto server = signals.get() < 0 ? result<std::unique_ptr<net::Server>>(error(last_system_error()))
                                  : net::Server::listen(store, where.value(), std::move(options));
  if (!server) {
    std::fprintf(stderr, "%sblockwire serve: cannot listen on %s: %s\n", service::prefix(service::level::error),
                 where.value().to_string().c_str(), server.error().message().c_str());
    return usage_or_io;
  }
  // On standard output, flushed: a script that asked for port 0 reads it.
  std::printf("listening on %s\n", server.value()->bound().to_string().c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "%sblockwire serve: %s (%s): %s, height %lld\n", service::prefix(service::level::notice), o.dir.c_str(),
               network_name.c_str(), count_of(block_count, "block").c_str(), static_cast<long long>(height));
  service::ready(service::tip_status(o.dir, network_name, tip));
  auto ran = server.value()->run();
  if (!ran) {
    std::fprintf(stderr, "%sblockwire serve: poll: %s\n", service::prefix(service::level::error), ran.error().message().c_str());
    return usage_or_io;
  }
  return ok;
}

}  // namespace blockwire::cli
