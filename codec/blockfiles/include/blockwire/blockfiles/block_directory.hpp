// A Bitcoin Core blocks directory: blk00000.dat, blk00001.dat, ... and the
// obfuscation key in xor.dat.
#pragma once

#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/xor.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire {

// The key in DIR/xor.dat: exactly 8 bytes. No file means no obfuscation (a
// zero key, as for nodes older than Core 28); a file of another size is
// blockfiles::errc::bad_key_file.
result<XorKey> read_xor_key(const std::string& blocks_dir);
result<void> write_xor_key(const std::string& blocks_dir, const XorKey& key);
// The key that applies to `path`: a directory's own xor.dat, or for a file
// the xor.dat beside it.
result<XorKey> xor_key_for(const std::string& path);

// The network whose magic begins the first record of the blk file at
// `path` (or of a directory's first blk file that is not empty), un-XORed
// with `key`; nothing when there is no such file or it starts with no
// known magic.
std::optional<network> network_of(const std::string& path, const XorKey& key);

// How the records of a blk file or a blocks directory are read: the key
// and the network whose magic frames them.
struct RecordFormat {
  XorKey key{};
  network net = network::mainnet;
};
// The given key, else the one that applies to `path` (xor_key_for); the
// given network, else the magic of its first record (network_of), else
// mainnet. Errors: reading xor.dat.
result<RecordFormat> record_format(const std::string& path, const std::optional<XorKey>& key = std::nullopt,
                                   const std::optional<network>& net = std::nullopt);
// What reading the key for `path` failed with, for a person, naming the
// xor.dat read: "DIR/xor.dat: its size is not 8 bytes".
std::string xor_key_error_message(const std::string& path, const error& e);
// The key for a directory about to be written: its xor.dat when it has
// one; none for a directory of plain blk files (a node older than Core
// 28); else (a new directory) a random one, as Core 28 and later choose.
result<XorKey> key_for_writing(const std::string& blocks_dir);

// Whether a writer is appending to the directory now: a BlockFileWriter
// (DIR/.lock) or a running node (the data directory's .lock, the
// parent's) holds its lock. A reader then stops at the last whole record
// of the last file: what follows is being written, not damage.
bool being_written(const std::string& blocks_dir);

// 16 hex digits, as Core prints it (the bytes in file order); print one with
// to_hex (<blockwire/io/hex.hpp>).
result<XorKey> xor_key_from_hex(std::string_view hex);
XorKey random_xor_key();

// The blk*.dat files of a directory, in number order.
result<std::vector<std::string>> block_files(const std::string& blocks_dir);

// Whether a directory's blk files hold a record's frame (8 bytes) yet: false
// for one just made, or missing; true where they cannot be listed or
// measured (the reader that opens them says why).
bool holds_records(const std::string& blocks_dir);

// blkNNNNN.dat, and back: N of a file name (not a path) that Bitcoin Core
// would have written (at least five digits), or nothing.
std::string block_file_name(unsigned number);
std::optional<unsigned> block_file_number(std::string_view file_name);

// The same for the undo data beside them (revNNNNN.dat, read and written by
// blockwire::undo): the rev*.dat files of a directory in number order, and
// the names both ways.
result<std::vector<std::string>> undo_files(const std::string& blocks_dir);
std::string undo_file_name(unsigned number);
std::optional<unsigned> undo_file_number(std::string_view file_name);

}  // namespace blockwire
