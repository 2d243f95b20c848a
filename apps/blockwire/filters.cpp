// blockwire filters: the BIP158 basic filter and BIP157 filter header of
// every block of a blocks directory's best chain, from its blk and rev files
// (no node). Blocks are read and filtered on every core, a batch at a time;
// the headers, each hashing the one before, are chained in height order. A
// block whose undo data is not there (a pruned or partial directory) stops
// the run, said on standard error: a filter without its spent scripts would
// be wrong, and every later header with it. What is made is kept in
// DIR/blockwire-filters/basic.dat: a rerun filters only the new blocks.
// Memory: the header index, an index of the undo records, one batch.
#include "commands.hpp"
#include <blockwire/tables/json_writer.hpp>
#include "option_helpers.hpp"
#include "progress.hpp"
#include "text.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/directory.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/net.hpp>
#include <blockwire/undo.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace blockwire::cli {

namespace {

struct Filtered {
  std::optional<filters::GcsFilter> filter;
  std::string problem;    // when there is no filter
  bool io = false;        // the problem is the system's
  std::size_t bytes = 0;  // of the block, for the progress bar's rate
};

Filtered filter_block(const BlocksDirectory& dir, const IndexedBlock& b) {
  Filtered out;
  auto filter = dir.basic_filter(b, &out.bytes);
  if (filter) {
    out.filter = std::move(filter).value();
  } else if (filter.error().code() == directory::errc::no_undo_data) {
    out.problem = "block " + std::to_string(b.height) + " (" + b.hash.to_hex() +
                  "): the scripts its inputs spend are not there (the directory has no rev files; " + undo_file_name(b.file) +
                  " would hold them)";
  } else if (filter.error().code().category() == undo::category()) {
    out.problem = "block " + std::to_string(b.height) + " (" + b.hash.to_hex() + "): its undo data (" + undo_file_name(b.file) +
                  "): " + filter.error().message();
  } else {
    out.problem = dir.index().file_path(b.file) + ":" + std::to_string(b.offset) + ": block " + std::to_string(b.height) + ": " +
                  filter.error().message();
    out.io = filter.error().code() != condition::bad_data;
  }
  return out;
}

}  // namespace

// What a node serves (BIP157), each filter checked against its header chain
// and the checkpoints before it is printed.
int filters_from_peer(const FiltersOptions& o) {
  auto peer_at = net::parse_endpoint(o.peer, default_port(o.net));
  if (!peer_at) {
    std::fprintf(stderr, "blockwire filters: --from-peer %s: not HOST[:PORT]\n", o.peer.c_str());
    return usage_or_io;
  }
  auto connection = net::Connection::connect(peer_at.value(), o.net, timeouts_from_option(0));
  if (!connection) {
    std::fprintf(stderr, "blockwire filters: cannot connect to %s: %s\n", peer_at.value().to_string().c_str(),
                 connection.error().message().c_str());
    return usage_or_io;
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
    if (f.height < o.from || f.height >= end) return;
    if (json) {
      json->begin_object();
      json->member_uint("height", f.height);
      json->member_string("hash", f.block_hash.to_hex());
      json->member_string("filter", to_hex(f.filter));
      json->member_string("header", f.header.to_hex());
      json->end_object();
    } else {
      std::printf("%8llu  %s  %s  %7zu bytes\n", static_cast<unsigned long long>(f.height), f.block_hash.to_hex().c_str(),
                  f.header.to_hex().c_str(), f.filter.size());
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

int filters_command(const FiltersOptions& o) {
  if (!o.peer.empty()) return filters_from_peer(o);
  if (o.dir.empty()) {
    std::fprintf(stderr, "blockwire filters: a blocks directory, or --from-peer HOST[:PORT]\n");
    return usage_or_io;
  }
  auto opened = open_chain("filters", o, true);
  if (const int* status = std::get_if<int>(&opened)) return *status;
  const BlocksDirectory& dir = std::get<BlocksDirectory>(opened);
  const auto chain = dir.chain();
  // What earlier runs made is in DIR/blockwire-filters/basic.dat (checked
  // against the chain as it is read back): only the blocks after it are
  // filtered, from genesis when it is new (each header hashes the one
  // before), and appended to it.
  std::vector<Hash256> hashes;
  hashes.reserve(chain.size());
  for (const std::size_t i : chain) hashes.push_back(dir.index().blocks()[i].hash);
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
  FilterFile& kept = file.value();
  std::vector<Hash256> headers;  // every height's filter header so far
  for (std::size_t h = 0; h < kept.size(); ++h) headers.push_back(kept.header(h));
  const std::uint64_t end = chain_end(dir, o);
  std::optional<tables::JsonWriter> json;
  if (o.json) {
    json.emplace();
    json->begin_array();
  }
  const auto print = [&](std::uint64_t height, std::span<const std::byte> filter) {
    if (height < o.from) return;
    const Hash256& hash = hashes[height];
    const Hash256& header = headers[height];
    if (json) {
      json->begin_object();
      json->member_uint("height", height);
      json->member_string("hash", hash.to_hex());
      json->member_string("filter", to_hex(filter));
      json->member_string("header", header.to_hex());
      json->end_object();
    } else {
      std::printf("%8llu  %s  %s  %7zu bytes\n", static_cast<unsigned long long>(height), hash.to_hex().c_str(), header.to_hex().c_str(),
                  filter.size());
    }
  };
  const std::uint64_t held = std::min<std::uint64_t>(kept.size(), end);
  for (std::uint64_t height = o.from; height < held; ++height) {
    auto filter = kept.filter(height);
    if (!filter) {
      if (json) json->end_array();
      std::fprintf(stderr, "blockwire filters: %s/blockwire-filters/basic.dat: %s\n", o.dir.c_str(), filter.error().message().c_str());
      return usage_or_io;
    }
    print(height, filter.value());
  }
  const unsigned threads = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::size_t batch = 64 * std::size_t{threads};
  std::vector<Filtered> results(batch);
  // On a terminal, and not with JSON on it: the blocks filtered so far.
  Progress progress(::isatty(STDERR_FILENO) != 0 && !(o.json && ::isatty(STDOUT_FILENO) != 0), end - held, "block");
  std::uint64_t block_bytes = 0;
  for (std::uint64_t first = held; first < end; first += batch) {
    progress.update(static_cast<double>(first - held) / static_cast<double>(end - held), block_bytes,
                    count_of(first - held, "block") + " of " + std::to_string(end - held));
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(batch, end - first));
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) {
        results[i] = filter_block(dir, dir.at_height(first + i));
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t < n; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t height = first + i;
      Filtered& r = results[i];
      if (!r.filter) {
        if (json) json->end_array();  // what was printed stays a whole document
        std::fprintf(stderr, "blockwire filters: %s: %s; filters and headers end at height %lld\n", o.dir.c_str(), r.problem.c_str(),
                     static_cast<long long>(height) - 1);
        return r.io ? usage_or_io : bad_data;
      }
      headers.push_back(filters::filter_header(filters::filter_hash(*r.filter), headers.empty() ? Hash256{} : headers.back()));
      if (auto w = keeping ? kept.append(hashes[height], r.filter->encoded()) : success(); !w) {
        if (json) json->end_array();
        std::fprintf(stderr, "blockwire filters: %s/blockwire-filters/basic.dat: %s\n", o.dir.c_str(), w.error().message().c_str());
        return usage_or_io;
      }
      print(height, r.filter->encoded());
      block_bytes += r.bytes;
      r.filter.reset();
    }
  }
  progress.finish();
  if (json) json->end_array();
  return dir.damaged() ? bad_data : ok;
}

}  // namespace blockwire::cli
