// The chain a blocks directory holds, from its blocks' headers alone: each
// header's proof of work checked against its bits and the network's limit,
// each linked to its parent by hash (the files may hold blocks in any
// order), heights counted from a block whose parent is all zeros, and the
// best chain the one with the most work, as Bitcoin Core picks its tip.
// What it leaves out (damaged framing, a header whose proof of work fails,
// a block that links to nothing) it lists in problems(): a chain built
// around damage is not a success. Memory: the index (a few hundred bytes a
// block), never the blocks.
#pragma once

#include <blockwire/blockfiles/block_file_writer.hpp>  // BlockPosition
#include <blockwire/codec/block.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/io/xor.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace blockwire {

struct IndexedBlock {
  static constexpr std::size_t none = ~std::size_t{0};
  Hash256 hash;
  BlockHeader header;
  unsigned file = 0;          // N of blkNNNNN.dat
  std::uint64_t offset = 0;   // of the record's magic
  std::int64_t height = -1;   // -1: not linked to a block with a zero parent
  Hash256 chainwork;          // the work of this block and its ancestors
  std::size_t parent = none;  // in BlockIndex::blocks()
  bool failed = false;        // an index of the node's marks it invalid (or it descends from such a block): never the tip
};

// A block an index of the node's holds (Bitcoin Core's), with its record's
// place in the blk files.
struct KnownBlock {
  Hash256 hash;
  BlockHeader header;
  BlockPosition at;  // of its record's magic
  bool failed = false;
};

// What getblock says of a block's place in the chain.
struct ChainInfo {
  std::int64_t height;
  std::int64_t confirmations;  // -1 off the best chain
  std::uint32_t median_time;   // of the block and its ten ancestors
  Hash256 chainwork;
  std::optional<Hash256> next;  // on the best chain, when there is one
};

// Something build() left out of the index.
struct IndexProblem {
  enum class kind : unsigned char {
    damaged_record,     // broken framing (bad magic, an implausible length, zeros between records): bytes skipped
    bad_proof_of_work,  // the header's hash is above its target, or its target easier than the network allows
    unlinked,           // a block whose parent is neither in the directory nor all zeros (or was left out itself)
    torn_record,        // the last file ends inside a record, and no writer holds the lock: a crash mid-append
    unreadable_file,    // the file cannot be opened (a dangling link, a loop of links, no permission)
    unfinished_batch,   // records after where an append that never committed began (bytes: how many records)
  };
  kind what;
  unsigned file;         // N of blkNNNNN.dat
  std::uint64_t offset;  // of the record, or of the bytes skipped
  std::uint64_t bytes;   // skipped (damaged_record, torn_record); records (unfinished_batch); 0 otherwise
  std::string reason;    // damaged_record: the framing's ("bad magic", ...); unreadable_file: the system's

  // "blk00000.dat:1234: the block's proof of work fails (...)".
  std::string message() const;
};

class BlockIndex {
 public:
  // An index of nothing yet, for `dir` (blocks are add()ed as they are
  // written there).
  explicit BlockIndex(std::string dir = ".", network net = network::mainnet, const XorKey& key = {})
      : dir_(std::move(dir)), key_(key), net_(net) {}

  // Reads every record's header of DIR's blk files (one that cannot be
  // opened is a problem; a read that fails midway is the error). Where a writer holds
  // the directory's lock (being_written()), the last file is read up to
  // its last whole record: what follows is being written.
  static result<BlockIndex> build(const std::string& blocks_dir, const XorKey& key, network net = network::mainnet);

  // The index from blocks an index of the node's holds, its headers not
  // read again: linked as build() links them, a failed block and its
  // descendants never the tip; the tip `tip` where it is among them,
  // linked and not failed (the node's own), else the most work. Then the
  // blk files are read from `resume` on (a record's magic: what a writer
  // appended after the node's index was written), as refresh() reads them.
  static result<BlockIndex> build_from(const std::string& blocks_dir, const XorKey& key, network net, std::span<const KnownBlock> known,
                                       const std::optional<Hash256>& tip, BlockPosition resume);

  // What was left out, the first max_listed of them in file order, and how
  // many there were in all.
  static constexpr std::size_t max_listed = 1000;
  std::span<const IndexProblem> problems() const noexcept { return problems_; }
  std::uint64_t problem_count() const noexcept { return problem_count_; }
  // A writer held the lock while the index was built (or last refreshed).
  bool was_being_written() const noexcept { return being_written_; }

  // The chain as a syncing node uses it, one index for the directory and
  // the network (fetch keeps it as it appends).
  // A block written at `at`, its header already checked (proof of work, a
  // known parent or none at all): linked, and the best chain moved to it
  // when it has more work than the tip. A hash already there is left alone.
  void add(const BlockHeader& header, const Hash256& hash, BlockPosition at);
  // Whether the block is there and linked to a genesis block (on any branch).
  bool contains(const Hash256& hash) const {
    const IndexedBlock* b = find(hash);
    return b != nullptr && b->height >= 0;
  }
  bool empty() const noexcept { return best_.empty(); }
  // The best chain's height (-1: none) and tip (precondition: !empty()).
  std::int64_t height() const noexcept { return static_cast<std::int64_t>(best_.size()) - 1; }
  const Hash256& tip() const { return blocks_[best_.back()].hash; }
  // The height of a block of the best chain; -1 for any other.
  std::int64_t height_of(const Hash256& hash) const;
  // Bitcoin Core's locator (CChain::GetLocator): the tip and the ten blocks
  // below it, then steps doubling back, then the genesis block.
  std::vector<Hash256> locator() const;
  network net() const noexcept { return net_; }
  const XorKey& key() const noexcept { return key_; }
  const std::string& dir() const noexcept { return dir_; }

  // Reads what was appended to the directory since build() or the last
  // refresh(): the records after the last whole one read, and files made
  // since; links them (and blocks whose parent has now come), and moves
  // the best chain. A file cut back below where reading stopped (a
  // writer's repair) makes it build the index again. Returns whether the
  // best chain's tip changed. Pointers into blocks() do not survive it.
  result<bool> refresh();

  std::span<const IndexedBlock> blocks() const noexcept { return blocks_; }
  // Indexes into blocks(), the best chain's blocks by height from 0.
  std::span<const std::size_t> best_chain() const noexcept { return best_; }
  const IndexedBlock* find(const Hash256& hash) const;
  ChainInfo chain_info(const IndexedBlock& block) const;
  std::string file_path(unsigned file) const;

 private:
  std::string dir_;
  std::vector<IndexedBlock> blocks_;
  std::map<Hash256, std::size_t> by_hash_;
  std::vector<std::size_t> best_;
  std::vector<IndexProblem> problems_;
  std::uint64_t problem_count_ = 0;
  bool being_written_ = false;
  XorKey key_{};
  network net_ = network::mainnet;
  // Reading: what the files showed (kept across refreshes), and where it
  // goes on.
  std::vector<IndexProblem> record_problems_;
  std::uint64_t record_problem_count_ = 0;
  std::optional<BlockPosition> uncommitted_;  // an unfinished batch's start
  std::uint64_t uncommitted_records_ = 0;
  std::optional<BlockPosition> torn_reported_;
  std::set<unsigned> unreadable_;             // files said to be unreadable (once each)
  std::optional<BlockPosition> last_record_;  // the last record read, and its block's hash:
  Hash256 last_record_hash_;                  // a refresh checks it is still there
  unsigned resume_file_ = 0;
  std::uint64_t resume_offset_ = 0;
  // Linking: blocks whose parent is not (yet) there, and the walk's marks.
  std::vector<std::size_t> orphans_;
  std::set<Hash256> orphan_parents_;  // what they wait for
  std::vector<unsigned> walked_;
  unsigned round_ = 0;

  result<void> read_files(const std::vector<std::string>& files, unsigned from_file, std::uint64_t from_offset);
  void link(std::size_t first_new);
  void move_tip(std::size_t tip);
  // Gives blocks_[i] its height, parent and chain work from its parent (or
  // as a genesis block); false when the parent is not linked.
  bool place(std::size_t i);
  void add_record_problem(IndexProblem p);
};

}  // namespace blockwire
