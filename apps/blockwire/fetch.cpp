// blockwire fetch: a blocks directory synced from a node, headers first
// (net::fetch). The directory is locked while it is written; a rerun
// continues from its best tip; what a failure leaves is whole, checked
// blocks only. SIGINT or SIGTERM stops it between two blocks.
#include "commands.hpp"
#include "damage_report.hpp"
#include "option_helpers.hpp"
#include "progress.hpp"
#include "text.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/io/stop_signals.hpp>
#include <blockwire/net.hpp>
#include <blockwire/tables/json_writer.hpp>

#include <algorithm>
#include <cstdio>
#include <unistd.h>
#include <variant>

namespace blockwire::cli {

namespace {

void say(std::FILE* to, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) std::fprintf(to, to == stderr ? "blockwire fetch: %s\n" : "%s\n", line.c_str());
}

void say_json(const net::FetchReport& report) {
  const p2p::Version& version = *report.version;
  tables::JsonWriter out;
  out.begin_object();
  out.member_string("peer", report.peer_name);
  out.member_string("user_agent", version.user_agent);
  out.member_integer("peer_height", version.start_height);
  out.member_string("transport", report.transport_used == net::transport::v2 ? "v2" : "v1");
  if (!report.session_id.empty()) out.member_string("session_id", report.session_id);
  out.member_uint("blocks", report.sync.blocks);
  out.member_uint("bytes", report.sync.bytes);
  out.member_number("seconds", report.seconds);
  out.member_integer("height", signed_height(report.height));
  out.member_string("tip", report.tip.to_hex());
  out.member_integer("start_height", signed_height(report.start_height));
  out.member_string("stopped", report.sync.stopped == net::SyncProgress::stop::tip_reached ? "tip_reached" : "max_blocks");
  out.end_object();
}

}  // namespace

int fetch(const FetchOptions& o) {
  net::FetchRequest request;
  request.net = o.net;
  request.net_from_records = o.net_from_records;
  auto peer_at = net::parse_endpoint(o.peer, default_port(o.net));
  if (!peer_at) {
    std::fprintf(stderr, "blockwire fetch: %s: not HOST[:PORT]\n", o.peer.c_str());
    return usage_or_io;
  }
  request.peer = peer_at.value();
  auto chosen = key_for_output("fetch", o.output_dir, o.xor_key);
  if (const int* status = std::get_if<int>(&chosen)) return *status;
  request.dir = o.output_dir;
  request.key = std::get<XorKey>(chosen);
  request.timeouts = timeouts_from_option(o.timeout_seconds);
  request.preferred = o.v1 ? net::transport::v1 : net::transport::v2;
  request.max_blocks = o.max_blocks;
  request.undo = o.undo;
  request.cache_bytes = static_cast<std::size_t>(o.dbcache_mib) << 20;

  const bool shown = o.progress && !o.json && isatty(STDERR_FILENO) != 0;
  Progress building(shown, 0, "block");
  Progress importing(shown, 0, "coin");
  // "[#####     ]  height 1,234 of 5,678  1,000 blocks  312 MB/s"
  Progress bar(shown, 0, "block");
  request.events.opened = [&](const BlockFileWriter& writer, const BlockIndex& index, std::span<const std::string> notes) {
    report_repair("fetch", o.output_dir, writer);
    for (const std::string& note : notes) std::fprintf(stderr, "blockwire fetch: %s\n", note.c_str());
    // Damage is said now; it makes the exit status 1 even when the sync
    // succeeds (report.damaged): the blocks it left out are fetched again.
    report_index_problems("fetch", o.output_dir, index);
  };
  request.events.building = [&building](std::uint64_t done, std::uint64_t total) {
    building.update(total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total), 0,
                    "the UTXO set: " + with_commas(done) + " of " + count_of(total, "block"));
  };
  request.events.importing = [&importing](const CoinsProgress& p) { importing.update_count(p.fraction, p.coins); };
  request.events.utxo_set_opened = [&](const UtxoStore::Opening& caught_up) {
    importing.finish();
    building.finish();
    say(stderr, caught_up.lines(o.output_dir));
  };
  request.events.syncing = [&bar](const net::SyncProgress& s) {
    bar.update(s.fraction(), s.bytes,
               "height " + with_commas(s.height.value_or(Height::genesis()).to_wire()) + " of " +
                   with_commas(static_cast<std::uint64_t>(std::max<std::int64_t>(s.peer_height, 0))) + "  " + count_of(s.blocks, "block"));
  };
  // SIGINT and SIGTERM through a descriptor the fetch watches: it stops
  // between two blocks and the summary says where.
  const FileDescriptor signals = block_stop_signals();
  request.stop_fd = signals.get();
  const net::FetchReport report = net::fetch(request);
  importing.finish();
  building.finish();
  bar.finish();
  say(stderr, net::outcome_notes(report, o.output_dir, o.peer));
  if (report.failure) {
    say(stderr, net::failure_lines(report, o.output_dir, stop_signal_name(signals)));
    return exit_status_of(*report.failure);
  }
  if (o.json) {
    say_json(report);
  } else {
    say(stdout, net::summary_lines(report, o.output_dir, o.max_blocks));
  }
  return report.damaged ? bad_data : ok;
}

}  // namespace blockwire::cli
