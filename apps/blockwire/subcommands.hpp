// Each subcommand added to the command line, its options written into the
// struct given (which must outlive the parse); the subcommand returned.
#pragma once

#include "commands.hpp"

#include <CLI/CLI.hpp>

namespace blockwire::cli {

CLI::App* add_inspect(CLI::App& app, InspectOptions& options);
CLI::App* add_scan(CLI::App& app, ScanOptions& options);
CLI::App* add_pack(CLI::App& app, PackOptions& options);
CLI::App* add_blocks(CLI::App& app, BlocksOptions& options);
CLI::App* add_filters(CLI::App& app, FiltersOptions& options);
CLI::App* add_addresses(CLI::App& app, AddressesOptions& options);
CLI::App* add_export(CLI::App& app, ExportOptions& options);
CLI::App* add_fetch(CLI::App& app, FetchOptions& options);
CLI::App* add_serve(CLI::App& app, ServeOptions& options);
CLI::App* add_rest(CLI::App& app, RestOptions& options);
CLI::App* add_electrum(CLI::App& app, ElectrumOptions& options);
CLI::App* add_utxos(CLI::App& app, UtxosOptions& options);
CLI::App* add_prune(CLI::App& app, PruneOptions& options);

}  // namespace blockwire::cli
