// blockwire: Bitcoin blocks and transactions, and Bitcoin Core's block files.
#include "commands.hpp"
#include "subcommands.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

using namespace blockwire;

namespace {

// A subcommand, the command it runs, and where it is told whether
// --network was given.
struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
  bool* net_from_records = nullptr;
};

template <class Options, class Command>
Subcommand bind(CLI::App* app, Options& options, Command command) {
  Subcommand s{app, [&options, command] { return command(options); }};
  if constexpr (requires { options.net_from_records; }) s.net_from_records = &options.net_from_records;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (RLIMIT_FSIZE) then fails a write with EFBIG, which is
  // reported, instead of killing the process mid-record.
  std::signal(SIGXFSZ, SIG_IGN);

  CLI::App app{
      "blockwire: Bitcoin blocks and transactions, and Bitcoin Core's block files.\n"
      "Exit status: 0 success, 1 bad data found, 2 usage or I/O error."};
  app.require_subcommand(1);

  cli::InspectOptions inspect;
  cli::ScanOptions scan;
  cli::PackOptions pack;
  cli::BlocksOptions blocks;
  cli::FiltersOptions filters;
  cli::AddressesOptions addresses;
  cli::ExportOptions exports;
  cli::FetchOptions fetch;
  cli::ServeOptions serve;
  cli::RestOptions rest;
  cli::ElectrumOptions electrum;
  cli::UtxosOptions utxos;
  cli::PruneOptions prune;
  // In the order --help lists them.
  const std::vector<Subcommand> subcommands = {
      bind(cli::add_inspect(app, inspect), inspect, cli::inspect),
      bind(cli::add_scan(app, scan), scan, cli::scan),
      bind(cli::add_pack(app, pack), pack, cli::pack),
      bind(cli::add_blocks(app, blocks), blocks, cli::blocks),
      bind(cli::add_filters(app, filters), filters, cli::filters_command),
      bind(cli::add_addresses(app, addresses), addresses, cli::addresses_command),
      bind(cli::add_export(app, exports), exports, cli::export_command),
      bind(cli::add_fetch(app, fetch), fetch, cli::fetch),
      bind(cli::add_serve(app, serve), serve, cli::serve),
      bind(cli::add_rest(app, rest), rest, cli::rest_command),
      bind(cli::add_electrum(app, electrum), electrum, cli::electrum_command),
      bind(cli::add_utxos(app, utxos), utxos, cli::utxos),
      bind(cli::add_prune(app, prune), prune, cli::prune),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help (code 0) or the error
    return code == 0 ? cli::ok : cli::usage_or_io;
  }
  int status = cli::usage_or_io;
  for (const Subcommand& s : subcommands) {
    if (!*s.app) continue;
    // From a blocks directory, the network is what its records' magic
    // says unless --network names one.
    if (s.net_from_records != nullptr) *s.net_from_records = s.app->count("--network") == 0;
    status = s.run();
  }
  // What was printed must have arrived: a full disk or a closed pipe
  // behind standard output is an I/O error, not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "blockwire: writing the output: %s\n", std::strerror(errno));
    status = cli::usage_or_io;
  }
  return status;
}
