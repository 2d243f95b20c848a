// blockwire export: tables::export_etl on a blocks directory's best chain,
// with its progress on a terminal and a summary line (see etl_export.hpp
// for the shards, their layout and what a rerun removes).
#include "commands.hpp"
#include "progress.hpp"
#include "scheduler.hpp"
#include "text.hpp"

#include <blockwire/tables/etl_export.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace blockwire::cli {

namespace {

int export_on_scheduler(const ExportOptions& o) {
  if (!o.xor_key.empty()) {
    std::fprintf(stderr, "blockwire export: --xor-key is not taken with --scheduler (the workers read DIR's own xor.dat)\n");
    return usage_or_io;
  }
  std::vector<std::string> args = {o.dir, "-o", o.output_dir, "--scheduler", o.scheduler};
  args.insert(args.end(), {"--format", std::string(tables::export_format_name(o.format))});
  args.insert(args.end(), {"--compress", std::string(tables::compression_name(o.compress))});
  args.insert(args.end(), {"--shard-blocks", std::to_string(o.shard_blocks), "--from", std::to_string(o.from)});
  if (o.count != 0) args.insert(args.end(), {"--count", std::to_string(o.count)});
  if (!o.net_from_records) args.insert(args.end(), {"--network", std::string(name(o.net))});
  if (!o.progress) args.emplace_back("--no-progress");
  return run_on_scheduler("export", args);
}

}  // namespace

int export_command(ExportOptions o) {
  namespace fs = std::filesystem;
  if (!o.scheduler.empty()) return export_on_scheduler(o);
  if (o.from % o.shard_blocks != 0) {
    std::fprintf(stderr,
                 "blockwire export: --from %llu is not a multiple of --shard-blocks %llu: shards start at multiples of it, so that\n"
                 "separate runs make the same shards\n",
                 static_cast<unsigned long long>(o.from), static_cast<unsigned long long>(o.shard_blocks));
    return usage_or_io;
  }
  // OUT locked before the directory is read (minutes on mainnet): a second
  // export into it hears of the first at once.
  auto out = tables::EtlOutput::open(o.output_dir);
  if (!out) {
    const fs::path lock = fs::path(o.output_dir) / ".blockwire-export.lock";
    if (out.error().code() == io::errc::locked) {
      std::fprintf(stderr, "blockwire export: %s: another export into it is running (it holds %s); wait for it to end\n",
                   o.output_dir.c_str(), lock.c_str());
    } else {
      std::fprintf(stderr, "blockwire export: -o %s: %s\n", o.output_dir.c_str(), out.error().message().c_str());
    }
    return usage_or_io;
  }
  auto opened = open_chain("export", o, true, o.shard_blocks);
  if (const int* status = std::get_if<int>(&opened)) return *status;
  const BlocksDirectory& dir = std::get<BlocksDirectory>(opened);
  if (!dir.has_undo()) {
    std::fprintf(stderr,
                 "blockwire export: %s has no rev files: the inputs' value, type, addresses and required_signatures, and the\n"
                 "transactions' input_value and fee, are null\n",
                 o.dir.c_str());
  }
  const std::uint64_t total = o.end.heights(o.first).size();
  Progress progress(o.progress && ::isatty(STDERR_FILENO) != 0, total, "block");
  tables::EtlExport spec;
  spec.format = o.format;
  spec.from = o.first;
  spec.end = o.end;
  spec.shard_blocks = o.shard_blocks;
  spec.compress = o.compress;
  spec.threads = o.threads;
  spec.note = [](std::string_view line) { std::fprintf(stderr, "blockwire export: %.*s\n", static_cast<int>(line.size()), line.data()); };
  spec.progress = [&](std::uint64_t blocks, std::uint64_t bytes) {
    progress.update(static_cast<double>(blocks) / static_cast<double>(total), bytes,
                    count_of(blocks, "block") + " of " + with_commas(total));
  };
  auto exported = tables::export_etl(dir, out.value(), spec);
  progress.finish();
  if (!exported) {
    // OUT's shards of another size (the sweep's own failure is said by `note`).
    if (exported.error().code() == condition::usage) {
      const std::string_view why = exported.error().context();
      std::fprintf(stderr, "blockwire export: -o %s: %.*s\n", o.output_dir.c_str(), static_cast<int>(why.size()), why.data());
    }
    return usage_or_io;
  }
  const tables::EtlReport& r = exported.value();
  for (const std::string& line : r.problem_lines()) std::fprintf(stderr, "blockwire export: %s\n", line.c_str());
  const tables::ExportCounts counts = r.counts();
  std::printf("blockwire export: %s\n", counts.summary(o.output_dir).c_str());
  return counts.exit_status(dir.damaged());
}

}  // namespace blockwire::cli
