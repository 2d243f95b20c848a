// A Bitcoin Core blocks directory: blk00000.dat, blk00001.dat, ... and the
// obfuscation key in xor.dat.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/xor.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace blockwire {

// The key in DIR/xor.dat: exactly 8 bytes. No file means no obfuscation (a
// zero key, as for nodes older than Core 28); a file of another size is an
// error (errc::bad_argument).
result<XorKey> read_xor_key(const std::string& blocks_dir);
result<void> write_xor_key(const std::string& blocks_dir, const XorKey& key);

// 16 hex digits, as Core prints it (the bytes in file order).
result<XorKey> xor_key_from_hex(std::string_view hex);
std::string to_hex(const XorKey& key);
XorKey random_xor_key();

// The blk*.dat files of a directory, in number order.
result<std::vector<std::string>> block_files(const std::string& blocks_dir);

// blkNNNNN.dat
std::string block_file_name(unsigned number);

}  // namespace blockwire
