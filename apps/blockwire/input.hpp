// Reading what the user points at: a file or standard input, raw bytes or
// hex (detected), or one record of a blk file.
#pragma once

#include <blockwire/blockfiles/network.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/xor.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace blockwire::cli {

// All bytes of a file, or of standard input for "-".
result<std::vector<std::byte>> read_input(const std::string& path);

// If `bytes` are hex digits (white space around them allowed), their value;
// otherwise the bytes unchanged.
std::vector<std::byte> decode_if_hex(std::vector<std::byte> bytes);

// The key for a blk file: `hex` if given, else the xor.dat beside the file.
result<XorKey> key_for(const std::string& blk_path, const std::string& hex);

// The block bytes of the record at `offset` of a blk file; `what` says
// what went wrong when there is no record there.
result<std::vector<std::byte>> read_record(const std::string& path, std::uint64_t offset, const XorKey& key,
                                           network net, std::string& what);

std::string with_commas(std::uint64_t n);

}  // namespace blockwire::cli
