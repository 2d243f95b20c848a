// Blocks into a blocks directory as Core frames them, all or nothing: every
// block read (and with undo data, connected) before anything is written; a
// new directory written under a staged name and published whole
// (StagedDirectory); blocks appended to one as a BlockFileWriter batch,
// undone when a write fails and, after a crash, by the next writer. The
// directory is locked while it is written. With undo data, rev files too,
// made from the blocks themselves as a node connecting them makes it.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/xor.hpp>

#include <boost/outcome/std_result.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire {

struct PackBlocks {
  std::string dir;
  XorKey key{};
  // The records' magic: that of the directory's records when it has some
  // (pack_network says which).
  network net = network::mainnet;
  bool undo = false;      // a new directory, the blocks one chain from its genesis block, in order
  std::size_t count = 0;  // blocks
  // Block i's name, for what is said of it (a path, "-").
  std::function<std::string(std::size_t i)> name;
  // Block i's bytes into `out`, checked (a block that decodes, no longer
  // than a record holds); `first`: the reading before anything is written.
  // False when it cannot (the reader says why).
  std::function<bool(std::size_t i, bool first, std::vector<std::byte>& out)> read;
  // Whether block i's bytes must be kept from the first reading (standard
  // input, a pipe) rather than read again when written.
  std::function<bool(std::size_t i)> keep;
  // What a user should hear of on the way (a writer's repair, blocks the
  // directory already holds).
  std::function<void(std::string_view)> note;
};

struct Packed {
  std::size_t blocks = 0;         // written
  std::size_t already_there = 0;  // given, and in the directory already (or given twice)
  std::uint64_t bytes = 0;
  unsigned last_file = 0;  // N of the last blkNNNNN.dat written
};

// The network whose magic frames the records of blocks packed into `dir`
// (read with `key`): the one its records' magic says when it has some
// (network_of), else `given`, else mainnet. A `given` that is not its
// records' is directory::errc::other_network, the error's context naming
// both ("DIR: its records are regtest's (their magic), not mainnet's").
result<network> pack_network(const std::string& dir, const XorKey& key, const std::optional<network>& given);

// Errors besides the system's and the writer's (BlockFileWriter::open's):
// directory::errc::not_one_chain, undo::errc::missing_coin (undo data
// asked for, and the blocks are not one chain from genesis that spends
// only what it holds), directory::errc::input_changed (a block read again
// is not the one connected), directory::errc::other_network (a directory
// whose records are not spec.net's, or a block added to its records that
// shows it is another network's: another's genesis block, or proof of
// work that meets bits spec.net never has).
result<Packed> pack_blocks(const PackBlocks& spec);

}  // namespace blockwire
