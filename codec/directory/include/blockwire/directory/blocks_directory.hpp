// A Bitcoin Core blocks directory opened as a whole: its key, its network,
// the chain its blk files hold and where each block's undo record is in its
// rev files, with what was left out for damage. The one way every command
// (and any program) reads a directory; what it reads and how is behind
// open(), so that a faster index can replace the scan without a caller
// changing.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec/view.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/undo.hpp>

#include <boost/outcome/std_result.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace blockwire {

class BlocksDirectory {
 public:
  struct Options {
    std::optional<XorKey> key;          // default: the directory's xor.dat (none: no obfuscation)
    std::optional<network> net;         // default: the magic of its first record, else mainnet; another than its records': other_network
    bool undo = true;                   // pair the rev files' records with their blocks, when there are rev files
    std::optional<unsigned> undo_file;  // with undo: revNNNNN.dat of this N alone (one blk file's blocks)
    // Rev files that cannot be read fail open(); false: the directory is
    // opened without undo data, and undo_error() says why.
    bool undo_required = true;
    // Take the chain and the undo records' places from Bitcoin Core's block
    // index (DIR/index) when it is there and checks out, instead of
    // reading every blk file; false: read the blk files.
    bool core_index = true;
    // Read the index blockwire kept of the directory (kept_index_path)
    // when it checks out, and keep it (made, or extended by what the blk
    // files hold past it); false: neither.
    bool kept_index = true;
  };

  // Where the chain was taken from.
  enum class index_source : unsigned char {
    kept_index,  // blockwire's own, kept from an earlier open, checked against the files, and the blk files past it
    core_index,  // Bitcoin Core's block index, checked against the files, and the blk files past what it knows
    blk_files,   // every record of every blk file
  };

  // Where the index of `blocks_dir` is kept: DIR/blockwire-index, or for a
  // node's directory (Bitcoin Core's index beside) or one that may not be
  // written, $XDG_CACHE_HOME/blockwire/index/ (else ~/.cache/...) in a
  // folder named by a hash of the directory's path. Empty: nowhere.
  static std::string kept_index_path(const std::string& blocks_dir);

  // Reads the directory's key, finds its network, indexes its blocks and,
  // with options.undo, their undo records. The index comes from the first
  // of these that is there and checks out (docs/design.md, "A directory's
  // chain"): the index blockwire kept of it (kept_index_path), Bitcoin
  // Core's block index beside the files (DIR/index: read from a private
  // snapshot, nothing written into it, a running node's lock no obstacle;
  // every header checked against its key, a sample of records, the last
  // and the tip's against the files), else every header of every blk file
  // (BlockIndex::build). After an index, only what follows the last record
  // it knows is read from the blk files. notes() says why one that was
  // there was not used. Undo records are read where an index put them;
  // the others are paired with their blocks (UndoIndex::build), in their
  // rev files alone. The index is then kept, with what was read past it.
  // Damage is not a failure: it is in problems(), and the chain is what is
  // left. A failure's step() says which files could not be read
  // (directory::open_step: the key, the blk files, the rev files), its
  // context names them: "DIR/xor.dat: ...", "DIR: reading blk files: ...",
  // "DIR: reading rev files: ...".
  static result<BlocksDirectory> open(const std::string& path, const Options& options);
  static result<BlocksDirectory> open(const std::string& path);

  // The chain alone, for a writer that keeps it as it appends (fetch,
  // pack): opened as open() opens it (the kept index, the node's, the blk
  // files; no undo data), and kept again by keep_index() after appends.
  // `notes` gets what notes() would say.
  static result<BlockIndex> open_index(const std::string& path, const XorKey& key, network net, std::vector<std::string>* notes = nullptr);
  static result<void> keep_index(BlockIndex& index);

  const std::string& path() const noexcept { return path_; }
  const XorKey& key() const noexcept { return index_.key(); }
  network net() const noexcept { return index_.net(); }
  const BlockIndex& index() const noexcept { return index_; }
  index_source source() const noexcept { return source_; }
  // What a person should know of how the index was had, each a sentence
  // naming the file: an index there that was not used, and why ("Bitcoin
  // Core's block index not used: DIR/index: blk00003.dat:1234: the record
  // there is not block 00ab..."); an index that could not be kept.
  std::span<const std::string> notes() const noexcept { return notes_; }

  // The best chain's length, and its block at a height (precondition:
  // chain_size().contains(height)).
  BlockCount chain_size() const noexcept { return index_.chain_size(); }
  IndexedBlock at_height(Height height) const { return index_.at_height(height); }

  // A pruned node's directory: the lowest height from which every block of
  // the best chain has its data (Core's "pruneheight"); the genesis block's
  // where nothing was pruned. Below it, read_block() is
  // blockfiles::errc::pruned.
  Height prune_height() const noexcept { return index_.prune_height(); }
  bool pruned() const noexcept { return index_.prune_height() != Height::genesis(); }

  // What the index left out (damage, failing proof of work, blocks linked
  // to nothing): the first BlockIndex::max_listed of them, and how many.
  std::span<const IndexProblem> problems() const noexcept { return index_.problems(); }
  std::uint64_t problem_count() const noexcept { return index_.problem_count(); }
  bool damaged() const noexcept { return index_.problem_count() != 0; }

  // The block's bytes, as its record holds them. Errors: the file's, why
  // no record starts at its offset (read_block_record), and
  // blockfiles::errc::wrong_block where the record holds another block.
  result<std::vector<std::byte>> read_block(const IndexedBlock& block) const;
  // The same into `bytes`, its memory kept from call to call (a reader of
  // many blocks: read_block_record's reason).
  result<void> read_block(const IndexedBlock& block, std::vector<std::byte>& bytes) const;

  // Whether the directory has rev files and they were read (Options::undo).
  bool has_undo() const noexcept { return undo_.has_value(); }
  // The undo data of `block`, its bytes read as `view` (UndoIndex::undo_of:
  // the genesis block's is empty; its errors). Without rev files:
  // undo::errc::no_rev_file.
  result<BlockUndo> undo_of(const IndexedBlock& block, const BlockView& view) const;
  // Where `block`'s undo record's magic is in its rev file: where an index
  // put it, else where it was paired with the block; nothing where neither
  // knows (no record, a genesis block).
  std::optional<std::uint32_t> undo_offset(const IndexedBlock& block) const;

  // BIP158's basic filter of `block`: its record read, the scripts its
  // inputs spend from its undo data. `block_size`, when given, is set to
  // the block's size once read. Without rev files, a block that spends
  // nothing (genesis, a coinbase alone) still has its filter; one that
  // spends is directory::errc::no_undo_data. Errors also: read_block's,
  // the block's decoding, undo_of's.
  result<filters::GcsFilter> basic_filter(const IndexedBlock& block, std::size_t* block_size = nullptr) const;

  // Reads what a writer appended since open() or the last refresh
  // (BlockIndex::refresh) and, when the tip moved, the tip's rev file
  // again, that one alone. A directory pruned since (by blockwire prune,
  // or its node: the blk file of its lowest block with data is gone) is
  // opened again as open() would open it now, its new prune height and
  // index with it. Returns whether the tip moved; the error is the
  // blk files'. Reading the rev file may fail while the tip still moved:
  // then undo_error() says why until a later refresh reads it (as it says
  // why open() read no undo data, with Options::undo_required false).
  // References into index() do not survive it.
  result<bool> refresh();
  const std::optional<error>& undo_error() const noexcept { return undo_error_; }

 private:
  BlocksDirectory(std::string path, BlockIndex index) : path_(std::move(path)), index_(std::move(index)) {}
  const UndoIndex* undo_for(unsigned file) const noexcept;
  // Whether the blk file of the best chain's lowest block with data is
  // gone (pruned since the index was read).
  bool pruned_since() const;
  // Where an undo record was paired with the block `hash` (a tip's rev
  // file read again, or the records no index placed).
  std::optional<std::uint32_t> paired_offset(const BlockHash& hash) const;

  // Keeps the index in kept_dir_ (BlockIndex::save), with the undo
  // records paired so far; a failure is a note.
  void keep(bool rewrite);

  std::string path_;
  BlockIndex index_;
  std::string kept_dir_;      // where the index is kept (empty: nowhere)
  bool undo_wanted_ = false;  // the directory has rev files, and undo data was asked for
  index_source source_ = index_source::blk_files;
  std::vector<std::string> notes_;
  std::optional<UndoIndex> undo_;    // the rev files, read where an index put each record
  std::optional<UndoIndex> paired_;  // records paired with blocks no index placed, in paired_files_
  std::set<unsigned> paired_files_;
  std::map<unsigned, UndoIndex> recent_undo_;  // rev files read again since open() (the tips'), by number
  std::optional<unsigned> stale_undo_file_;    // the tip's rev file, still to read again
  std::optional<error> undo_error_;            // why it could not be
  std::optional<Options> reopen_;              // opened with no record yet: opened again by refresh() once one is there
  Options options_;                            // what it was opened with, to open it again once pruned
};

}  // namespace blockwire
