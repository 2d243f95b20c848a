// The configuration file of the long-running commands (rest, serve, fetch,
// electrum): `key = value` lines under a `[command]` section, each key an
// option's long name (or its argument's name: `dir`, `peer`), as Core's
// bitcoin.conf mirrors its flags. It is read as part of CLI11's parse,
// after the command line and before the checks of required and paired
// options, so a setting counts as given wherever it came from; a flag on
// the command line wins over the file's line.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire::cli {

// The file read when --conf is not given and it exists.
inline constexpr const char* default_settings_file = "/etc/blockwire/blockwire.conf";

// One `key = value` line of the file.
struct Setting {
  std::string section;  // empty: before the first [section]
  std::string key;
  std::string value;
  int line = 0;
};

// The file's lines, or (in `problem`) "FILE:LINE: what is wrong" for the
// first line that is not a setting, a [section], a comment or blank.
// '#' starts a comment anywhere on a line, as in bitcoin.conf.
std::vector<Setting> read_settings(std::istream& in, const std::string& file, std::string& problem);

// CLI11's configuration reader for `app`: checks every section's keys
// against its command's options and applies the invoked command's
// section, every value checked by the option's own conversion and
// checks; an error is a CLI::ConfigError that names the file and line.
class SettingsFile : public CLI::Config {
 public:
  // `default_file`: read when --conf is not given and it exists.
  SettingsFile(CLI::App& app, std::vector<std::string> commands, std::string default_file)
      : app_(app), commands_(std::move(commands)), default_file_(std::move(default_file)) {}

  std::string to_config(const CLI::App*, bool, bool, std::string) const override { return {}; }
  std::vector<CLI::ConfigItem> from_config(std::istream& in) const override;

  // The commands that read the file.
  const std::vector<std::string>& commands() const { return commands_; }
  // Where an option of the invoked command got its value: "FILE:LINE",
  // "the command line", or "" (not given: its default).
  std::string source_of(const CLI::Option& option) const;
  // Its value as written there (a flag given on the command line: "1").
  std::vector<std::string> values_of(const CLI::Option& option) const;
  // The file read, or "" when none was.
  const std::string& file() const { return file_; }
  const std::string& default_file() const { return default_file_; }

 private:
  CLI::App& app_;
  std::vector<std::string> commands_;
  std::string default_file_;
  mutable std::string file_;
  struct FromFile {
    int line = 0;
    std::vector<std::string> values;
  };
  mutable std::map<const CLI::Option*, FromFile> from_file_;
};

// The option a key names in `command`, or nullptr: `--key` (an option's
// long name), or a positional argument named `key`. The file cannot set
// --help or --conf.
CLI::Option* option_for_key(CLI::App& command, const std::string& key);
// The key that names `option` in the file.
std::string key_of(const CLI::Option& option);

}  // namespace blockwire::cli
