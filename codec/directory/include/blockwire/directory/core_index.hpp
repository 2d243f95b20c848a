// Bitcoin Core's block index (DIR/index: "b" + hash -> CDiskBlockIndex, not
// obfuscated), read from its LevelDB database without writing a byte into
// it and while the node runs (it holds its lock): opened as a private
// snapshot laid over the node's files. Its chainstate: core_chainstate.hpp.
#pragma once

#include <blockwire/blockfiles/block_file_writer.hpp>  // BlockPosition
#include <blockwire/codec/block.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire {

// One block as Core's index keeps it (CDiskBlockIndex, chain.h).
struct CoreBlockEntry {
  // nStatus's bits (BlockStatus).
  static constexpr std::uint32_t valid_mask = 7;
  static constexpr std::uint32_t valid_tree = 2;  // its header checked and linked (what a blockwire index says)
  static constexpr std::uint32_t valid_scripts = 5;
  static constexpr std::uint32_t have_data = 8;
  static constexpr std::uint32_t have_undo = 16;
  static constexpr std::uint32_t failed_valid = 32;
  static constexpr std::uint32_t failed_mask = failed_valid | 64;  // failed itself, or a descendant of a failed block

  BlockHash hash = BlockHash::all_zeros();
  BlockHeader header;
  std::int32_t height = 0;  // as the node wrote it (its int: Height::to_core; read back, a claim to check)
  std::uint32_t status = 0;
  std::uint32_t tx_count = 0;
  unsigned file = 0;           // N of blkNNNNN.dat and revNNNNN.dat (with data or undo)
  std::uint32_t data_pos = 0;  // of the block itself, past its record's 8-byte frame (Core's nDataPos)
  std::uint32_t undo_pos = 0;  // of the undo data, past its frame (nUndoPos)
  // The index's log deletes the entry (read_core_block_index): every
  // earlier entry of `hash` is gone; nothing else is set.
  bool erased = false;

  bool has_data() const noexcept { return (status & have_data) != 0; }
  bool has_undo() const noexcept { return (status & have_undo) != 0; }
  bool failed() const noexcept { return (status & failed_mask) != 0; }
  // Where the block's record (its magic) and its undo record begin, as
  // blockwire's readers take them (precondition: has_data(), has_undo();
  // a position under 8 is not one Core writes: nothing).
  std::optional<BlockPosition> block_record() const noexcept;
  std::optional<BlockPosition> undo_record() const noexcept;
};

// The value Core writes under the index's key "b" + hash (a writer of
// Core's format for tests and benchmarks: blockwire never writes into a
// node's index).
std::vector<std::byte> encode_core_block_entry(const CoreBlockEntry& entry);
// Each blk file's record, CBlockFileInfo (key "f" + its number): its
// blocks, its bytes and its rev file's, its heights and times. A pruned
// file's is all zeros, as Core writes it.
struct CoreFileInfo {
  std::uint64_t blocks = 0, size = 0, undo_size = 0, height_first = 0, height_last = 0, time_first = 0, time_last = 0;
};
std::vector<std::byte> encode_core_file_info(const CoreFileInfo& info);
// The index's keys: "b" + hash, "f" + the file's number (4 bytes, little
// endian), "l" (the last file's number, the same 4 bytes its value) and
// "F" + a flag's name, as Core's BlockTreeDB writes them.
std::string core_block_key(const BlockHash& hash);
std::string core_file_key(unsigned file);
std::string core_last_file_key();
std::string core_flag_key(std::string_view name);

// An index blockwire wrote (prune_directory: a directory blockwire writes,
// pruned) holds this file beside LevelDB's; a node's never does. In such
// an index no block is validated to the end (valid_tree): its tip is the
// one with the most work, as blockwire picks it for a directory.
inline constexpr const char* blockwire_index_mark = "BLOCKWIRE";
bool written_by_blockwire(const std::string& index_dir);

// The value of the index's key "b" + `hash`. Errors:
// directory::errc::bad_index_entry, with the offset where decoding stopped.
result<CoreBlockEntry> decode_core_block_entry(const BlockHash& hash, std::span<const std::byte> value);

// Every block entry of Core's block index in `index_dir` (DIR/index), in
// key order (by hash, not by height), each handed to `each`. Errors: a
// directory that is not a LevelDB database (std::errc), a damaged one
// (directory::errc::leveldb_corruption), an entry that does not decode
// (bad_index_entry); the error's context says what went wrong (the file,
// the key, the block). `expect`, when given, is told how many blocks with data the index's file
// records count (CBlockFileInfo's nBlocks, summed): room to reserve; told
// again with a larger count where its log holds more. The tables are read
// through LevelDB, its logs streamed after them (never replayed into
// memory): a block may come twice, the later entry the newer.
result<std::uint64_t> read_core_block_index(const std::string& index_dir, const std::function<void(const CoreBlockEntry&)>& each,
                                            const std::function<void(std::uint64_t)>& expect = {});

}  // namespace blockwire
