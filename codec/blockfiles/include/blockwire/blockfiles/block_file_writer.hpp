// BlockFileWriter: appends blocks to a Core-style blocks directory, framed
// (magic, length, block) and obfuscated with the directory's key, starting
// a new blkNNNNN.dat when the current one would pass 128 MiB (Core's
// MAX_BLOCKFILE_SIZE).
//
// What it guarantees: one writer at a time (an exclusive lock on DIR/.lock,
// held while the writer lives, taken with fcntl as Bitcoin Core locks its
// data directory), and never into the blocks directory of a running node
// (whose data directory, the parent, holds a locked .lock); no file is ever
// truncated or overwritten except to remove what a failed or interrupted
// append of its own left (new files are created exclusively); every record
// on disk is whole once open() has returned.
//
// A crash (kill -9, power loss) can leave two things, which the next
// writer, holding the lock, repairs on open and reports in repaired():
// - a torn record: the last file ends with the beginning of a record and
//   nothing whole after it. It is cut off; every whole record before it
//   stays.
// - an unfinished batch (begin_batch() without commit_batch()): everything
//   appended since begin_batch() is removed, as if the batch never began.
#pragma once

#include <blockwire/blockfiles/error.hpp>
#include <blockwire/codec/block.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/xor.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace blockwire {

inline constexpr std::uint64_t max_blockfile_size = 128 * 1024 * 1024;
// blk99999.dat: the last name Bitcoin Core's "blk%05u.dat" gives.
inline constexpr unsigned max_block_file_number = 99'999;

struct BlockPosition {
  unsigned file;         // N of blkNNNNN.dat
  std::uint64_t offset;  // of the record's magic
  friend bool operator==(const BlockPosition&, const BlockPosition&) = default;
};

// What open() repaired of what a crash left.
struct BlockFileRepair {
  enum class kind : unsigned char {
    torn_record,       // the last file's torn record, cut off
    unfinished_batch,  // a batch that never committed, removed
  };
  kind what;
  BlockPosition end;    // where the directory's records now end (the next append's position)
  std::uint64_t bytes;  // removed, over every file
  // For a person: "DIR: cut off a torn record at the end of the last blk
  // file, left by a crash (1,234 bytes removed); it now ends at byte ...".
  std::string message(const std::string& dir) const;
};

class BlockFileWriter {
 public:
  // Creates `dir` if needed, takes its lock, and writes xor.dat for a new
  // directory. Appends after the last record of the last blk file, which
  // must be whole and hold a block that decodes; a last file that ends in
  // zero padding (Core pre-allocates) is left alone: the next file starts.
  // Errors (blockfiles::errc): directory_locked, node_running, key_mismatch
  // (xor.dat holds another key), plain_files_present (a key, and
  // unobfuscated files there), damaged_last_file (with the offset where the
  // damage begins, in the last file: a record that does not decode, or
  // broken framing with a whole record after it; a torn record at the end
  // is repaired instead). An xor.dat of another size than 8 bytes is
  // bad_key_file, unless no blk file holds a byte yet: then the key given
  // replaces it. `file_size`: a new file is begun where a record would
  // take the current one past it (Core's 128 MiB; tests make directories
  // of many small files with less, as Core's -fastprune does).
  static result<BlockFileWriter> open(const std::string& dir, const XorKey& key, network net = network::mainnet,
                                      std::uint64_t file_size = max_blockfile_size);

  BlockFileWriter(BlockFileWriter&&) noexcept;
  BlockFileWriter& operator=(BlockFileWriter&&) noexcept;
  ~BlockFileWriter();

  // Writes one whole record, or reports the error with the offset where the
  // record began, in the file position() names; the file is cut back to
  // that offset, so nothing partial stays (a file this writer created and
  // left empty is removed). After an error, every append fails; one after
  // close() fails with writer_closed, one of a block longer than
  // max_block_size with block_too_large, one past blk99999.dat with
  // too_many_files.
  result<BlockPosition> append(const Block& block);
  // The same for a block already serialized (it is not checked).
  result<BlockPosition> append(std::span<const std::byte> block_bytes);

  // Removes everything this writer appended after `to` (a position() taken
  // earlier) and closes the file: the files it created after `to`'s are
  // deleted, `to`'s file is cut back to `to`'s offset (and deleted when this
  // writer created it and it would be empty). For all-or-nothing runs of
  // appends; the lock is kept until close().
  result<void> rewind(BlockPosition to);

  // All or nothing across a crash, for a run of appends: begin_batch()
  // records where the directory ends (DIR/.blockwire-batch, synced); until
  // commit_batch() has synced the appended records and removed that
  // record, the next open() removes everything the batch appended. A
  // rewind() to the batch's start ends it too. Errors: the file system's;
  // batch_in_progress for a second begin_batch().
  result<void> begin_batch();
  result<void> commit_batch();

  // What was appended, on the disk: the files written since the last call
  // (or since open) synced, and the directory (the names of the files this
  // writer made). For a reader of its own that must never be ahead of the
  // blocks (a UTXO set's flush).
  result<void> sync();

  // What open() repaired, if anything.
  const std::optional<BlockFileRepair>& repaired() const noexcept;

  // Closes the current file (reporting what close(2) said) and releases
  // the lock.
  result<void> close();

  // Where the next record would begin.
  BlockPosition position() const noexcept;

 private:
  struct State;
  explicit BlockFileWriter(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace blockwire
