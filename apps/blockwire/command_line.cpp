#include "command_line.hpp"

#include "subcommands.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <string>

namespace blockwire::cli {

namespace {

// The commands that run for long, as services do: they read the file.
const std::vector<std::string> configurable = {"fetch", "serve", "rest", "electrum"};

std::string settings_footer(const std::string& command) {
  return "Settings: --conf FILE (default " + std::string(default_settings_file) + " when it exists), its [" + command +
         "] section: one\n"
         "`key = value` a line, each key an option's name without its dashes (or `" +
         (command == "fetch" ? "peer" : "dir") +
         "`, the argument); flags win over\n"
         "the file. `blockwire config --show " +
         command + "` prints the settings in effect and where each came from.";
}

}  // namespace

CommandLine::CommandLine(std::string default_file)
    : app{"blockwire: Bitcoin blocks and transactions, and Bitcoin Core's block files.\n"
          "Exit status: 0 success, 1 bad data found, 2 usage or I/O error.",
          "blockwire"} {
  app.require_subcommand(1);
  app.set_version_flag("--version", "blockwire " BLOCKWIRE_VERSION);
  settings = std::make_shared<SettingsFile>(app, configurable, default_file);
  app.config_formatter(settings);
  app.set_config("--conf", default_file,
                 "settings for rest, serve, fetch and electrum, a [section] each (default: " + default_file + " when it exists)")
      ->type_name("FILE");
  const auto add = [this]<class Options>(CLI::App* (*adder)(CLI::App&, Options&), Options& options) {
    CLI::App* cmd = adder(app, options);
    if constexpr (requires { options.net_from_records; }) network_from_records_.emplace_back(cmd, &options.net_from_records);
    return cmd;
  };
  commands.inspect = add(add_inspect, inspect);
  commands.scan = add(add_scan, scan);
  commands.pack = add(add_pack, pack);
  commands.blocks = add(add_blocks, blocks);
  commands.filters = add(add_filters, filters);
  commands.addresses = add(add_addresses, addresses);
  commands.exports = add(add_export, exports);
  commands.fetch = add(add_fetch, fetch);
  commands.serve = add(add_serve, serve);
  commands.rest = add(add_rest, rest);
  commands.electrum = add(add_electrum, electrum);
  commands.utxos = add(add_utxos, utxos);
  commands.prune = add(add_prune, prune);
  for (const std::string& name : configurable) {
    CLI::App* cmd = app.get_subcommand(name);
    cmd->fallthrough();  // --conf, the main command's, after the subcommand's name
    cmd->footer(settings_footer(name));
  }

  commands.config =
      app.add_subcommand("config", "The settings a command would run with (--conf FILE, else " + default_file +
                                       ", then its flags),\n"
                                       "each with where it came from, written as a configuration file: the file's errors are said\n"
                                       "as the command would say them (exit status 2).");
  commands.config->add_option("--show", config.show, "the command: rest, serve, fetch or electrum")
      ->required()
      ->check(CLI::IsMember(configurable))
      ->type_name("COMMAND");
  commands.config->add_option("args", config.args, "the command's own arguments and options, after --")->type_name("ARGS");
  commands.config->fallthrough();
}

void CommandLine::parse(std::vector<std::string> args) {
  // CLI11 passes over a default file it cannot read; one that is there
  // but unreadable (its mode, its owner) is said instead, for the
  // commands that read it, whatever else the parse finds.
  const std::string& default_file = settings->default_file();
  struct stat st {};
  const bool there = ::stat(default_file.c_str(), &st) == 0;
  const bool unreadable = there && (!S_ISREG(st.st_mode) || ::access(default_file.c_str(), R_OK) != 0);
  const std::string why = !there ? "" : !S_ISREG(st.st_mode) ? "not a file" : std::strerror(errno);
  const auto say_unreadable = [&] {
    const std::vector<CLI::App*> invoked = app.get_subcommands();
    if (!unreadable || invoked.empty() || app.get_config_ptr()->count() > 0) return;
    const auto& reads = settings->commands();
    if (std::find(reads.begin(), reads.end(), invoked.front()->get_name()) == reads.end()) return;
    if (invoked.front()->get_help_ptr()->count() > 0) return;
    throw CLI::ConfigError(default_file + ": cannot be read: " + why);
  };
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != static_cast<int>(CLI::ExitCodes::Success)) say_unreadable();
    throw;
  }
  say_unreadable();
  // From a blocks directory, the network is what its records' magic says
  // unless --network names one (on the command line or in the file).
  for (const auto& [cmd, from_records] : network_from_records_) *from_records = cmd->count("--network") == 0;
}

int show_settings(const ConfigOptions& options, const std::string& conf, const std::string& default_file) {
  CommandLine line(default_file);
  std::vector<std::string> args{options.show};
  args.insert(args.end(), options.args.begin(), options.args.end());
  if (!conf.empty()) args.insert(args.end(), {"--conf", conf});
  std::string missing;
  try {
    line.parse(args);
  } catch (const CLI::RequiredError& e) {
    missing = e.what();  // shown below the settings: the command would stop there
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "blockwire config: %s\n", e.what());
    return usage_or_io;
  }
  CLI::App* cmd = line.app.get_subcommand(options.show);
  const std::string& file = line.settings->file();
  std::printf("# blockwire %s: its settings, each with where it came from (the command line; %s; or not set: the default)\n",
              options.show.c_str(), file.empty() ? "no configuration file" : file.c_str());
  std::printf("[%s]\n", options.show.c_str());
  for (const CLI::Option* op : cmd->get_options()) {
    const std::string key = key_of(*op);
    if (key == "help") continue;
    const std::string source = line.settings->source_of(*op);
    if (source.empty()) {
      std::printf("# %s: not set (its default)\n", key.c_str());
      continue;
    }
    for (const std::string& value : line.settings->values_of(*op))
      std::printf("%s = %s  # %s\n", key.c_str(), value.c_str(), source.c_str());
  }
  if (!missing.empty()) std::printf("# the command would stop here: %s\n", missing.c_str());
  return ok;
}

}  // namespace blockwire::cli
