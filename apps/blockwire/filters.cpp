// blockwire filters: make_chain_filters on a blocks directory's best chain
// (its blk and rev files, no node), kept in DIR/blockwire-filters/basic.dat
// so that a rerun filters only the new blocks; or, with --from-peer, the
// filters a node serves (BIP157), each checked. One line or JSON object a
// height; what stops the run is said on standard error.
#include "commands.hpp"
#include "option_helpers.hpp"
#include "progress.hpp"
#include "text.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/directory.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/net.hpp>
#include <blockwire/tables/json_writer.hpp>
#include <blockwire/undo.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace blockwire::cli {

// What a node serves (BIP157), each filter checked against its header chain
// and the checkpoints before it is printed.
int filters_from_peer(const FiltersOptions& o) {
  auto peer_at = net::parse_endpoint(o.peer, default_port(o.net));
  if (!peer_at) {
    std::fprintf(stderr, "blockwire filters: --from-peer %s: not HOST[:PORT]\n", o.peer.c_str());
    return usage_or_io;
  }
  // BIP324's v2 first, v1 when the peer hangs up at our key (as fetch).
  auto connection = net::connect_preferring(peer_at.value(), o.net, timeouts_from_option(0), net::transport::v2);
  if (!connection) {
    std::fprintf(stderr, "blockwire filters: cannot connect to %s: %s\n", peer_at.value().to_string().c_str(),
                 connection.error().message().c_str());
    return exit_status_of(connection.error());
  }
  net::Connection& peer = connection.value();
  auto version = peer.handshake_outbound();
  if (!version) {
    std::fprintf(stderr, "blockwire filters: %s: %s\n", peer.peer_name().c_str(), version.error().message().c_str());
    return exit_status_of(version.error());
  }
  if ((version.value().services & p2p::node_compact_filters) == 0) {
    std::fprintf(stderr, "blockwire filters: %s does not serve compact block filters (no NODE_COMPACT_FILTERS in its version)\n",
                 peer.peer_name().c_str());
    return bad_data;
  }
  std::optional<tables::JsonWriter> json;
  if (o.json) {
    json.emplace();
    json->begin_array();
  }
  const std::uint64_t end = o.count == 0 ? UINT64_MAX : o.from + o.count;
  auto got = net::fetch_filters(peer, [&](const net::PeerFilter& f) {
    if (f.height.to_wire() < o.from || f.height.to_wire() >= end) return;
    if (json) {
      json->begin_object();
      json->member_uint("height", f.height.to_wire());
      json->member_string("hash", f.block_hash.to_hex());
      json->member_string("filter", to_hex(f.filter));
      json->member_string("header", f.header.to_hex());
      json->end_object();
    } else {
      std::printf("%8u  %s  %s  %7zu bytes\n", f.height.to_wire(), f.block_hash.to_hex().c_str(), f.header.to_hex().c_str(),
                  f.filter.size());
    }
  });
  if (json) json->end_array();
  if (!got) {
    std::fprintf(stderr, "blockwire filters: %s: %s (its %s message at byte %llu of the connection)\n", peer.peer_name().c_str(),
                 got.error().message().c_str(), peer.last_command().c_str(), static_cast<unsigned long long>(peer.last_message_offset()));
    return exit_status_of(got.error());
  }
  return ok;
}

int filters_command(FiltersOptions o) {
  if (!o.peer.empty()) return filters_from_peer(o);
  if (o.dir.empty()) {
    std::fprintf(stderr, "blockwire filters: a blocks directory, or --from-peer HOST[:PORT]\n");
    return usage_or_io;
  }
  auto opened = open_chain("filters", o, true);
  if (const int* status = std::get_if<int>(&opened)) {
    if (*status == ok && o.json) std::printf("[]\n");  // (nothing to show: still a JSON document)
    return *status;
  }
  const BlocksDirectory& dir = std::get<BlocksDirectory>(opened);
  if (dir.pruned()) {
    std::fprintf(stderr,
                 "blockwire filters: %s: a pruned directory: each BIP158 filter header hashes the one before it, back to\n"
                 "genesis, and the blocks below height %u are gone; a node keeps its filters as it prunes with -blockfilterindex\n",
                 o.dir.c_str(), dir.prune_height().to_wire());
    return usage_or_io;
  }
  // What earlier runs made is in DIR/blockwire-filters/basic.dat (checked
  // against the chain as it is read back): only the blocks after it are
  // filtered, from genesis when it is new (each header hashes the one
  // before), and appended to it.
  std::vector<BlockHash> hashes;
  hashes.reserve(dir.chain_size().value());
  for (const Height h : dir.chain_size().heights()) hashes.push_back(dir.at_height(h).hash);
  auto file = FilterFile::open(o.dir, hashes);
  bool keeping = true;
  if (!file && file.error().is_io() && file.error().code() != io::errc::locked) {
    // A directory we may not write (a read-only mount, a node's own): the
    // filters are made and printed, not kept; what was kept is still read.
    std::fprintf(stderr, "blockwire filters: %s/blockwire-filters/basic.dat: %s: the filters are made, not kept\n", o.dir.c_str(),
                 file.error().message().c_str());
    keeping = false;
    file = FilterFile::read(o.dir, hashes);
  }
  if (!file) {
    std::fprintf(stderr, "blockwire filters: %s/blockwire-filters/basic.dat: %s\n", o.dir.c_str(), file.error().message().c_str());
    return usage_or_io;
  }
  std::optional<tables::JsonWriter> json;
  if (o.json) {
    json.emplace();
    json->begin_array();
  }
  ChainFilters spec;
  spec.from = o.first;
  spec.end = o.end;
  spec.threads = o.threads;
  spec.keep = keeping;
  spec.each = [&](Height height, const BlockHash& hash, std::span<const std::byte> filter, const Hash256& header) {
    if (json) {
      json->begin_object();
      json->member_uint("height", height.to_wire());
      json->member_string("hash", hash.to_hex());
      json->member_string("filter", to_hex(filter));
      json->member_string("header", header.to_hex());
      json->end_object();
    } else {
      std::printf("%8llu  %s  %s  %7zu bytes\n", static_cast<unsigned long long>(height.to_wire()), hash.to_hex().c_str(),
                  header.to_hex().c_str(), filter.size());
    }
  };
  // On a terminal, and not with JSON on it: the blocks filtered so far.
  std::optional<Progress> progress;
  spec.progress = [&](std::uint64_t made, std::uint64_t to_make, std::uint64_t bytes) {
    if (!progress) progress.emplace(::isatty(STDERR_FILENO) != 0 && !(o.json && ::isatty(STDOUT_FILENO) != 0), to_make, "block");
    progress->update(static_cast<double>(made) / static_cast<double>(to_make), bytes,
                     count_of(made, "block") + " of " + std::to_string(to_make));
  };
  const auto failed = make_chain_filters(dir, file.value(), spec);
  if (progress) progress->finish();
  if (json) json->end_array();  // what was printed stays a whole document
  if (const auto& e = failed.failure; e && e->step() == chain_filters_step::block) {
    std::fprintf(stderr, "blockwire filters: %s: %s; filters and headers end at height %lld\n", o.dir.c_str(), e->message().c_str(),
                 static_cast<long long>(failed.end.value()) - 1);
    return exit_status_of(*e);
  } else if (e) {
    std::fprintf(stderr, "blockwire filters: %s/blockwire-filters/basic.dat: %s\n", o.dir.c_str(), e->message().c_str());
    return exit_status_of(*e);
  }
  return dir.damaged() ? bad_data : ok;
}

}  // namespace blockwire::cli
