// Bitcoin Core's block files: blk*.dat with framing and XOR obfuscation.
#pragma once

#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/block_file_reader.hpp>
#include <blockwire/blockfiles/block_file_writer.hpp>
#include <blockwire/blockfiles/block_index.hpp>
#include <blockwire/blockfiles/error.hpp>
#include <blockwire/blockfiles/staged_directory.hpp>
#include <blockwire/codec/network.hpp>
