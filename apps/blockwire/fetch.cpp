// blockwire fetch: a blocks directory synced from a node, headers first.
// The directory is locked while it is written (BlockFileWriter); a rerun
// continues from its best tip; what a failure leaves is whole, checked
// blocks only.
#include "commands.hpp"
#include "damage_report.hpp"
#include <blockwire/tables/json_writer.hpp>
#include "option_helpers.hpp"
#include "progress.hpp"
#include "text.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/directory.hpp>
#include <blockwire/net.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sys/socket.h>
#include <unistd.h>
#include <variant>

namespace blockwire::cli {

namespace {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;

// SIGINT or SIGTERM: shut the socket down (async-signal-safe), so that the
// sync ends at once with the blocks it appended whole, never inside an
// append. The summary then says where it stopped.
volatile std::sig_atomic_t stop_signal = 0;
volatile std::sig_atomic_t peer_socket = -1;

extern "C" void on_stop_signal(int signal) {
  stop_signal = signal;
  if (peer_socket >= 0) ::shutdown(peer_socket, SHUT_RDWR);
}

void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

struct Greeted {
  net::Connection peer;
  p2p::Version version;
};

// The peer reached and greeted (our height `start_height`), or the exit
// status with the problem said.
std::variant<Greeted, int> connect_and_greet(const net::Endpoint& at, network net, const FetchOptions& o, std::int64_t start_height) {
  auto connection = net::Connection::connect(at, net, timeouts_from_option(o.timeout_seconds));
  if (!connection) {
    std::fprintf(stderr, "blockwire fetch: cannot connect to %s: %s\n", at.to_string().c_str(), connection.error().message().c_str());
    return usage_or_io;
  }
  net::Connection& peer = connection.value();
  peer_socket = peer.fd();
  catch_stop_signals();
  auto version = peer.handshake_outbound({.start_height = static_cast<std::int32_t>(std::max<std::int64_t>(start_height, 0))});
  if (!version) {
    std::fprintf(stderr, "blockwire fetch: handshake: %s\n", peer.describe(version.error()).c_str());
    // A node drops a version in another network's envelope without a word.
    if (version.error().code() == net::errc::connection_closed && peer.bytes_received() == 0) {
      std::fprintf(stderr, "blockwire fetch: is %s a %s node? (--network)\n", peer.peer_name().c_str(), std::string(name(net)).c_str());
    }
    return exit_status_of(version.error());
  }
  return Greeted{std::move(connection).value(), std::move(version).value()};
}

}  // namespace

int fetch(const FetchOptions& o) {
  network net = o.net;
  auto peer_at = net::parse_endpoint(o.peer, default_port(net));
  if (!peer_at) {
    std::fprintf(stderr, "blockwire fetch: %s: not HOST[:PORT]\n", o.peer.c_str());
    return usage_or_io;
  }
  std::error_code ec;
  if (fs::exists(o.output_dir, ec) && !fs::is_directory(o.output_dir, ec)) {
    std::fprintf(stderr, "blockwire fetch: -o %s: not a directory (a blocks directory is written there, or made)\n", o.output_dir.c_str());
    return usage_or_io;
  }
  // A directory with no block yet: the peer is reached first, so that a
  // fetch that cannot connect leaves nothing behind (no blk file, no key,
  // no UTXO set). Else the directory and its set are brought up first,
  // and the handshake tells the peer our height.
  const auto start = clock::now();
  std::optional<Greeted> greeted;
  if (!holds_records(o.output_dir)) {
    auto reached = connect_and_greet(peer_at.value(), net, o, 0);
    if (const int* status = std::get_if<int>(&reached)) return *status;
    greeted.emplace(std::move(std::get<Greeted>(reached)));
  }
  auto chosen = key_for_output("fetch", o.output_dir, o.xor_key);
  if (const int* status = std::get_if<int>(&chosen)) return *status;
  const XorKey key = std::get<XorKey>(chosen);
  fs::create_directories(o.output_dir, ec);
  if (o.net_from_records) net = network_of(o.output_dir, key).value_or(net);
  auto writer = BlockFileWriter::open(o.output_dir, key, net);
  if (!writer) {
    std::fprintf(stderr, "blockwire fetch: %s: %s\n", o.output_dir.c_str(), writer.error().message().c_str());
    return usage_or_io;
  }
  report_repair("fetch", o.output_dir, writer.value());
  std::vector<std::string> notes;
  auto index = BlocksDirectory::open_index(o.output_dir, key, net, &notes);
  for (const std::string& note : notes) std::fprintf(stderr, "blockwire fetch: %s\n", note.c_str());
  if (!index) {
    std::fprintf(stderr, "blockwire fetch: reading %s: %s\n", o.output_dir.c_str(), index.error().message().c_str());
    return usage_or_io;
  }
  // Damage in the directory is said now, and makes the exit status 1 even
  // when the sync succeeds: the blocks it left out are fetched again.
  const bool damaged = report_index_problems("fetch", o.output_dir, index.value());
  BlockIndex& chain = index.value();  // kept as blocks are appended
  const std::int64_t start_height = chain.height();
  // The UTXO set kept beside, for the undo records: brought to the
  // directory's tip first (built from its blocks the first time).
  std::optional<UtxoStore> coins;
  if (o.undo) {
    Progress building(o.progress && !o.json && isatty(STDERR_FILENO) != 0, 0, "block");
    UtxoStore::Options store_options;
    store_options.cache_bytes = static_cast<std::size_t>(o.dbcache_mib) << 20;
    BlockFileWriter& blocks = writer.value();
    store_options.before_flush = [&blocks] { return blocks.sync(); };
    store_options.progress = [&building](std::uint64_t done, std::uint64_t total) {
      building.update(total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total), 0,
                      "the UTXO set: " + with_commas(done) + " of " + count_of(total, "block"));
    };
    Progress importing(o.progress && !o.json && isatty(STDERR_FILENO) != 0, 0, "coin");
    store_options.import_progress = [&importing](const CoinsProgress& p) { importing.update_count(p.fraction, p.coins); };
    std::string why;
    auto opened = UtxoStore::open(chain, store_options, &why);
    importing.finish();
    building.finish();
    if (!opened) {
      std::fprintf(stderr, "blockwire fetch: %s: the UTXO set: %s\n", o.output_dir.c_str(),
                   why.empty() ? opened.error().message().c_str() : why.c_str());
      return exit_status_of(opened.error());
    }
    coins.emplace(std::move(opened).value());
    const UtxoStore::Opening& caught_up = coins->opening();
    if (!caught_up.imported_from.empty()) {
      std::fprintf(stderr, "blockwire fetch: %s: the UTXO set copied from Bitcoin Core's %s: %s at height %lld\n", o.output_dir.c_str(),
                   caught_up.imported_from.c_str(), count_of(caught_up.coins_imported, "coin").c_str(),
                   static_cast<long long>(caught_up.from_height));
    }
    if (caught_up.undo_bytes_cut != 0) {
      std::fprintf(stderr, "blockwire fetch: %s: cut off a torn undo record (%s bytes) a crash left\n", o.output_dir.c_str(),
                   with_commas(caught_up.undo_bytes_cut).c_str());
    }
    if (caught_up.blocks_connected != 0) {
      std::fprintf(stderr, "blockwire fetch: %s: the UTXO set %s: %s connected, their undo records written where missing\n",
                   o.output_dir.c_str(),
                   caught_up.from_height < 0 ? "built from the directory's blocks"
                                             : ("was at height " + std::to_string(caught_up.from_height)).c_str(),
                   count_of(caught_up.blocks_connected, "block").c_str());
    }
  }

  if (!greeted) {
    auto reached = connect_and_greet(peer_at.value(), net, o, chain.height());
    if (const int* status = std::get_if<int>(&reached)) return *status;
    greeted.emplace(std::move(std::get<Greeted>(reached)));
  }
  net::Connection& peer = greeted->peer;
  const auto& version = greeted->version;

  // "[#####     ]  height 1,234 of 5,678  1,000 blocks  312 MB/s"
  Progress bar(o.progress && !o.json && isatty(STDERR_FILENO) != 0, 0, "block");
  net::SyncOptions options;
  options.max_blocks = o.max_blocks;
  std::string connect_failure;
  if (coins) {
    options.appended = [&](const Block& block, const BlockHash& hash, std::span<const TxIds> ids) {
      std::string why;
      auto followed = coins->follow(chain, &block, hash, ids, &why);
      if (!followed) connect_failure = "the UTXO set, for the undo records: " + (why.empty() ? followed.error().message() : why);
      return followed;
    };
  }
  options.progress = [&bar](const net::SyncProgress& s) {
    const double fraction = s.peer_height <= 0 ? 1.0 : std::min(1.0, static_cast<double>(s.height) / static_cast<double>(s.peer_height));
    std::string text = "height ";
    text += with_commas(static_cast<std::uint64_t>(std::max<std::int64_t>(s.height, 0)));
    text += " of ";
    text += with_commas(static_cast<std::uint64_t>(std::max<std::int64_t>(s.peer_height, 0)));
    text += "  ";
    text += count_of(s.blocks, "block");
    bar.update(fraction, s.bytes, text);
  };
  net::SyncProgress p;
  auto synced = net::sync_blocks(peer, writer.value(), chain, version.start_height, p, options);
  bar.finish();
  // The set and the undo records of every block connected, before the
  // index says they are there.
  const auto flushed = coins && connect_failure.empty() ? coins->flush() : result<void>(success());
  if (!flushed) {
    std::fprintf(stderr, "blockwire fetch: %s: writing the UTXO set: %s (the next fetch connects these blocks again)\n",
                 o.output_dir.c_str(), flushed.error().message().c_str());
  }
  const auto closed = writer.value().close();
  // What was appended joins the kept index (a fetch cut short keeps its
  // committed blocks; a crash before this is read from the files next time).
  // (Not after a block the set could not take: the index would hold it,
  // and undo places the next open does not.)
  if (closed && flushed && connect_failure.empty()) {
    if (auto kept = BlocksDirectory::keep_index(chain); !kept) {
      std::fprintf(stderr, "blockwire fetch: the index of %s could not be kept: %s\n", o.output_dir.c_str(),
                   kept.error().message().c_str());
    }
  }
  const double seconds = std::chrono::duration<double>(clock::now() - start).count();
  if (!synced && !connect_failure.empty()) {
    std::fprintf(stderr, "blockwire fetch: %s\nblockwire fetch: the block was taken out again; %s holds the blocks before it\n",
                 connect_failure.c_str(), o.output_dir.c_str());
    return exit_status_of(synced.error());
  }
  if (!synced && p.local_failure) {
    const error& e = synced.error();
    std::fprintf(stderr, "blockwire fetch: writing %s: %s%s; %s holds whole, checked blocks up to height %lld\n", o.output_dir.c_str(),
                 e.code().message().c_str(),
                 e.has_offset() ? (" (at byte " + std::to_string(e.offset()) + " of its last blk file)").c_str() : "", o.output_dir.c_str(),
                 static_cast<long long>(chain.height()));
    return usage_or_io;
  }
  if (!synced && stop_signal != 0) {
    std::fprintf(stderr,
                 "blockwire fetch: %s: stopped (interrupted) at height %lld of the peer's %d; %s holds whole, checked blocks up "
                 "to there; run fetch again to go on\n",
                 strsignal(stop_signal), static_cast<long long>(chain.height()), version.start_height, o.output_dir.c_str());
    return usage_or_io;
  }
  if (!synced) {
    std::fprintf(stderr, "blockwire fetch: %s\n", peer.describe(synced.error()).c_str());
    std::fprintf(stderr, "blockwire fetch: %s holds whole, checked blocks up to height %lld; run fetch again to go on\n",
                 o.output_dir.c_str(), static_cast<long long>(chain.height()));
    return exit_status_of(synced.error());
  }
  if (!closed) {
    std::fprintf(stderr, "blockwire fetch: closing %s: %s\n", o.output_dir.c_str(), closed.error().message().c_str());
    return usage_or_io;
  }
  if (!flushed) return usage_or_io;
  const double mb_per_s = seconds > 0 ? static_cast<double>(p.bytes) / seconds / 1e6 : 0.0;
  const bool at_tip = p.stopped == net::SyncProgress::stop::tip_reached;
  if (o.json) {
    tables::JsonWriter out;
    out.begin_object();
    out.member_string("peer", peer.peer_name());
    out.member_string("user_agent", version.user_agent);
    out.member_integer("peer_height", version.start_height);
    out.member_uint("blocks", p.blocks);
    out.member_uint("bytes", p.bytes);
    out.member_number("seconds", seconds);
    out.member_integer("height", chain.height());
    out.member_string("tip", chain.tip().to_hex());
    out.member_integer("start_height", start_height);
    out.member_string("stopped", at_tip ? "tip_reached" : "max_blocks");
    out.end_object();
    return damaged ? bad_data : ok;
  }
  std::printf("peer:    %s (%s, height %d)\n", peer.peer_name().c_str(), version.user_agent.c_str(), version.start_height);
  std::printf("fetched: %s, %s bytes in %.1f s (%.0f MB/s)\n", count_of(p.blocks, "block").c_str(), with_commas(p.bytes).c_str(), seconds,
              mb_per_s);
  std::printf("%s: height %s, tip %s\n", o.output_dir.c_str(), with_commas(static_cast<std::uint64_t>(chain.height())).c_str(),
              chain.tip().to_hex().c_str());
  if (at_tip) {
    std::printf("stopped: the peer's tip reached (it has nothing we lack; it announced height %d)\n", version.start_height);
  } else {
    std::printf("stopped: --max-blocks %llu fetched (the peer announced height %d); run fetch again to go on\n",
                static_cast<unsigned long long>(o.max_blocks), version.start_height);
  }
  return damaged ? bad_data : ok;
}

}  // namespace blockwire::cli
