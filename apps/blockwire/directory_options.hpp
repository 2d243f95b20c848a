// The options of the commands that read a blocks directory, and opening it
// (BlocksDirectory::open) with every problem said on standard error.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/directory.hpp>
#include <blockwire/io/xor.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace blockwire::cli {

struct DirectoryOptions {
  std::string dir;
  std::string xor_key;  // hex; empty: the directory's xor.dat
  network net = network::mainnet;
  bool net_from_records = false;  // no --network: the records' magic says it
  bool operator==(const DirectoryOptions&) const = default;
};

struct ChainOptions : DirectoryOptions {
  std::uint64_t from = 0;
  std::uint64_t count = 0;  // 0: to the tip
  bool json = false;
  // What open_chain planned: the heights [first, end) to read.
  Height first = Height::genesis();
  BlockCount end;
};

// --xor-key parsed (nothing when not given), or the exit status with the
// problem said.
std::variant<std::optional<XorKey>, int> key_option(const char* command, const std::string& hex);
// The key for `path` as given: --xor-key, else xor.dat's; the network as
// given, else the records' magic. The exit status when the key is wrong.
std::variant<RecordFormat, int> record_format_of(const char* command, const std::string& path, const std::string& hex, network net,
                                                 bool net_from_records);
// The key for a directory to write: --xor-key, else key_for_writing.
std::variant<XorKey, int> key_for_output(const char* command, const std::string& dir, const std::string& hex);

// DIR opened (its undo data too, with `with_undo`; rev files that cannot be
// read fail it unless `undo_optional`: then BlocksDirectory::undo_error()
// says why).
std::variant<BlocksDirectory, int> open_directory(const char* command, const DirectoryOptions& o, bool with_undo = true,
                                                  bool undo_optional = false);
// The same, for the commands that walk the best chain from --from: the
// exit status too when there is no chain or --from is past its tip (0
// with "no blocks yet" for a directory with no block at all). In a pruned
// node's directory, --from (and --count) are moved up to its prune height,
// rounded up to a multiple of `align`, and that is said. The heights to
// read are o.first and o.end then.
std::variant<BlocksDirectory, int> open_chain(const char* command, ChainOptions& o, bool with_undo, std::uint64_t align = 1);

}  // namespace blockwire::cli
