// The XOR key a command uses for a blk file or a blocks directory: the
// --xor-key option when given, else the directory's xor.dat (for a file,
// the xor.dat beside it). One rule for every command.
#pragma once

#include <blockwire/io/error.hpp>
#include <blockwire/io/xor.hpp>

#include <string>

namespace blockwire::cli {

result<XorKey> resolve_xor_key(const std::string& path, const std::string& hex_option);
// The key for a directory about to be written: --xor-key or its xor.dat
// when there is one, none for a directory of plain blk files (a node older
// than Core 28), else (a new directory) random, as Core 28 and later choose.
result<XorKey> key_for_writing(const std::string& dir, const std::string& hex_option);
// What went wrong, for the user: which option or which xor.dat, and why.
std::string xor_key_problem(const std::string& path, const std::string& hex_option, const error& e);

}  // namespace blockwire::cli
