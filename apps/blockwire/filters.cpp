// blockwire filters: the BIP158 basic filter and BIP157 filter header of
// every block of a blocks directory's best chain, from its blk and rev files
// (no node). Blocks are read and filtered on every core, a batch at a time;
// the headers, each hashing the one before, are chained in height order. A
// block whose undo data is not there (a pruned or partial directory) stops
// the run, said on standard error: a filter without its spent scripts would
// be wrong, and every later header with it.
// Memory: the header index, an index of the undo records, one batch.
#include "chain_input.hpp"
#include "commands.hpp"
#include "json_output.hpp"
#include "text.hpp"
#include "xor_key.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/undo.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace blockwire::cli {

namespace {

struct Filtered {
  std::optional<filters::GcsFilter> filter;
  std::string problem;  // when there is no filter
  bool io = false;      // the problem is the system's
};

Filtered filter_block(const BlockIndex& index, const UndoIndex* undo_index, const IndexedBlock& b, std::uint64_t height, const XorKey& key,
                      network net) {
  Filtered out;
  const std::string path = index.file_path(b.file);
  auto bytes = read_block_record(path, b.offset, key, net);
  if (!bytes) {
    out.problem = path + ":" + std::to_string(b.offset) + ": " + bytes.error().message();
    out.io = bytes.error().is_io();
    return out;
  }
  auto view = BlockView::parse(bytes.value());
  if (!view) {
    out.problem = path + ":" + std::to_string(b.offset) + ": block " + std::to_string(height) + ": " + view.error().message();
    return out;
  }
  if (height == 0 || view.value().transaction_count() == 1) {  // only a coinbase: nothing spent
    out.filter = filters::basic_filter(view.value(), std::span<const std::span<const std::byte>>{});
    return out;
  }
  const auto no_undo = [&](const std::string& why) {
    out.problem = "block " + std::to_string(height) + " (" + b.hash.to_hex() + "): " + why;
  };
  if (undo_index == nullptr || !undo_index->has_file(b.file)) {
    no_undo("no " + undo_file_name(b.file) + ": the scripts its inputs spend are not in the directory");
    return out;
  }
  auto found = undo_index->find(b.hash, undo_shape(view.value()));
  if (!found) {
    no_undo("its undo data: " + found.error().message());
    out.io = found.error().is_io();
    return out;
  }
  if (!found.value()) {
    no_undo("no undo record in " + undo_file_name(b.file) + " pairs with it");
    return out;
  }
  auto filter = filters::basic_filter(view.value(), *found.value());
  if (!filter) {
    no_undo("its undo data: " + filter.error().message());
    return out;
  }
  out.filter = std::move(filter).value();
  return out;
}

}  // namespace

int filters_command(const FiltersOptions& o) {
  auto opened = open_chain("filters", o, true);
  if (const int* status = std::get_if<int>(&opened)) return *status;
  const OpenChain& c = std::get<OpenChain>(opened);
  const auto chain = c.chain();
  // Each header hashes the one before: every block from genesis is filtered,
  // those before --from only to chain their headers.
  const std::uint64_t end = c.end(o);
  const unsigned threads = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::size_t batch = 64 * std::size_t{threads};
  std::optional<JsonOutput> json;
  if (o.json) {
    json.emplace();
    json->begin_array();
  }
  Hash256 header;  // zero before genesis
  std::vector<Filtered> results(batch);
  for (std::uint64_t first = 0; first < end; first += batch) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(batch, end - first));
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) {
        const IndexedBlock& b = c.index.blocks()[chain[first + i]];
        results[i] = filter_block(c.index, c.undo ? &*c.undo : nullptr, b, first + i, c.key, c.net);
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
      header = filters::filter_header(filters::filter_hash(*r.filter), header);
      if (height < o.from) continue;
      const IndexedBlock& b = c.index.blocks()[chain[height]];
      if (json) {
        json->begin_object();
        json->member_uint("height", height);
        json->member_string("hash", b.hash.to_hex());
        json->member_string("filter", to_hex(r.filter->encoded()));
        json->member_string("header", header.to_hex());
        json->end_object();
      } else {
        std::printf("%8llu  %s  %s  %6llu elements  %7zu bytes\n", static_cast<unsigned long long>(height), b.hash.to_hex().c_str(),
                    header.to_hex().c_str(), static_cast<unsigned long long>(r.filter->size()), r.filter->encoded().size());
      }
      r.filter.reset();
    }
  }
  if (json) json->end_array();
  return c.damaged ? bad_data : ok;
}

}  // namespace blockwire::cli
