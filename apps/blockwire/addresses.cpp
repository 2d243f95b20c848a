// blockwire addresses: a blocks directory's address index (AddressIndex)
// made or brought to its tip, its size and the time it took said at the
// end; and the same index opened for rest --addresses.
#include "commands.hpp"
#include "directory_options.hpp"
#include "progress.hpp"
#include "text.hpp"

#include <blockwire/codec/address.hpp>
#include <blockwire/directory.hpp>
#include <blockwire/rest.hpp>
#include <blockwire/tables/json_writer.hpp>

#include <chrono>
#include <cstdio>
#include <unistd.h>
#include <vector>

namespace blockwire::cli {

std::optional<TxIndex> open_tx_index(const char* command, const BlocksDirectory& dir, int& status) {
  Progress bar(isatty(STDERR_FILENO) != 0, 0, "block");
  auto opened = TxIndex::open(dir, [&bar](std::uint64_t done, std::uint64_t total) {
    bar.update(total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total), 0,
               "the transaction index: " + with_commas(done) + " of " + count_of(total, "block"));
  });
  bar.finish();
  if (!opened) {
    std::fprintf(stderr, "blockwire %s: %s: the transaction index: %s\n", command, dir.path().c_str(), opened.error().message().c_str());
    status = exit_status_of(opened.error());
    return std::nullopt;
  }
  return std::move(opened).value();
}

std::optional<AddressIndex> open_address_index(const char* command, const BlocksDirectory& dir, unsigned threads, int& status,
                                               AddressIndex::Progress* made) {
  Progress bar(isatty(STDERR_FILENO) != 0, 0, "block");
  AddressIndex::Options options;
  options.threads = threads;
  options.progress = [&](const AddressIndex::Progress& p) {
    if (made != nullptr) *made = p;
    const double fraction = p.blocks_total == 0 ? 1.0 : static_cast<double>(p.blocks_done) / static_cast<double>(p.blocks_total);
    bar.update(fraction, p.block_bytes, "the address index: " + with_commas(p.blocks_done) + " of " + count_of(p.blocks_total, "block"));
  };
  auto opened = AddressIndex::open(dir, options);
  bar.finish();
  if (!opened) {
    std::fprintf(stderr, "blockwire %s: %s: the address index: %s\n", command, dir.path().c_str(), opened.error().message().c_str());
    status = exit_status_of(opened.error());
    return std::nullopt;
  }
  return std::move(opened).value();
}

int addresses_command(const AddressesOptions& o) {
  auto opened = open_directory("addresses", o, true);
  if (const int* status = std::get_if<int>(&opened)) return *status;
  const BlocksDirectory& dir = std::get<BlocksDirectory>(opened);
  std::vector<ScriptHash> scripts;  // (each asked for, checked before the work)
  for (const std::string& asked : o.show) {
    std::optional<ScriptHash> script = ScriptHash::from_hex(asked);
    if (auto decoded = decode_address(asked, dir.net()); decoded) script = ScriptHash::of(decoded.value());
    if (!script) {
      std::fprintf(stderr, "blockwire addresses: %s: neither an address of %s nor a scripthash (64 hex digits)\n", asked.c_str(),
                   std::string(name(dir.net())).c_str());
      return usage_or_io;
    }
    scripts.push_back(*script);
  }
  const auto start = std::chrono::steady_clock::now();
  AddressIndex::Progress made;
  int status = ok;
  const auto index = open_address_index("addresses", dir, o.threads, status, &made);
  if (!index) return status;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::uint64_t size = index->disk_size();
  std::printf("the address index of %s: at height %lld (%s), %s on disk\n", o.dir.c_str(),
              static_cast<long long>(signed_height(index->best_height())), index->best().to_hex().c_str(), count_of(size, "byte").c_str());
  if (made.blocks_done == 0) {
    std::printf("already at the tip: nothing to index\n");
  } else {
    std::printf("indexed %s (%s of blocks) in %.1f s: %.0f MB/s", count_of(made.blocks_done, "block").c_str(),
                count_of(made.block_bytes, "byte").c_str(), seconds,
                seconds > 0 ? static_cast<double>(made.block_bytes) / seconds / 1e6 : 0.0);
    if (made.blocks_done == dir.chain_size().value() && made.block_bytes != 0) {
      std::printf(", %.3f index bytes a block byte", static_cast<double>(size) / static_cast<double>(made.block_bytes));
    }
    std::printf("\n");
  }
  // Each address or scripthash asked for: its totals, one JSON line.
  for (std::size_t i = 0; i < o.show.size(); ++i) {
    const std::string& asked = o.show[i];
    const ScriptHash& script = scripts[i];
    const auto t = index->totals(script);
    if (!t) {
      std::fprintf(stderr, "blockwire addresses: %s: the address index: %s\n", o.dir.c_str(), t.error().message().c_str());
      return exit_status_of(t.error());
    }
    std::fflush(stdout);  // (the writer writes to the same stream, through its own buffer)
    tables::JsonWriter out(stdout, false);
    out.begin_object();
    out.member_string("query", asked);
    out.member_string("scripthash", script.to_hex());
    out.key("chain_stats");
    rest::write_chain_stats(out, t.value());
    out.end_object();
  }
  return ok;
}

}  // namespace blockwire::cli
