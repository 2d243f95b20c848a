// blockwire: Bitcoin blocks and transactions, and Bitcoin Core's block files.
#include "command_line.hpp"
#include "commands.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

using namespace blockwire;

int main(int argc, char** argv) {
  // A file-size limit (RLIMIT_FSIZE) then fails a write with EFBIG, which is
  // reported, instead of killing the process mid-record.
  std::signal(SIGXFSZ, SIG_IGN);

  cli::CommandLine line;
  const auto& c = line.commands;
  const std::vector<std::pair<CLI::App*, std::function<int()>>> subcommands = {
      {c.inspect, [&] { return cli::inspect(line.inspect); }},
      {c.scan, [&] { return cli::scan(line.scan); }},
      {c.pack, [&] { return cli::pack(line.pack); }},
      {c.blocks, [&] { return cli::blocks(line.blocks); }},
      {c.filters, [&] { return cli::filters_command(line.filters); }},
      {c.addresses, [&] { return cli::addresses_command(line.addresses); }},
      {c.exports, [&] { return cli::export_command(line.exports); }},
      {c.fetch, [&] { return cli::fetch(line.fetch); }},
      {c.serve, [&] { return cli::serve(line.serve); }},
      {c.rest, [&] { return cli::rest_command(line.rest); }},
      {c.electrum, [&] { return cli::electrum_command(line.electrum); }},
      {c.utxos, [&] { return cli::utxos(line.utxos); }},
      {c.prune, [&] { return cli::prune(line.prune); }},
      {c.config,
       [&] {
         const CLI::Option* conf = line.app.get_config_ptr();
         return cli::show_settings(line.config, conf->empty() ? std::string() : conf->results().front());
       }},
  };

  try {
    line.parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const CLI::ParseError& e) {
    const int code = line.app.exit(e);  // prints help (code 0) or the error
    return code == 0 ? cli::ok : cli::usage_or_io;
  }
  int status = cli::usage_or_io;
  for (const auto& [app, run] : subcommands) {
    if (*app) status = run();
  }
  // What was printed must have arrived: a full disk or a closed pipe
  // behind standard output is an I/O error, not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "blockwire: writing the output: %s\n", std::strerror(errno));
    status = cli::usage_or_io;
  }
  return status;
}
