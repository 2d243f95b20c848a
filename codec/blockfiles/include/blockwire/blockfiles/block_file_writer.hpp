// BlockFileWriter: appends blocks to a Core-style blocks directory, framed
// (magic, length, block) and obfuscated with the directory's key, starting
// a new blkNNNNN.dat when the current one would pass 128 MiB (Core's
// MAX_BLOCKFILE_SIZE).
#pragma once

#include <blockwire/blockfiles/error.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/codec/block.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/xor.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace blockwire {

inline constexpr std::uint64_t max_blockfile_size = 128 * 1024 * 1024;

struct BlockPosition {
  unsigned file;         // N of blkNNNNN.dat
  std::uint64_t offset;  // of the record's magic
};

class BlockFileWriter {
 public:
  // Creates `dir` if needed and writes its xor.dat. Appends to the last blk
  // file already there. Errors: blockfile_errc::key_mismatch (xor.dat holds
  // another key), plain_files_present (a key, and unobfuscated files there).
  static result<BlockFileWriter> open(const std::string& dir, const XorKey& key, network net = network::mainnet);

  BlockFileWriter(BlockFileWriter&&) noexcept;
  BlockFileWriter& operator=(BlockFileWriter&&) noexcept;
  ~BlockFileWriter();

  // Writes one whole record, or reports the error: a record is never left
  // half-written without its caller knowing (the error's offset is where the
  // record began, in the file position() names). After an error, every
  // append fails; one after close() fails with blockfile_errc::writer_closed,
  // one of a block longer than max_block_size with block_too_large.
  result<BlockPosition> append(const Block& block);
  // The same for a block already serialized (it is not checked).
  result<BlockPosition> append(std::span<const std::byte> block_bytes);

  // Closes the current file and reports what close(2) said.
  result<void> close();

  // Where the next record would begin.
  BlockPosition position() const noexcept;

 private:
  struct State;
  explicit BlockFileWriter(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace blockwire
