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
#include <blockwire/codec/height.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/codec/work.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/io/xor.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace blockwire {

// A block of the index, as a value: what the index holds of it in memory
// (its header is read from its record on demand: BlockIndex::header).
struct IndexedBlock {
  static constexpr std::size_t none = ~std::size_t{0};
  BlockHash hash = BlockHash::all_zeros();
  unsigned file = 0;                  // N of blkNNNNN.dat
  std::uint64_t offset = 0;           // of the record's magic
  bool linked = false;                // linked to a block with a zero parent (else `height` means nothing)
  Height height = Height::genesis();  // (linked)
  std::uint32_t time = 0;             // the header's
  std::uint32_t bits = 0;             // the header's
  bool failed = false;                // an index of the node's marks it invalid (or it descends from such a block): never the tip
  // A pruned node's block: the node's index keeps its header, its data is
  // gone (file and offset mean nothing; never the tip).
  bool pruned = false;
  // Where its undo record's magic is in revNNNNN.dat (N = file), when an
  // index of the node's (or blockwire's kept one) says.
  std::optional<std::uint32_t> undo_offset;
  std::size_t id = none;  // BlockIndex::block(id); stable until a refresh() builds the index again

  // A block linked at height 0 (its parent all zeros): no undo record, no coins spent.
  bool is_genesis() const noexcept { return linked && height == Height::genesis(); }
  // Its height where it is linked; nothing for a block not linked to a genesis block.
  std::optional<Height> linked_height() const noexcept { return linked ? std::optional(height) : std::nullopt; }
};

// A block an index of the node's holds (Bitcoin Core's), with its record's
// place in the blk files.
struct KnownBlock {
  BlockHash hash = BlockHash::all_zeros();
  BlockHeader header;
  BlockPosition at;  // of its record's magic
  bool failed = false;
  std::optional<std::uint32_t> undo_offset;  // of its undo record's magic
  bool may_be_tip = true;                    // false: the node has not validated it to the end (no tip of a build without one given)
  bool pruned = false;                       // the node keeps its header alone (`at` and `undo_offset` mean nothing)
  std::uint32_t tx_count = 0;                // (pruned) its transactions, as the node's index counts them
  bool erased = false;                       // the node's index deleted its entry: an earlier one of `hash` is dropped (only `hash` is set)
};

// What getblock says of a block's place in the chain.
struct ChainInfo {
  std::optional<Height> height;  // none: a block not linked to a genesis block
  std::int64_t confirmations;    // -1 off the best chain
  std::uint32_t median_time;     // of the block and its ten ancestors
  Work chainwork;
  std::optional<BlockHash> next;  // on the best chain, when there is one
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
  explicit BlockIndex(std::string dir = ".", network net = network::mainnet, const XorKey& key = {});

  // Reads every record's header of DIR's blk files (one that cannot be
  // opened is a problem; a read that fails midway is the error). Where a writer holds
  // the directory's lock (being_written()), the last file is read up to
  // its last whole record: what follows is being written.
  static result<BlockIndex> build(const std::string& blocks_dir, const XorKey& key, network net = network::mainnet);

  // The index from blocks an index of the node's holds, its headers not
  // read again: `each` hands every block to `add` (any order) and returns
  // where the blk files' records go on past what it knows (a record's
  // magic), or its error. They are linked as build() links them, a failed
  // block and its descendants never the tip; the tip `tip` (read after
  // `each` returns: it may set it) where it is among them, linked and not
  // failed (the node's own), else the most work of those that may be tips. Then the blk files are read from there on (what a writer
  // appended after the node's index was written), as refresh() reads them.
  // A hash added again replaces the block added before (an index read
  // from its tables, then from its log: the later entry is the newer).
  // (`reserve`: room for that many blocks, where `each` knows beforehand.)
  using KnownBlocks = std::function<result<BlockPosition>(const std::function<void(const KnownBlock&)>& add,
                                                          const std::function<void(std::size_t)>& reserve)>;
  static result<BlockIndex> build_from(const std::string& blocks_dir, const XorKey& key, network net, const KnownBlocks& each,
                                       const std::optional<BlockHash>& tip);

  // blockwire's kept index: the index as files in `kept_dir` (chain.dat,
  // every block as it is in memory with its parent's place, appended to;
  // state.dat, what it covers, replaced whole), so that the next open reads
  // it instead of the blk files or the node's index. save() keeps a clean
  // index alone (no problem) and the blocks up to the first whose undo
  // record is wanted but not known (`undo_offset_of` gives those of blocks
  // without one; `undo_wanted`: the directory has rev files): what follows
  // is read again next time. chain.dat is appended to where it holds this
  // index's blocks as they were loaded, else written anew.
  // `rewrite`: written anew even where it could be appended to (undo
  // records learned for blocks it holds).
  result<void> save(const std::string& kept_dir, bool undo_wanted,
                    const std::function<std::optional<std::uint32_t>(const BlockHash&)>& undo_offset_of, bool rewrite);
  // The index `kept_dir` holds, checked against the directory before it is
  // trusted (the key and network, every blk file at least as long as it
  // was, the last record it knows, the tip's and a sample's records), then
  // the blk files read from where it stops. A string says why it was not
  // used (none there, or it does not match: the caller builds anew).
  static std::variant<BlockIndex, std::string> load(const std::string& kept_dir, const std::string& blocks_dir, const XorKey& key,
                                                    network net);
  // How many times refresh() built the index anew (a writer cut the files
  // back): ids and undo places from before do not hold.
  std::uint64_t generation() const noexcept { return generation_; }
  // How many blocks the build or load placed (from an index, kept or the
  // node's, or every blk file): the ids below; the rest were read from the
  // files since (past where an index stops, or by refresh()).
  std::size_t first_read() const noexcept { return first_read_; }
  // The files with blocks (but a genesis block) whose undo record's place
  // is not known (IndexedBlock::undo_offset), each with the furthest
  // record's place it does know in that file (its rev records are written
  // in order: what is new follows it).
  struct UndoGap {
    unsigned file;
    std::optional<std::uint32_t> last_known;
  };
  std::vector<UndoGap> files_without_undo() const;

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
  // `undo_offset`: where its undo record was written (revNNNNN.dat's magic).
  void add(const BlockHeader& header, const BlockHash& hash, BlockPosition at, std::optional<std::uint32_t> undo_offset = std::nullopt);
  // Where the undo record of a block already there was written (a writer
  // connects a block after it is linked). Nothing for an unknown hash.
  void set_undo_offset(const BlockHash& hash, std::uint32_t undo_offset);
  // Whether the block is there and linked to a genesis block (on any branch).
  bool contains(const BlockHash& hash) const {
    const auto b = find(hash);
    return b && b->linked;
  }
  bool empty() const noexcept { return best_.size() == 0; }
  // The lowest height of the best chain from which every block has its
  // data (Bitcoin Core's "pruneheight": the last pruned block's, plus one);
  // 0 where nothing below the tip was pruned.
  Height prune_height() const noexcept;
  // Whether any block of the index has its header alone (a pruned node's).
  bool any_pruned() const noexcept { return pruned_entries_ != 0; }
  // The best chain's tip: its height (none: no chain); its hash and block
  // (precondition: !empty()).
  std::optional<Height> tip_height() const noexcept { return chain_size().last(); }
  BlockHash tip() const { return entries_[best_[best_.size() - 1]].hash; }
  IndexedBlock tip_block() const { return block(best_[best_.size() - 1]); }
  // The height of a block of the best chain; nothing for any other.
  std::optional<Height> height_of(const BlockHash& hash) const;
  // Bitcoin Core's locator (CChain::GetLocator): the tip and the ten blocks
  // below it, then steps doubling back, then the genesis block.
  std::vector<BlockHash> locator() const;
  network net() const noexcept { return net_; }
  const XorKey& key() const noexcept { return key_; }
  const std::string& dir() const noexcept { return dir_; }

  // Reads what was appended to the directory since build() or the last
  // refresh(): the records after the last whole one read, and files made
  // since; links them (and blocks whose parent has now come), and moves
  // the best chain. A file cut back below where reading stopped (a
  // writer's repair) makes it build the index again. Returns whether the
  // best chain's tip changed. IndexedBlock values taken before it may be
  // out of date after it (read them again with block(id) or find()).
  result<bool> refresh();

  // Every block (on the best chain or not, linked or not), by id from 0.
  std::size_t size() const noexcept { return entries_.size(); }
  IndexedBlock block(std::size_t id) const;
  // The best chain's length, and its block at a height (precondition:
  // chain_size().contains(height)).
  BlockCount chain_size() const noexcept { return BlockCount(best_.size()); }
  IndexedBlock at_height(Height height) const { return block(best_[height.to_wire()]); }
  std::optional<IndexedBlock> find(const BlockHash& hash) const;
  // The block `block` builds on, when it is in the index and linked.
  std::optional<IndexedBlock> parent(const IndexedBlock& block) const;
  // Whether `block` is on the best chain.
  bool on_best_chain(const IndexedBlock& block) const noexcept;
  ChainInfo chain_info(const IndexedBlock& block) const;
  // The block's header, read from its record; a pruned block's from what
  // the index keeps of it (its header's fields, from the node's index).
  // Errors: the file's, why no record is there,
  // blockfiles::errc::wrong_block where the record holds another block.
  result<BlockHeader> header(const IndexedBlock& block) const;
  // A pruned block's transaction count, as the node's index has it.
  std::optional<std::uint32_t> pruned_tx_count(const IndexedBlock& block) const;
  std::string file_path(unsigned file) const;
  // What the index holds in memory, in bytes (its arrays' capacity).
  std::size_t memory_bytes() const noexcept;

 private:
  // A block in memory: 52 bytes.
  struct Entry {
    BlockHash hash = BlockHash::all_zeros();
    std::uint32_t file_word;  // the file (20 bits), the offset's bits 32-39 (8), the flags (4)
    std::uint32_t offset;     // the offset's low 32 bits
    std::uint32_t undo_offset;
    std::uint32_t time;
    std::uint32_t bits;
    static constexpr std::uint32_t file_bits = 20;
    static constexpr std::uint32_t failed = 1u << 28;      // (flags in file_word)
    static constexpr std::uint32_t undo_known = 1u << 29;  // undo_offset is where the record is
    static constexpr std::uint32_t not_tip = 1u << 30;     // never the tip a build picks by work
    static constexpr std::uint32_t no_data = 1u << 31;     // pruned: the header alone (never a tip)
  };
  static constexpr std::uint32_t no_id = ~std::uint32_t{0};
  // The best chain's ids by height, as runs of consecutive ids.
  class ChainRuns {
   public:
    std::size_t size() const noexcept { return size_; }
    std::uint32_t operator[](std::size_t height) const noexcept;
    void push_back(std::uint32_t id);
    void truncate(std::size_t size);
    // The height of `id` on the chain, or -1.
    std::int64_t height_of(std::uint32_t id) const noexcept;
    std::size_t memory_bytes() const noexcept { return runs_.capacity() * sizeof(Run); }

   private:
    struct Run {
      std::uint32_t height, id, length;
    };
    std::vector<Run> runs_;
    std::size_t size_ = 0;
  };
  struct SideLink {  // a linked block off the best chain
    std::int64_t height;
    std::uint32_t parent;
  };
  struct Pending {  // a block not linked yet, and what it waits for
    std::uint32_t id;
    BlockHash prev = BlockHash::all_zeros();
  };

  std::string dir_;
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;  // ids by hash, open addressing; empty: ~0
  std::uint64_t slot_seed_ = 0;
  ChainRuns best_;
  std::unordered_map<std::uint32_t, SideLink> side_;
  std::vector<Pending> orphans_;            // linked to nothing yet, by id
  std::vector<Pending> fresh_;              // read or added since the last link_fresh()
  bool bulk_ = false;                       // building: blocks pushed without their slots, their parents in bulk_prev_
  bool bulk_newest_wins_ = false;           // building from a node's index: a hash pushed again replaces the earlier entry
  std::vector<std::uint32_t> bulk_erased_;  // (building) ids pushed as an entry's deletion: dropped with what they replace
  std::size_t kept_records_ = 0;            // read from a kept index (or written to it), their ids their places there
  Hash256 kept_chain_hash_;                 // of chain.dat as read or written: appended to only while it is still that
  std::uint64_t generation_ = 0;
  std::size_t first_read_ = 0;
  std::size_t pruned_entries_ = 0;  // entries with Entry::no_data
  // What a pruned block's header has beyond the entry (its parent, time and
  // bits are there), by id, beside entries_ while any block is pruned
  // (else empty): 44 bytes a block.
  struct PrunedHeader {
    std::int32_t version = 0;
    Hash256 merkle_root;
    std::uint32_t nonce = 0;
    std::uint32_t tx_count = 0;
  };
  std::vector<PrunedHeader> pruned_headers_;
  std::vector<BlockHash> bulk_prev_;
  std::vector<Work> work_marks_;  // the chain work at every 256th height of the best chain
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
  std::set<unsigned> unreadable_;                        // files said to be unreadable (once each)
  std::optional<BlockPosition> last_record_;             // the last record read, and its block's hash:
  BlockHash last_record_hash_ = BlockHash::all_zeros();  // a refresh checks it is still there
  unsigned resume_file_ = 0;
  std::uint64_t resume_offset_ = 0;

  result<void> read_files(const std::vector<std::string>& files, unsigned from_file, std::uint64_t from_offset);
  // Appends a block not linked yet (a hash already there: nothing).
  void push(const BlockHash& hash, const BlockHash& prev, BlockPosition at, std::uint32_t time, std::uint32_t bits, bool failed,
            std::optional<std::uint32_t> undo_offset, bool may_be_tip = true, bool pruned = false);
  // Links the blocks of a build all at once (their parents by hash, or
  // given: `parent` an id or none, `genesis` where the parent is all
  // zeros), laid out by height (`tip` the node's when given, else the most
  // work); or the blocks in fresh_ one by one beside what is linked.
  void link_bulk(const std::optional<BlockHash>& tip);
  // (Returns whether any block's id changed.)
  bool link_all(std::vector<std::uint32_t> parent, std::vector<bool> genesis, const std::optional<BlockHash>& tip,
                const std::function<BlockHash(std::uint32_t)>& prev_of);
  void link_fresh();
  void move_tip(std::uint32_t tip);
  void mark_work_from(std::size_t height);
  Work chain_work(std::uint32_t id) const;
  std::int64_t height_of_id(std::uint32_t id) const noexcept;
  std::optional<std::uint32_t> parent_of(std::uint32_t id) const noexcept;
  std::optional<std::uint32_t> find_id(const BlockHash& hash) const noexcept;
  std::size_t slot_of(const BlockHash& hash) const noexcept;
  void index_slots();
  void add_slot(std::uint32_t id);
  void gather_problems();
  void add_record_problem(IndexProblem p);
};

}  // namespace blockwire
