// The configuration file of rest, serve, fetch and electrum: every option
// each command takes, set from the file, gives the options a flag gives
// (the list comes from the commands' own parsers, so a new option is
// tested the day it is added); flags win; a bad file's errors name the
// file and line; `config --show` says where each setting came from.
#include "command_line.hpp"

#include <doctest/doctest.h>

#include "../support/temp_dir.hpp"

#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace blockwire;

namespace {

// The default settings file the tests' command lines read: never there
// (the machine's /etc/blockwire/blockwire.conf is not the test's).
const char* const no_default = "/nonexistent/blockwire.conf";

const std::vector<std::string> configurable = {"fetch", "serve", "rest", "electrum"};

// A value for each kind of option (its type name in --help), unlike the
// option's default. A kind with no sample here fails the test below.
std::map<std::string, std::string> samples(const test::TempDir& dir) {
  return {
      {"DIR", "/srv/blocks"},
      {"N", "7"},
      {"SECONDS", "9"},
      {"ADDR:PORT", "127.0.0.1:42"},
      {"HOST[:PORT]", "127.0.0.1:18444"},
      {"HEX", "0011223344556677"},
      {"NAME", "regtest"},
      {"TEXT", "a banner's words"},
      {"FILE", dir.file("pem")},
      {"CHAINSTATE", "/srv/chainstate"},
      {"MIB", "64"},
  };
}

// What a command needs on every run: its required arguments.
std::vector<std::string> required_args(const std::string& command) {
  if (command == "fetch") return {"127.0.0.1:1", "-o", "/srv/out"};
  return {"/srv/base"};
}

// The sample for an option's kind: its type name, less what its checks
// append (":N>=1").
std::string sample_for(const std::map<std::string, std::string>& samples, const CLI::Option& op) {
  const std::string type = op.get_type_name();
  std::string best;
  for (const auto& [kind, value] : samples) {
    if (type.starts_with(kind) && (type.size() == kind.size() || type[kind.size()] == ':') && kind.size() > best.size()) best = kind;
  }
  return best.empty() ? std::string() : samples.at(best);
}

bool same_options(const cli::CommandLine& a, const cli::CommandLine& b, const std::string& command) {
  if (command == "fetch") return a.fetch == b.fetch;
  if (command == "serve") return a.serve == b.serve;
  if (command == "rest") return a.rest == b.rest;
  return a.electrum == b.electrum;
}

std::string write(const test::TempDir& dir, const std::string& text) {
  static int n = 0;
  const std::string path = dir.file("settings" + std::to_string(++n) + ".conf");
  std::ofstream(path) << text;
  return path;
}

// The command line given as one would, on the command's parser.
std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The option and every option it needs, and those they need.
std::vector<CLI::Option*> needed_by(CLI::Option* op) {
  std::vector<CLI::Option*> all{op};
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (CLI::Option* n : all[i]->get_needs()) {
      if (std::find(all.begin(), all.end(), n) == all.end()) all.push_back(n);
    }
  }
  return all;
}

// The error a file gives when `command` runs with it.
std::string error_of(const std::string& command, const std::string& file) {
  cli::CommandLine line(no_default);
  try {
    line.parse(with({command, "--conf", file}, required_args(command)));
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE(
    "settings: every option of rest, serve, fetch and electrum set from the file equals the same flag, and changes what the flag changes") {
  test::TempDir dir;
  std::ofstream(dir.file("pem")) << "-----BEGIN CERTIFICATE-----\n";
  const auto sample = samples(dir);
  std::size_t checked = 0;
  for (const std::string& command : configurable) {
    cli::CommandLine probe(no_default);
    for (CLI::Option* op : probe.app.get_subcommand(command)->get_options()) {
      const std::string key = cli::key_of(*op);
      if (key == "help") continue;
      CAPTURE(command);
      CAPTURE(key);
      const bool flag = op->get_expected_min() == 0;
      if (!flag) REQUIRE_MESSAGE(!sample_for(sample, *op).empty(), "no sample value for the kind " << op->get_type_name());
      const std::string value = flag ? "1" : sample_for(sample, *op);
      // What the option needs is given on the command line, each side.
      std::vector<std::string> others;
      for (CLI::Option* n : needed_by(op)) {
        if (n != op) others = with(others, {"--" + cli::key_of(*n), sample_for(sample, *n)});
      }
      std::vector<std::string> base{command};
      std::vector<std::string> as_flag{command};
      if (op->get_positional()) {
        // The required arguments, this one as the file's or the flag's.
        if (command == "fetch") {
          base = with(base, {"-o", "/srv/out"});
          as_flag = with(as_flag, {key == "peer" ? value : "127.0.0.1:1", "-o", "/srv/out"});
        } else {
          as_flag.push_back(value);
        }
      } else {
        base = with(base, required_args(command));
        as_flag = with(as_flag, required_args(command));
        as_flag = with(as_flag, flag ? std::vector<std::string>{"--" + key} : std::vector<std::string>{"--" + key, value});
      }
      if (command == "fetch" && key == "output") {
        base = {command, "127.0.0.1:1"};
        as_flag = {command, "127.0.0.1:1", "--output", value};
      }
      cli::CommandLine from_flag(no_default);
      from_flag.parse(with(as_flag, others));
      cli::CommandLine from_file(no_default);
      from_file.parse(with(base, with(others, {"--conf", write(dir, "[" + command + "]\n" + key + " = " + value + "\n")})));
      CHECK(same_options(from_flag, from_file, command));
      CHECK(
          from_file.settings->source_of(*from_file.app.get_subcommand(command)->get_option(op->get_name())).starts_with(dir.path.string()));
      if (!op->get_required() && others.empty()) {  // (what needs it cannot go without it)
        cli::CommandLine without(no_default);
        without.parse(with(base, others));
        CHECK_MESSAGE(!same_options(without, from_file, command), "the setting changed nothing");
      }
      ++checked;
    }
  }
  CHECK(checked >= 40);  // fetch 12, serve 11, rest 13, electrum 17, with the arguments
}

TEST_CASE("settings: a flag on the command line wins over the file's line, and the file's other lines still apply") {
  test::TempDir dir;
  const std::string file = write(dir, "# the rest server\n[rest]\nthreads = 2   # two\nlisten = 127.0.0.1:9\n\n[serve]\nmax-peers = 9\n");
  cli::CommandLine line(no_default);
  line.parse({"rest", "--threads", "3", "--conf", file, "/srv/blocks"});
  CHECK(line.rest.threads == 3);
  CHECK(line.rest.listen == "127.0.0.1:9");
  CHECK(line.serve.max_peers == 125);  // another command's section is not applied
  CLI::App* rest = line.app.get_subcommand("rest");
  CHECK(line.settings->source_of(*rest->get_option("--threads")) == "the command line");
  CHECK(line.settings->source_of(*rest->get_option("--listen")) == file + ":4");
  CHECK(line.settings->source_of(*rest->get_option("--timeout")).empty());
  // --network in the file counts as given: the records do not decide.
  cli::CommandLine net(no_default);
  net.parse({"rest", "--conf", write(dir, "[rest]\nnetwork = regtest\n"), "/srv/blocks"});
  CHECK(net.rest.net == network::regtest);
  CHECK_FALSE(net.rest.net_from_records);
  // Flags set to 0, a negated one (no-progress) both ways, and a flag on
  // the command line over the file's 0.
  cli::CommandLine flags(no_default);
  flags.parse(
      {"fetch", "--conf", write(dir, "[fetch]\nv1 = 0\njson = 1\nno-progress = 0\nno-undo = 1\n"), "127.0.0.1:1", "-o", "/srv/out"});
  CHECK_FALSE(flags.fetch.v1);
  CHECK(flags.fetch.json);
  CHECK(flags.fetch.progress);
  CHECK_FALSE(flags.fetch.undo);
  cli::CommandLine over(no_default);
  over.parse({"fetch", "--v1", "--conf", write(dir, "[fetch]\nv1 = 0\n"), "127.0.0.1:1", "-o", "/srv/out"});
  CHECK(over.fetch.v1);
  // A positional argument from the file, and --tls-listen's pairs met
  // across the file and the command line.
  std::ofstream(dir.file("pem")) << "pem\n";
  cli::CommandLine tls(no_default);
  tls.parse({"electrum", "--conf",
             write(dir, "[electrum]\ndir = /srv/blocks\ntls-listen = 127.0.0.1:50002\ntls-cert = " + dir.file("pem") + "\n"), "--tls-key",
             dir.file("pem")});
  CHECK(tls.electrum.dir == "/srv/blocks");
  CHECK(tls.electrum.tls_cert == dir.file("pem"));
}

TEST_CASE("settings: a bad file is an error naming the file and the line, never ignored") {
  test::TempDir dir;
  struct Case {
    std::string text;
    int line;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"[rest]\nthreads = 0\n", 2, "threads = 0: --threads: Value 0 not in range 1 to 256"},
      {"[rest]\nbogus = 1\n", 2, "[rest] has no setting 'bogus'"},
      {"[serve]\nthreads = 2\n", 2, "[serve] has no setting 'threads'"},  // another command's section: checked by name
      {"listen = 127.0.0.1:1\n", 1, "listen is outside a section"},
      {"[rest]\n[inspect]\n", 2, "[inspect] is not a command that reads this file"},
      {"[rest]\ntxindex = maybe\n", 2, "txindex = maybe: a flag is 1 or 0 (true or false)"},
      {"[rest]\n\nthreads = 2\nthreads = 3\n", 4, "threads is set again (first on line 3)"},
      {"[rest]\n--threads = 2\n", 2, "a key is the option's name without its dashes: threads, not --threads"},
      {"[rest]\nthreads\n", 2, "expected key = value, not threads"},
      {"[rest]\nlisten =\n", 2, "listen has no value"},
      {"[rest]\nnetwork = moon\n", 2, "network = moon: --network: unknown network 'moon'"},
      {"[rest]\nlisten = 127.0.0.1:99999\n", 2, "listen = 127.0.0.1:99999"},
      {"[rest\n", 1, "a section is a command's name in brackets"},
      {"[rest]\nconf = /etc/other.conf\n", 2, "[rest] has no setting 'conf'"},
      {"[rest]\nhelp = 1\n", 2, "[rest] has no setting 'help'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string file = write(dir, c.text);
    const std::string error = error_of("rest", file);
    CHECK(error.starts_with(file + ":" + std::to_string(c.line) + ": "));
    CHECK(error.find(c.says) != std::string::npos);
  }
  // A bad value is an error even where a flag overrides it.
  cli::CommandLine line(no_default);
  CHECK_THROWS_AS(line.parse({"rest", "--threads", "3", "--conf", write(dir, "[rest]\nthreads = many\n"), "/srv"}), CLI::ConfigError);
  // A default file that is there but cannot be read is said, not passed
  // over: a folder in its place, and (not as root, who reads every file)
  // a file without read permission.
  {
    const std::string folder = dir.file("a-folder.conf");
    std::filesystem::create_directory(folder);
    cli::CommandLine unreadable(folder);
    try {
      unreadable.parse({"rest", "/srv"});
      FAIL("a folder in the default file's place was passed over");
    } catch (const CLI::ConfigError& e) {
      CHECK(std::string(e.what()) == folder + ": cannot be read: not a file");
    }
  }
  if (::geteuid() != 0) {
    const std::string locked = write(dir, "[rest]\nthreads = 2\n");
    ::chmod(locked.c_str(), 0);
    cli::CommandLine unreadable(locked);
    try {
      unreadable.parse({"rest", "/srv"});
      FAIL("an unreadable default file was passed over");
    } catch (const CLI::ConfigError& e) {
      CHECK(std::string(e.what()).starts_with(locked + ": cannot be read"));
    }
  }
  // --help answers whatever the file holds.
  cli::CommandLine help(write(dir, "[rest]\nthreads = many\n"));
  CHECK_THROWS_AS(help.parse({"rest", "--help"}), CLI::CallForHelp);
  cli::CommandLine bad_default(write(dir, "[rest]\nthreads = many\n"));
  CHECK_THROWS_AS(bad_default.parse({"rest", "/srv"}), CLI::ConfigError);
  // A named file that is missing, and --conf given to a command that reads none.
  CHECK(error_of("rest", dir.file("missing.conf")).find("missing.conf") != std::string::npos);
  cli::CommandLine inspect(no_default);
  CHECK_THROWS_AS(inspect.parse({"--conf", write(dir, "[rest]\n"), "inspect", "x"}), CLI::ConfigError);
}

TEST_CASE("settings: config --show prints each setting with where it came from, as a file the command reads back") {
  test::TempDir dir;
  const std::string file = write(dir, "[serve]\nmax-peers = 9\nlisten = 127.0.0.1:7\nv1 = 1\n");
  const std::string out = dir.file("shown");
  const std::string cmd =
      std::string(BLOCKWIRE_EXE) + " config --show serve --conf " + file + " -- --max-peers 12 --v1=false /srv/blocks > " + out;
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(out);
  const std::string shown((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(shown.find("dir = /srv/blocks  # the command line\n") != std::string::npos);
  CHECK(shown.find("max-peers = 12  # the command line\n") != std::string::npos);
  CHECK(shown.find("listen = 127.0.0.1:7  # " + file + ":3\n") != std::string::npos);
  CHECK(shown.find("v1 = 0  # the command line\n") != std::string::npos);
  CHECK(shown.find("# timeout: not set") != std::string::npos);
  // Read back, the shown file gives the same options.
  cli::CommandLine original(no_default);
  original.parse({"serve", "--max-peers", "12", "--v1=false", "--conf", file, "/srv/blocks"});
  cli::CommandLine again(no_default);
  again.parse({"serve", "--conf", out});
  CHECK(again.serve == original.serve);
  // A bad file: said, exit status 2.
  const std::string bad =
      std::string(BLOCKWIRE_EXE) + " config --show serve --conf " + write(dir, "[serve]\nmax-peers = x\n") + " 2>/dev/null";
  const int status = std::system(bad.c_str());
  CHECK(WEXITSTATUS(status) == 2);
}
