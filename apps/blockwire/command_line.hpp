// blockwire's command line: every subcommand's options bound to its
// struct, and the configuration file of the long-running commands
// (--conf, settings_file.hpp). Built in place: CLI11's options point into
// the structs.
#pragma once

#include "commands.hpp"
#include "settings_file.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace blockwire::cli {

// blockwire config --show COMMAND [-- ARGS...]
struct ConfigOptions {
  std::string show;
  std::vector<std::string> args;  // the command's own arguments, as it would be run
};

struct CommandLine {
  // `default_file`: the settings file read when --conf is not given (the
  // tests name one that is not there).
  explicit CommandLine(std::string default_file = default_settings_file);
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  CLI::App app;
  InspectOptions inspect;
  ScanOptions scan;
  PackOptions pack;
  BlocksOptions blocks;
  FiltersOptions filters;
  AddressesOptions addresses;
  ExportOptions exports;
  FetchOptions fetch;
  ServeOptions serve;
  RestOptions rest;
  ElectrumOptions electrum;
  UtxosOptions utxos;
  PruneOptions prune;
  ConfigOptions config;
  // The subcommands, in the order --help lists them.
  struct {
    CLI::App *inspect, *scan, *pack, *blocks, *filters, *addresses, *exports, *fetch, *serve, *rest, *electrum, *utxos, *prune, *config;
  } commands{};
  std::shared_ptr<SettingsFile> settings;

  // Parses `args` (without the program's name); throws CLI::ParseError
  // as CLI::App::parse does. --network's presence is told to the options
  // that take their network from the records without it.
  void parse(std::vector<std::string> args);

 private:
  // Each subcommand whose options take their network from the records
  // unless --network is given, and where that is told.
  std::vector<std::pair<CLI::App*, bool*>> network_from_records_;
};

// `blockwire config --show COMMAND`: the settings COMMAND would run with,
// each with where it came from, as a configuration file. The exit status.
int show_settings(const ConfigOptions& options, const std::string& conf, const std::string& default_file = default_settings_file);

}  // namespace blockwire::cli
