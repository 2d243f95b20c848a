// The basic filters (BIP158) and filter headers (BIP157) of a directory's
// best chain, kept in its filter file so that each is made once: those the
// file holds are read back, the rest made from the blk and rev files on
// every core a batch at a time and chained in height order (each header
// hashes the one before, from genesis). A block whose spent scripts are
// not there stops it: a filter without them would be wrong, and every
// header after it. Memory: the chain's hashes and headers, one batch.
#pragma once

#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/filter_file.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

namespace blockwire {

struct ChainFilters {
  Height from = Height::genesis();  // the first height given to `each`
  BlockCount end;                   // the blocks up to one past the last height made or read; none: to the tip
  unsigned threads = 0;             // 0: every core
  bool keep = true;                 // append what is made to the file (false: a file read with FilterFile::read)
  // Each height from `from` to `end` - 1, in order: its block's hash, its
  // encoded filter, its header.
  std::function<void(Height height, const BlockHash& block, std::span<const std::byte> filter, const Hash256& header)> each;
  // Before each batch: blocks made so far, of how many, and their bytes.
  std::function<void(std::uint64_t made, std::uint64_t to_make, std::uint64_t block_bytes)> progress;
};

// Where the filters stopped (error::step() of ChainFiltersMade::failure).
enum class chain_filters_step : int {
  block = 1,    // a block's filter could not be made: the context names it, its rev file or its record
  filter_file,  // the filter file could not be read or appended to
};
const std::error_category& chain_filters_step_category() noexcept;
inline std::error_code make_error_code(chain_filters_step s) noexcept { return {static_cast<int>(s), chain_filters_step_category()}; }

struct ChainFiltersMade {
  BlockCount end;                // up to one past the last height whose filter was made or read
  std::optional<error> failure;  // none: every height up to spec.end was given to `each`
};

// The filters of `dir`'s best chain up to spec.end, with `file` the
// directory's filter file opened over the same chain.
ChainFiltersMade make_chain_filters(const BlocksDirectory& dir, FilterFile& file, const ChainFilters& spec);

}  // namespace blockwire

template <>
struct std::is_error_code_enum<blockwire::chain_filters_step> : std::true_type {};
