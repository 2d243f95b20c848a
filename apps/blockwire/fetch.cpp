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
#include <filesystem>
#include <unistd.h>
#include <variant>

namespace blockwire::cli {

namespace {

using step = net::fetch_step;

// A tip's height as the summaries say it: -1 for no block.
long long shown(std::optional<Height> height) { return height ? height->to_wire() : -1; }

void say_utxo_set(const std::string& dir, const UtxoStore::Opening& caught_up) {
  if (!caught_up.imported_from.empty()) {
    std::fprintf(stderr, "blockwire fetch: %s: the UTXO set copied from Bitcoin Core's %s: %s at height %lld\n", dir.c_str(),
                 caught_up.imported_from.c_str(), count_of(caught_up.coins_imported, "coin").c_str(), shown(caught_up.from_height));
  }
  if (caught_up.undo_bytes_cut != 0) {
    std::fprintf(stderr, "blockwire fetch: %s: cut off a torn undo record (%s bytes) a crash left\n", dir.c_str(),
                 with_commas(caught_up.undo_bytes_cut).c_str());
  }
  if (caught_up.blocks_connected != 0) {
    std::fprintf(
        stderr, "blockwire fetch: %s: the UTXO set %s: %s connected, their undo records written where missing\n", dir.c_str(),
        !caught_up.from_height ? "built from the directory's blocks" : ("was at height " + to_string(*caught_up.from_height)).c_str(),
        count_of(caught_up.blocks_connected, "block").c_str());
  }
}

// The failure said, and the exit status it makes.
int say_failure(const net::FetchReport& report, const net::FetchRequest& request, const std::string& signal) {
  const error& f = *report.failure;
  const std::string said = f.message();
  const char* dir = request.dir.c_str();
  const long long height = shown(report.height);
  // (a step of another layer's, which fetch never leaves, is said as it is: the default)
  const step at = f.step().category() == net::fetch_step_category() ? static_cast<step>(f.step().value()) : step{};
  switch (at) {
    case step::connecting: std::fprintf(stderr, "blockwire fetch: cannot connect to %s\n", said.c_str()); break;
    case step::handshake:
      std::fprintf(stderr, "blockwire fetch: handshake: %s\n", said.c_str());
      if (const auto note = net::closed_handshake_note(report)) std::fprintf(stderr, "blockwire fetch: %s\n", note->c_str());
      break;
    case step::following:
      std::fprintf(stderr, "blockwire fetch: %s\nblockwire fetch: the block was taken out again; %s holds the blocks before it\n",
                   said.c_str(), dir);
      break;
    case step::writing:
      std::fprintf(stderr, "blockwire fetch: %s; %s holds whole, checked blocks up to height %lld\n", said.c_str(), dir, height);
      break;
    case step::stopped:
      std::fprintf(stderr,
                   "blockwire fetch: %s: stopped (interrupted) at height %lld%s; %s holds whole, checked blocks up to there; run fetch "
                   "again to go on\n",
                   signal.empty() ? "asked" : signal.c_str(), height,
                   report.version ? (" of the peer's " + std::to_string(report.version->start_height)).c_str() : "", dir);
      break;
    case step::syncing:
      std::fprintf(stderr, "blockwire fetch: %s\n", said.c_str());
      std::fprintf(stderr, "blockwire fetch: %s holds whole, checked blocks up to height %lld%s\n", dir, height,
                   f.code() == net::errc::pruned_peer ? "" : "; run fetch again to go on");
      break;
    default: std::fprintf(stderr, "blockwire fetch: %s\n", said.c_str());
  }
  if (report.utxo_set_not_written) std::fprintf(stderr, "blockwire fetch: %s\n", report.utxo_set_not_written->message().c_str());
  return exit_status_of(f);
}

void say_fetched(const net::FetchReport& report, const FetchOptions& o) {
  const p2p::Version& version = *report.version;
  const net::SyncProgress& p = report.sync;
  const bool at_tip = p.stopped == net::SyncProgress::stop::tip_reached;
  if (o.json) {
    tables::JsonWriter out;
    out.begin_object();
    out.member_string("peer", report.peer_name);
    out.member_string("user_agent", version.user_agent);
    out.member_integer("peer_height", version.start_height);
    out.member_string("transport", report.transport_used == net::transport::v2 ? "v2" : "v1");
    if (!report.session_id.empty()) out.member_string("session_id", report.session_id);
    out.member_uint("blocks", p.blocks);
    out.member_uint("bytes", p.bytes);
    out.member_number("seconds", report.seconds);
    out.member_integer("height", shown(report.height));
    out.member_string("tip", report.tip.to_hex());
    out.member_integer("start_height", shown(report.start_height));
    out.member_string("stopped", at_tip ? "tip_reached" : "max_blocks");
    out.end_object();
    return;
  }
  const double mb_per_s = report.seconds > 0 ? static_cast<double>(p.bytes) / report.seconds / 1e6 : 0.0;
  std::printf("peer:    %s (%s, height %d)\n", report.peer_name.c_str(), version.user_agent.c_str(), version.start_height);
  if (report.transport_used == net::transport::v2) {
    std::printf("transport: v2, encrypted (BIP324), session %s\n", report.session_id.c_str());
  } else {
    std::printf("transport: v1, plaintext%s\n", report.fallback != net::v1_fallback::none ? " (the peer speaks v1 only)" : "");
  }
  std::printf("fetched: %s, %s bytes in %.1f s (%.0f MB/s)\n", count_of(p.blocks, "block").c_str(), with_commas(p.bytes).c_str(),
              report.seconds, mb_per_s);
  std::printf("%s: height %s, tip %s\n", o.output_dir.c_str(), with_commas(report.height.value_or(Height::genesis()).to_wire()).c_str(),
              report.tip.to_hex().c_str());
  if (at_tip) {
    std::printf("stopped: the peer's tip reached (it has nothing we lack; it announced height %d)\n", version.start_height);
  } else {
    std::printf("stopped: --max-blocks %llu fetched (the peer announced height %d); run fetch again to go on\n",
                static_cast<unsigned long long>(o.max_blocks), version.start_height);
  }
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
  std::error_code ec;
  if (std::filesystem::exists(o.output_dir, ec) && !std::filesystem::is_directory(o.output_dir, ec)) {
    std::fprintf(stderr, "blockwire fetch: -o %s: not a directory (a blocks directory is written there, or made)\n", o.output_dir.c_str());
    return usage_or_io;
  }
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
    say_utxo_set(o.output_dir, caught_up);
  };
  request.events.syncing = [&bar](const net::SyncProgress& s) {
    const std::uint32_t ours = s.height.value_or(Height::genesis()).to_wire();
    const double fraction = s.peer_height <= 0 ? 1.0 : std::min(1.0, static_cast<double>(ours) / static_cast<double>(s.peer_height));
    bar.update(fraction, s.bytes,
               "height " + with_commas(ours) + " of " + with_commas(static_cast<std::uint64_t>(std::max<std::int64_t>(s.peer_height, 0))) +
                   "  " + count_of(s.blocks, "block"));
  };
  // SIGINT and SIGTERM through a descriptor the fetch watches: it stops
  // between two blocks and the summary says where.
  const FileDescriptor signals = block_stop_signals();
  request.stop_fd = signals.get();
  const net::FetchReport report = net::fetch(request);
  importing.finish();
  building.finish();
  bar.finish();
  if (report.index_not_kept) {
    std::fprintf(stderr, "blockwire fetch: the index of %s could not be kept: %s\n", o.output_dir.c_str(),
                 report.index_not_kept->message().c_str());
  }
  if (const auto note = net::v1_fallback_note(report, o.peer)) std::fprintf(stderr, "blockwire fetch: %s\n", note->c_str());
  if (report.failure) return say_failure(report, request, stop_signal_name(signals));
  say_fetched(report, o);
  return report.damaged ? bad_data : ok;
}

}  // namespace blockwire::cli
