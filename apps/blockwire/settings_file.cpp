#include "settings_file.hpp"

#include <algorithm>
#include <istream>
#include <optional>

namespace blockwire::cli {

namespace {

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

bool is_key_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'; }

std::string at(const std::string& file, int line) { return file + ":" + std::to_string(line); }

std::string list_of(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("[" + names[i] + "]");
  return out;
}

// A flag's value, as bitcoin.conf writes them (1, 0) or as words.
std::optional<bool> flag_value(const std::string& v) {
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  return std::nullopt;
}

bool is_flag(const CLI::Option& op) { return op.get_expected_min() == 0; }

}  // namespace

std::vector<Setting> read_settings(std::istream& in, const std::string& file, std::string& problem) {
  std::vector<Setting> settings;
  std::string section;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    std::string_view line = text;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trimmed(line);
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3 || !std::all_of(line.begin() + 1, line.end() - 1, is_key_char)) {
        problem = at(file, number) + ": a section is a command's name in brackets, such as [rest], not " + std::string(line);
        return {};
      }
      section = line.substr(1, line.size() - 2);
      settings.push_back({section, "", "", number});  // the section's own line
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string_view::npos) {
      problem = at(file, number) + ": expected key = value, not " + std::string(line);
      return {};
    }
    const std::string_view key = trimmed(line.substr(0, equals));
    const std::string_view value = trimmed(line.substr(equals + 1));
    if (key.starts_with('-')) {
      problem = at(file, number) +
                ": a key is the option's name without its dashes: " + std::string(key.substr(key.find_first_not_of('-'))) + ", not " +
                std::string(key);
      return {};
    }
    if (key.empty() || !std::all_of(key.begin(), key.end(), is_key_char)) {
      problem = at(file, number) + ": '" + std::string(key) + "' is not an option's name";
      return {};
    }
    if (value.empty()) {
      problem = at(file, number) + ": " + std::string(key) + " has no value";
      return {};
    }
    settings.push_back({section, std::string(key), std::string(value), number});
  }
  if (in.bad()) problem = file + ": could not be read";
  return settings;
}

CLI::Option* option_for_key(CLI::App& command, const std::string& key) {
  if (key.empty() || key == "help" || key == "help-all" || key == "conf") return nullptr;
  if (CLI::Option* op = command.get_option_no_throw("--" + key)) return op;
  CLI::Option* positional = command.get_option_no_throw(key);
  return positional != nullptr && positional->get_positional() ? positional : nullptr;
}

std::string key_of(const CLI::Option& option) {
  if (!option.get_lnames().empty()) return option.get_lnames().front();
  return option.get_name(true, false);
}

std::vector<CLI::ConfigItem> SettingsFile::from_config(std::istream& in) const {
  const CLI::Option* conf = app_.get_config_ptr();
  const bool named = conf != nullptr && !conf->empty();
  const std::vector<CLI::App*> invoked = app_.get_subcommands();
  CLI::App* command = invoked.empty() ? nullptr : invoked.front();
  const bool reads_file = command != nullptr && std::find(commands_.begin(), commands_.end(), command->get_name()) != commands_.end();
  // --help and --version answer whatever the file holds.
  const CLI::Option* help = command != nullptr ? command->get_help_ptr() : nullptr;
  const CLI::Option* version = app_.get_option_no_throw("--version");
  if ((help != nullptr && help->count() > 0) || (version != nullptr && version->count() > 0)) return {};
  if (!reads_file) {
    // The default file is for the commands that read one; naming a file
    // for another command is a mistake to say.
    if (named && command != nullptr && command->get_name() != "config") {
      throw CLI::ConfigError("--conf: " + command->get_name() + " reads no configuration file (only " + list_of(commands_) +
                             " have a section)");
    }
    return {};
  }
  file_ = named ? conf->results().front() : default_file_;

  std::string problem;
  const std::vector<Setting> settings = read_settings(in, file_, problem);
  if (!problem.empty()) throw CLI::ConfigError(problem);

  // Every line checked by name, whichever command it is for; the
  // invoked command's gathered by option, in the file's order.
  struct Given {
    CLI::Option* option;
    std::vector<const Setting*> lines;
  };
  std::vector<Given> given;
  for (const Setting& s : settings) {
    if (s.section.empty()) {
      throw CLI::ConfigError(at(file_, s.line) + ": " + s.key + " is outside a section: settings go under " + list_of(commands_));
    }
    if (std::find(commands_.begin(), commands_.end(), s.section) == commands_.end()) {
      throw CLI::ConfigError(at(file_, s.line) + ": [" + s.section + "] is not a command that reads this file: " + list_of(commands_));
    }
    if (s.key.empty()) continue;  // a section's line
    CLI::App* section_command = app_.get_subcommand(s.section);
    CLI::Option* op = option_for_key(*section_command, s.key);
    if (op == nullptr) {
      throw CLI::ConfigError(at(file_, s.line) + ": [" + s.section + "] has no setting '" + s.key + "' (blockwire " + s.section +
                             " --help lists its options)");
    }
    if (section_command != command) continue;
    auto same = std::find_if(given.begin(), given.end(), [op](const Given& g) { return g.option == op; });
    if (same == given.end()) {
      given.push_back({op, {&s}});
    } else if (op->get_expected_max() > 1) {
      same->lines.push_back(&s);
    } else {
      throw CLI::ConfigError(at(file_, s.line) + ": " + s.key + " is set again (first on line " +
                             std::to_string(same->lines.front()->line) + ")");
    }
  }

  // Each value through the option's own conversion and checks, as on the
  // command line. An option the command line gave keeps its value (flags
  // win) but the file's is still checked: a bad line is never ignored.
  for (const Given& g : given) {
    CLI::Option& op = *g.option;
    const bool on_command_line = !op.empty();
    const std::vector<std::string> from_command_line = op.results();
    op.clear();
    for (const Setting* s : g.lines) {
      if (is_flag(op)) {
        const std::optional<bool> on = flag_value(s->value);
        if (!on) throw CLI::ConfigError(at(file_, s->line) + ": " + s->key + " = " + s->value + ": a flag is 1 or 0 (true or false)");
        op.add_result(op.get_flag_value(s->key, *on ? "true" : "false"));
      } else {
        op.add_result(s->value);
      }
    }
    try {
      op.run_callback();
    } catch (const CLI::Error& e) {
      const Setting& s = *g.lines.back();
      throw CLI::ConfigError(at(file_, s.line) + ": " + s.key + " = " + s.value + ": " + e.what());
    }
    if (on_command_line) {
      op.clear();
      for (const std::string& r : from_command_line) op.add_result(r);
    } else {
      FromFile& f = from_file_[&op];
      f.line = g.lines.front()->line;
      for (const Setting* s : g.lines) f.values.push_back(s->value);
    }
  }
  return {};
}

std::string SettingsFile::source_of(const CLI::Option& option) const {
  if (const auto it = from_file_.find(&option); it != from_file_.end()) return at(file_, it->second.line);
  return option.empty() ? std::string() : "the command line";
}

std::vector<std::string> SettingsFile::values_of(const CLI::Option& option) const {
  if (const auto it = from_file_.find(&option); it != from_file_.end()) return it->second.values;
  if (option.empty() || !is_flag(option)) return option.results();
  // A flag's result is its variable's value: "--txindex=false" gives
  // false, "--no-progress" gives false too (the flag negates). Written
  // as its key says it: txindex = 0, no-progress = 1.
  const std::string key = key_of(option);
  const bool negated = option.get_flag_value(key, "true") == "false";
  bool value = true;
  try {
    value = CLI::detail::to_flag_value(option.results().back()) > 0;
  } catch (const std::exception&) {
  }
  return {value != negated ? "1" : "0"};
}

}  // namespace blockwire::cli
