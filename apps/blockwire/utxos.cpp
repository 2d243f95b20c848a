// blockwire utxos: a node's UTXO set, as gettxoutsetinfo (hash_serialized_3)
// says it, read from its chainstate (core_utxo_set_info); with --snapshot
// written as dumptxoutset writes it too (write_core_snapshot), with
// --tables as a table beside export's (export_utxos).
#include "commands.hpp"
#include "progress.hpp"
#include "scheduler.hpp"
#include "text.hpp"

#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/io/number_text.hpp>
#include <blockwire/tables/core_json.hpp>
#include <blockwire/tables/json_writer.hpp>
#include <blockwire/tables/utxo_table.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <unistd.h>
#include <variant>

namespace blockwire::cli {

namespace {

namespace fs = std::filesystem;

// The set as the utxos table in OUT (export_utxos), with the blocks
// directory's chain for the blocks' hashes and times; the exit status on
// failure, with the problem said.
std::variant<tables::UtxoExportReport, int> write_table(const UtxosOptions& o, const std::string& blocks, network net,
                                                        const CoinsProgressFn& progress, Progress& bar) {
  std::error_code ec;
  if (!fs::is_directory(blocks, ec)) {
    std::fprintf(stderr, "blockwire utxos: %s: not a blocks directory (--tables needs the node's, for each coin's block: --blocks DIR)\n",
                 blocks.c_str());
    return usage_or_io;
  }
  auto out = tables::EtlOutput::open(o.tables);
  if (!out) {
    if (out.error().code() == io::errc::locked) {
      std::fprintf(stderr, "blockwire utxos: %s: an export into it is running; wait for it to end\n", o.tables.c_str());
    } else {
      std::fprintf(stderr, "blockwire utxos: --tables %s: %s\n", o.tables.c_str(), out.error().message().c_str());
    }
    return usage_or_io;
  }
  auto format = record_format(blocks, std::nullopt, net);
  if (!format) {
    std::fprintf(stderr, "blockwire utxos: %s\n", xor_key_error_message(blocks, format.error()).c_str());
    return usage_or_io;
  }
  std::vector<std::string> notes;
  auto index = BlocksDirectory::open_index(blocks, format.value().key, net, &notes);
  for (const std::string& note : notes) std::fprintf(stderr, "blockwire utxos: %s\n", note.c_str());
  if (!index) {
    std::fprintf(stderr, "blockwire utxos: %s\n", index.error().message().c_str());
    return exit_status_of(index.error());
  }
  tables::UtxoExport spec;
  spec.format = o.format;
  spec.compress = o.compress;
  spec.progress = progress;
  auto made = tables::export_utxos(o.chainstate, index.value(), out.value(), spec);
  bar.finish();
  if (!made) {
    std::fprintf(stderr, "blockwire utxos: %s: %s\n", o.chainstate.c_str(), made.error().message().c_str());
    return exit_status_of(made.error());
  }
  return std::move(made).value();
}

}  // namespace

int utxos(const UtxosOptions& o) {
  if (!o.scheduler.empty()) {
    std::vector<std::string> args = {o.chainstate, "--tables", o.tables, "--scheduler", o.scheduler};
    args.insert(args.end(), {"--format", std::string(tables::export_format_name(o.format))});
    args.insert(args.end(), {"--compress", std::string(tables::compression_name(o.compress))});
    if (!o.blocks.empty()) args.insert(args.end(), {"--blocks", o.blocks});
    if (!o.net_from_records) args.insert(args.end(), {"--network", std::string(name(o.net))});
    if (o.json) args.emplace_back("--json");
    return run_on_scheduler("utxos", args);
  }
  const std::string blocks = !o.blocks.empty() ? o.blocks : (fs::path(o.chainstate) / ".." / "blocks").lexically_normal().string();
  network net = o.net;
  if (o.net_from_records) {
    std::error_code ec;
    std::optional<network> found;
    if (fs::is_directory(blocks, ec)) {
      if (auto key = xor_key_for(blocks)) found = network_of(blocks, key.value());  // its first record's magic, read once
    }
    // The magic a snapshot carries is never guessed.
    if (!found && !o.snapshot.empty()) {
      std::fprintf(stderr, "blockwire utxos: which network is %s? No blocks directory beside it says (%s): --network NAME\n",
                   o.chainstate.c_str(), blocks.c_str());
      return usage_or_io;
    }
    if (found) net = *found;
  }
  Progress bar(o.progress && !o.json && isatty(STDERR_FILENO) != 0, 0, "coin");
  const CoinsProgressFn progress = [&bar](const CoinsProgress& p) { bar.update_count(p.fraction, p.coins); };
  std::optional<tables::UtxoExportReport> table;
  result<UtxoSetInfo> info = UtxoSetInfo{};
  if (!o.tables.empty()) {
    auto made = write_table(o, blocks, net, progress, bar);
    if (const int* status = std::get_if<int>(&made)) return *status;
    table = std::get<tables::UtxoExportReport>(std::move(made));
    info = table->info;
  } else {
    info = o.snapshot.empty() ? core_utxo_set_info(o.chainstate, progress) : write_core_snapshot(o.chainstate, o.snapshot, net, progress);
  }
  bar.finish();
  if (!info) {
    std::fprintf(stderr, "blockwire utxos: %s: %s\n", o.chainstate.c_str(), info.error().message().c_str());
    return exit_status_of(info.error());
  }
  const UtxoSetInfo& u = info.value();
  // The best block's height, as gettxoutsetinfo gives it first: from the
  // blocks directory beside, when there is one that holds the block.
  std::optional<Height> height;
  if (std::error_code ec; fs::is_directory(blocks, ec)) {
    BlocksDirectory::Options options;
    options.undo = false;
    if (!o.net_from_records) options.net = net;
    if (auto dir = BlocksDirectory::open(blocks, options)) {
      if (auto b = dir.value().index().find(u.best_block)) height = b->linked_height();
    }
  }
  if (o.json) {
    tables::JsonWriter out;
    out.begin_object();
    if (height) out.member_integer("height", height->to_wire());
    out.member_string("bestblock", u.best_block.to_hex());
    out.member_uint("txouts", u.txouts);
    out.member_uint("bogosize", u.bogosize);
    out.member_string("hash_serialized_3", u.hash_serialized_3.to_hex());
    // (Core says nothing of a sum past the money range.)
    if (u.total_amount) out.member_raw_number("total_amount", tables::amount_text(*u.total_amount));
    out.member_uint("transactions", u.transactions);
    out.end_object();
    std::printf("\n");
    return ok;
  }
  std::printf("best block         %s%s\n", u.best_block.to_hex().c_str(),
              height ? (" (height " + with_commas(height->to_wire()) + ")").c_str() : "");
  std::printf("transactions       %s\n", with_commas(u.transactions).c_str());
  std::printf("unspent outputs    %s\n", with_commas(u.txouts).c_str());
  std::printf("bogosize           %s\n", with_commas(u.bogosize).c_str());
  std::printf("total amount       %s\n", u.total_amount ? (tables::amount_text(*u.total_amount) + " BTC").c_str() : "past the money range");
  std::printf("hash_serialized_3  %s\n", u.hash_serialized_3.to_hex().c_str());
  if (table) {
    std::printf("height             %s\n", with_commas(table->height.to_wire()).c_str());
    std::printf("table              %s (%s)\n", table->folder.c_str(), count_of(table->parts, "part").c_str());
  }
  if (!o.snapshot.empty()) {
    std::printf("snapshot           %s (%s's magic)\n", o.snapshot.c_str(), std::string(name(net)).c_str());
  }
  return ok;
}

}  // namespace blockwire::cli
