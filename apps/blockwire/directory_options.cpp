#include "directory_options.hpp"

#include "commands.hpp"
#include "damage_report.hpp"
#include "text.hpp"

#include <algorithm>
#include <cstdio>

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
    std::fprintf(stderr, "blockwire %s: %s\n", command, dir.error().message(o.dir).c_str());
    // A key or blk files that cannot be read are the system's (or the
    // user's: a bad xor.dat); rev files, by what they hold.
    return dir.error().at != BlocksDirectory::Failure::part::undo ? usage_or_io : exit_status_of(dir.error().cause);
  }
  for (const std::string& note : dir.value().notes()) std::fprintf(stderr, "blockwire %s: %s\n", command, note.c_str());
  return std::move(dir).value();
}

std::variant<BlocksDirectory, int> open_chain(const char* command, ChainOptions& o, bool with_undo, std::uint64_t align) {
  auto opened = open_directory(command, o, with_undo);
  if (std::holds_alternative<int>(opened)) return opened;
  const BlocksDirectory& dir = std::get<BlocksDirectory>(opened);
  report_index_problems(command, o.dir, dir.index());
  const std::size_t chain = dir.chain_size();
  if (chain == 0 && dir.index().size() == 0 && !dir.damaged()) {
    // A directory just made (or a fetch that has not had a block yet): a
    // chain of length zero, not damage.
    std::fprintf(stderr, "blockwire %s: %s: no blocks yet\n", command, o.dir.c_str());
    return ok;
  }
  if (chain == 0) {
    std::fprintf(stderr, "blockwire %s: %s: no chain (no block whose parent is all zeros among %s)\n", command, o.dir.c_str(),
                 count_of(dir.index().size(), "block").c_str());
    return bad_data;
  }
  if (o.from >= chain) {
    std::fprintf(stderr, "blockwire %s: --from %llu: the best chain ends at height %zu\n", command, static_cast<unsigned long long>(o.from),
                 chain - 1);
    return usage_or_io;
  }
  // A pruned node's directory: what is below its prune height is gone,
  // which is how the node keeps it, not damage. Said once; the walk
  // starts where the data does (at a multiple of `align`).
  if (const std::uint64_t pruned = dir.prune_height(); o.from < pruned) {
    const std::uint64_t start = (pruned + align - 1) / align * align;
    const std::uint64_t end = o.count == 0 ? chain : std::min<std::uint64_t>(chain, o.from + o.count);
    std::fprintf(stderr,
                 "blockwire %s: %s: a pruned directory: the blocks below height %llu were pruned (their headers alone are kept); %s\n",
                 command, o.dir.c_str(), static_cast<unsigned long long>(pruned),
                 start >= end ? "nothing left to read in the range asked for"
                              : ("from height " + std::to_string(start) +
                                 (start != pruned ? " (a multiple of " + std::to_string(align) + ")" : std::string()))
                                    .c_str());
    if (start >= end) return ok;
    if (o.count != 0) o.count = end - start;
    o.from = start;
  }
  return opened;
}

std::uint64_t chain_end(const BlocksDirectory& dir, const ChainOptions& o) noexcept {
  const std::uint64_t tip = dir.chain_size();
  return o.count == 0 ? tip : std::min<std::uint64_t>(tip, o.from + o.count);
}

}  // namespace blockwire::cli
