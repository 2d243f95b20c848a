// Bitcoin Core's rev*.dat files: beside blkNNNNN.dat, revNNNNN.dat holds the
// undo data of the blocks in it, one record each, in the order the node
// connected them: the network magic, a 4-byte length, the CBlockUndo, and a
// 32-byte checksum, SHA256d(hash of the block's PARENT || the CBlockUndo).
// Obfuscated with xor.dat's key by file offset, like blk files; Core
// pre-allocates rev files in 1 MiB chunks of raw zeros. The genesis block
// has no record.
//
// Without Core's block index a record is paired with its block by its
// checksum over the block's parent, and by its shape (the transaction count
// and each transaction's input count, which decoding the record gives)
// where the block's is known. The records of a rev file are in the order
// the node connected their blocks, so pairing follows the chain: each
// record is first tried against the children of the block the record
// before it paired with (one checksum), and searched for only where that
// fails (the first record, a reorg, a damaged record), within a budget
// linear in the blocks: UndoPairer.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/file_descriptor.hpp>
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

Hash256 undo_checksum(const BlockHash& parent_hash, std::span<const std::byte> undo_bytes);

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
  result<BlockPosition> append(const BlockUndo& undo, const BlockHash& parent_hash, unsigned file);
  // Syncs and closes the open file, reporting what fsync(2) or close(2) said.
  result<void> close();

 private:
  std::string dir_;
  XorKey key_;
  network net_;
  std::optional<FileWriter> file_;  // revNNNNN.dat, N = file_number_
  unsigned file_number_ = 0;
  std::uint64_t reserved_ = 0;     // disk space reserved up to here (past the file's size)
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

// Where the records of a rev file end now: the offset past the last whole
// record's frame, found by walking the frames (8 bytes read a record, the
// data skipped). Core pre-allocates rev files with zeros, so their size
// says nothing of what is written. Core writes a block's undo record after
// the block: every record before this offset is of a block already in the
// blk files, which a reader that takes this offset before it reads the blk
// files can hold to (records past it are newer than the blocks read).
// Errors: the file's; damaged framing ends the walk there (the reader
// reports it).
result<std::uint64_t> undo_records_end(const std::string& path, const XorKey& key, network net = network::mainnet);

// Pairs the records of one rev file, given in file order, with the blocks
// of the same-numbered blk file. Work: one checksum a record where the
// records follow the chain; every search where they do not is charged to
// a budget of a few checks a block, so no directory makes it quadratic
// (past the budget, a record that does not follow the chain stays
// unpaired).
class UndoPairer {
 public:
  struct Candidate {
    BlockHash hash = BlockHash::all_zeros();
    BlockHash parent = BlockHash::all_zeros();
    std::optional<std::uint64_t> shape;  // undo_shape of the block, when known
  };
  explicit UndoPairer(std::vector<Candidate> blocks);
  // The index into the blocks of the block whose undo data the next record
  // is (`undo_bytes`, its `checksum`, the shape its decoding gave), or
  // nothing.
  std::optional<std::size_t> pair(std::span<const std::byte> undo_bytes, const Hash256& checksum, std::uint64_t shape);
  // The other blocks of `block`'s parent whose shape fits: the checksum,
  // being over the parent, pairs a record with each of them as well (a
  // reorg's siblings, when their shapes are not known).
  std::vector<std::size_t> siblings(std::size_t block, std::uint64_t shape) const;
  const BlockHash& hash(std::size_t block) const noexcept { return blocks_[block].hash; }
  // Whether a search stopped for want of budget.
  bool budget_spent() const noexcept { return budget_ == 0; }

 private:
  bool fits(std::size_t block, std::uint64_t shape) const noexcept;
  std::vector<Candidate> blocks_;
  std::multimap<BlockHash, std::size_t> children_;  // by parent hash
  std::vector<std::size_t> chain_order_;            // breadth first from the blocks whose parent is not among them
  std::optional<std::size_t> last_;                 // paired with the record before
  std::uint64_t budget_;                            // candidates a search may still try
};

// Where each block's undo record is in a directory's rev files, paired
// once, in one pass over each rev file beside the directory's block index
// (UndoPairer); finding a block's undo data then reads its one record.
class UndoIndex {
 public:
  // `only_file`: revNNNNN.dat of that N alone (the undo data of one blk
  // file's blocks), not the whole directory. Damaged records (framing, a
  // record that does not decode) pair with nothing and are counted in
  // damaged(); the files' I/O errors are errors.
  static result<UndoIndex> build(const std::string& blocks_dir, const XorKey& key, const BlockIndex& blocks, network net = network::mainnet,
                                 std::optional<unsigned> only_file = std::nullopt);
  // The same for the rev files of these numbers alone (none: all), each
  // read from an offset of a record's magic (what follows the records
  // whose places are known already; 0: the whole file).
  struct FileFrom {
    unsigned file;
    std::uint64_t offset;
  };
  static result<UndoIndex> build(const std::string& blocks_dir, const XorKey& key, const BlockIndex& blocks, network net,
                                 std::span<const FileFrom> only_files);
  // Where the record at `offset` of `path` ends (the offset of the next
  // record's magic). Errors: the reader's.
  static result<std::uint64_t> record_end(const std::string& path, const XorKey& key, network net, std::uint64_t offset);
  // The directory's rev files opened, nothing paired: for blocks whose
  // undo record's place an index of the node's gave (IndexedBlock::
  // undo_offset), each read and checked when asked for (its frame, its
  // shape against the block's).
  static result<UndoIndex> known(const std::string& blocks_dir, const XorKey& key, network net = network::mainnet);
  // The undo data of the block `block_hash` (from the index given to
  // build()); nothing when no record paired with it. A record may pair
  // with several siblings (their checksum is over the same parent): the
  // most recent one whose shape is the block's (`shape`: its undo_shape)
  // is taken. Errors: the file's, and undo::errc::wrong_shape where no
  // record that paired with it has the block's shape.
  result<std::optional<BlockUndo>> find(const BlockHash& block_hash, std::uint64_t shape) const;
  // What every reader asks: the undo data of `block` (of the index given
  // to build(), its bytes read as `view`): at its undo_offset where an
  // index gave one, else the record paired with it. The genesis block's is empty
  // (Core writes none); every other block has a record, whatever it holds
  // (a coinbase alone has an empty one). Errors: undo::errc::no_rev_file,
  // undo::errc::no_record, those of find(). Readers treat them alike: the
  // block has no undo data.
  result<BlockUndo> undo_of(const IndexedBlock& block, const BlockView& view) const;
  // Where the record paired with the block is (the most recent one's
  // magic), for an index to keep.
  std::optional<std::uint32_t> offset_of(const BlockHash& block_hash) const;
  // Whether revNNNNN.dat exists (was read): a block of blkNNNNN.dat with no
  // undo data is then missing it.
  bool has_file(unsigned file) const noexcept;
  std::size_t size() const noexcept { return paired_.size(); }
  // Records that were damaged or paired with no block.
  std::uint64_t unpaired() const noexcept { return unpaired_; }

 private:
  struct Where {
    std::size_t file;      // into files_
    std::uint64_t offset;  // of the record's magic
    std::uint32_t length;  // of its CBlockUndo
  };
  struct OpenFile {
    unsigned number;
    FileDescriptor fd;  // read with pread: find() moves no file position
  };
  // The record at `offset` of files_[file], its CBlockUndo `length` bytes
  // (0: as its frame says, checked against the file's size, and its
  // checksum against `parent`, as Core checks a record it reads).
  result<BlockUndo> read(std::size_t file, std::uint64_t offset, std::uint32_t length,
                         const BlockHash& parent = BlockHash::all_zeros()) const;

  XorKey key_{};
  network net_ = network::mainnet;
  std::multimap<BlockHash, Where> paired_;  // in file order: the most recent record last
  std::vector<OpenFile> files_;
  std::uint64_t unpaired_ = 0;
};

}  // namespace blockwire
