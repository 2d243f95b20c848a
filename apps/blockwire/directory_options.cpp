#include "directory_options.hpp"

#include "commands.hpp"
#include "text.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace blockwire::cli {

std::variant<std::optional<XorKey>, int> key_option(const char* command, const std::string& hex) {
  if (hex.empty()) return std::optional<XorKey>{};
  auto key = xor_key_from_hex(hex);
  if (!key) {
    std::fprintf(stderr, "blockwire %s: --xor-key takes 16 hex digits, not '%s' (%s)\n", command, hex.c_str(),
                 key.error().message().c_str());
    return usage_or_io;
  }
  return std::optional<XorKey>(key.value());
}

std::variant<RecordFormat, int> record_format_of(const char* command, const std::string& path, const std::string& hex, network net,
                                                 bool net_from_records) {
  auto key = key_option(command, hex);
  if (const int* status = std::get_if<int>(&key)) return *status;
  auto format = record_format(path, std::get<0>(key), net_from_records ? std::nullopt : std::optional<network>(net));
  if (!format) {
    std::fprintf(stderr, "blockwire %s: %s\n", command, xor_key_error_message(path, format.error()).c_str());
    return usage_or_io;
  }
  return format.value();
}

std::variant<XorKey, int> key_for_output(const char* command, const std::string& dir, const std::string& hex) {
  if (std::error_code ec; std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    std::fprintf(stderr, "blockwire %s: -o %s: not a directory (a blocks directory is written there, or made)\n", command, dir.c_str());
    return usage_or_io;
  }
  auto key = key_option(command, hex);
  if (const int* status = std::get_if<int>(&key)) return *status;
  if (std::get<0>(key)) return *std::get<0>(key);
  auto chosen = key_for_writing(dir);
  if (!chosen) {
    std::fprintf(stderr, "blockwire %s: %s\n", command, xor_key_error_message(dir, chosen.error()).c_str());
    return usage_or_io;
  }
  return chosen.value();
}

std::variant<BlocksDirectory, int> open_directory(const char* command, const DirectoryOptions& o, bool with_undo, bool undo_optional) {
  auto key = key_option(command, o.xor_key);
  if (const int* status = std::get_if<int>(&key)) return *status;
  BlocksDirectory::Options options;
  options.key = std::get<0>(key);
  if (!o.net_from_records) options.net = o.net;
  options.undo = with_undo;
  options.undo_required = !undo_optional;
  auto dir = BlocksDirectory::open(o.dir, options);
  if (!dir) {
    std::fprintf(stderr, "blockwire %s: %s\n", command, dir.error().message().c_str());
    return exit_status_of(dir.error());
  }
  for (const std::string& note : dir.value().notes()) std::fprintf(stderr, "blockwire %s: %s\n", command, note.c_str());
  return std::move(dir).value();
}

std::variant<BlocksDirectory, int> open_chain(const char* command, ChainOptions& o, bool with_undo, std::uint64_t align) {
  auto opened = open_directory(command, o, with_undo);
  if (std::holds_alternative<int>(opened)) return opened;
  const ChainWalk walk = plan_chain_walk(std::get<BlocksDirectory>(opened), o.dir, o.from, BlockCount(o.count), align);
  for (const std::string& note : walk.notes) std::fprintf(stderr, "blockwire %s: %s\n", command, note.c_str());
  if (walk.failure) {
    std::fprintf(stderr, "blockwire %s: %s\n", command, walk.failure->message().c_str());
    return exit_status_of(*walk.failure);
  }
  if (!walk.end.contains(walk.from)) return ok;
  o.first = walk.from;
  o.end = walk.end;
  return opened;
}

}  // namespace blockwire::cli
