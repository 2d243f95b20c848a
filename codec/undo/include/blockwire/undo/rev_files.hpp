// Bitcoin Core's rev*.dat files: beside blkNNNNN.dat, revNNNNN.dat holds the
// undo data of the blocks in it, one record each, in the order the node
// connected them: the network magic, a 4-byte length, the CBlockUndo, and a
// 32-byte checksum, SHA256d(hash of the block's PARENT || the CBlockUndo).
// Obfuscated with xor.dat's key by file offset, like blk files; Core
// pre-allocates rev files in 1 MiB chunks of raw zeros. The genesis block
// has no record.
//
// Without Core's block index a record is paired with its block by its
// shape (the transaction count and each transaction's input count, which
// decoding the record gives) and then its checksum over the block's parent.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/undo/block_undo.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire {

// The rev files' names and listing (undo_file_name, undo_file_number,
// undo_files) are the blocks directory's: <blockwire/blockfiles/block_directory.hpp>.

Hash256 undo_checksum(const Hash256& parent_hash, std::span<const std::byte> undo_bytes);

// The shape a block and its undo data share: the number of transactions
// after the coinbase and each one's input count, hashed.
std::uint64_t undo_shape(const Block& block);
std::uint64_t undo_shape(const BlockUndo& undo);
// From a view: the counts without decoding the block.
std::uint64_t undo_shape(const BlockView& block);

// Appends undo records: the record is encoded into one buffer, its checksum
// computed over that buffer, the whole XORed in place and written with one
// write(2) (Core's WriteBlockUndo writes the data, then hashes it again).
// It takes no lock: use it while holding the directory's BlockFileWriter.
// A failed append cuts the file back to where the record began. The last
// file appended to stays open until another is, or close(). Disk space is
// reserved a MiB at a time past the end, as Core pre-allocates rev files,
// but without Core's zeros: the file's size stays its data's.
class UndoFileWriter {
 public:
  UndoFileWriter(std::string dir, const XorKey& key, network net = network::mainnet);
  // Into revNNNNN.dat, N = `file`: the number of the blk file that holds
  // the block. Returns where the record's magic is.
  result<BlockPosition> append(const BlockUndo& undo, const Hash256& parent_hash, unsigned file);
  // Closes the open file, reporting what close(2) said.
  result<void> close();

 private:
  std::string dir_;
  XorKey key_;
  network net_;
  std::optional<FileWriter> file_;  // revNNNNN.dat, N = file_number_
  unsigned file_number_ = 0;
  std::uint64_t reserved_ = 0;  // disk space reserved up to here (past the file's size)
  std::vector<std::byte> buffer_;  // one record at a time, reused
};

struct UndoRecord {
  std::uint64_t offset = 0;          // of the record's magic in the file
  std::span<const std::byte> bytes;  // the CBlockUndo; valid until the next call
  Hash256 checksum;
};

// The records of one rev file, in order. Zero bytes where a record would
// begin (Core's padding, zero on disk or once un-XORed) end the file.
// Errors, with the offset: bad_magic, truncated_record (a length past the
// end of the file: nothing is allocated for it), the file's own.
class UndoFileReader {
 public:
  // From `start_offset` (a record's magic; 0: the start of the file).
  static result<UndoFileReader> open(const std::string& path, const XorKey& key, network net = network::mainnet,
                                     std::uint64_t start_offset = 0);
  UndoFileReader(UndoFileReader&&) noexcept;
  UndoFileReader& operator=(UndoFileReader&&) noexcept;
  ~UndoFileReader();
  result<std::optional<UndoRecord>> next();

 private:
  struct State;
  explicit UndoFileReader(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

// Every undo record of a directory, by shape, for finding a block's.
// Building it reads and decodes each record once; finding re-reads the
// candidates of the block's shape and checks their checksums.
class UndoIndex {
 public:
  // `only_file`: revNNNNN.dat of that N alone (the undo data of one blk
  // file's blocks), not the whole directory.
  static result<UndoIndex> build(const std::string& blocks_dir, const XorKey& key, network net = network::mainnet,
                                 std::optional<unsigned> only_file = std::nullopt);
  // The undo data of `block`, held in blkNNNNN.dat with N = `file`; nothing
  // when no record of revNNNNN.dat pairs with it.
  result<std::optional<BlockUndo>> find(const Block& block, unsigned file) const;
  result<std::optional<BlockUndo>> find(const BlockView& block, unsigned file) const;
  std::size_t size() const noexcept { return by_shape_.size(); }

 private:
  result<std::optional<BlockUndo>> find(std::uint64_t shape, const Hash256& parent, unsigned file) const;
  struct Where {
    unsigned file;
    std::uint64_t offset;
  };
  std::string dir_;
  XorKey key_{};
  network net_ = network::mainnet;
  std::multimap<std::uint64_t, Where> by_shape_;
};

}  // namespace blockwire
