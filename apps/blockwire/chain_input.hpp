// What the commands that read a blocks directory's best chain (blocks,
// filters) share: their options, and opening the directory (its key, its
// index, its rev files' index), each problem said on standard error.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/undo.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>

namespace blockwire::cli {

struct ChainOptions {
  std::string dir;
  std::string xor_key;
  network net = network::mainnet;
  bool net_from_records = false;
  std::uint64_t from = 0;
  std::uint64_t count = 0;  // 0: to the tip
  bool json = false;
};

struct OpenChain {
  XorKey key;
  network net;
  BlockIndex index;
  bool damaged = false;           // the index left blocks out (said)
  std::optional<UndoIndex> undo;  // when asked for and the directory has rev files
  std::span<const std::size_t> chain() const noexcept { return index.best_chain(); }
  // One past the last height to show: --from and --count against the tip.
  std::uint64_t end(const ChainOptions& o) const noexcept;
};

// DIR's best chain for `command` ("blocks"), with the rev files' index when
// `with_undo`; on failure (said on standard error) the exit status.
std::variant<OpenChain, int> open_chain(const char* command, const ChainOptions& o, bool with_undo);

}  // namespace blockwire::cli
