// The UTXO set a blocks directory keeps of its own best chain, so that a
// writer that appends blocks (fetch) writes each one's undo record as a
// node does: DIR/blockwire-utxos, a LevelDB database in the format of Bitcoin
// Core's chainstate ("C" + txid + VARINT(output index) -> Coin, "B" -> the
// block it is at; not obfuscated: read_core_coins and `blockwire utxos`
// read it as they read a node's), a memory cache in front.
//
// Crash-safe as the blk files are: flush() syncs the rev files (and, by
// Options::before_flush, the blocks) first, then writes every change, the
// best block and where the rev files ended in one synced LevelDB write.
// After a crash, open() connects the best chain's blocks after the set's
// best block again, from the blk files: their undo records already written
// are paired with them and kept (a record the crash tore is cut off), the
// others written. Whatever a crash interrupted, the set, the blocks and
// the rev files agree again, and no record is there twice.
#pragma once

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec/block.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/undo/block_undo.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace blockwire {

class UtxoStore {
 public:
  struct Options {
    // Changes held in memory before they are written (a flush), roughly.
    std::size_t cache_bytes = std::size_t{256} << 20;
    // While open() connects blocks again: done of total.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
    // While a new set is copied from Bitcoin Core's chainstate beside.
    CoinsProgressFn import_progress;
    // Before each flush writes the set: what the blocks' writer must make
    // durable first (BlockFileWriter::sync), so that the set is never past
    // the blocks on the disk.
    std::function<result<void>()> before_flush;
    // Asked before each block open() connects: true ends open() with
    // io::errc::stopped, the set as a crash there leaves it (whole up to a
    // flush; the next open goes on from there).
    std::function<bool()> stop_requested;
  };

  // Where the set of `blocks_dir` is kept.
  static std::string path_of(const std::string& blocks_dir);

  // Opens (or makes) the set of `chain`'s directory and brings it to
  // `chain`'s tip, as the header says. A new set for a node's blocks
  // directory starts as a copy of the node's chainstate beside
  // (DIR/../chainstate, read as read_core_coins reads it) when its best
  // block is one of `chain`'s: minutes, where connecting every block from
  // the genesis block would take hours. A block of the best chain whose undo
  // record the directory already holds (a node's or pack's rev files) is
  // not written again. Call it holding the directory's BlockFileWriter.
  // Errors: LevelDB's (directory::errc::leveldb_corruption, std::errc),
  // reading a block (blockfiles'), undo::errc::missing_coin (a block
  // spends what the chain before it never made: a directory that does not
  // start at its genesis block), writing a rev file (std::errc). The
  // error's context says which block, or which set or chainstate.
  static result<UtxoStore> open(BlockIndex& chain, const Options& options);
  static result<UtxoStore> open(BlockIndex& chain) { return open(chain, Options{}); }
  UtxoStore(UtxoStore&&) noexcept;
  UtxoStore& operator=(UtxoStore&&) noexcept;
  ~UtxoStore();  // no flush: what was not flushed is connected again by the next open()

  // The set moved to `chain`'s best tip, as a node's ActivateBestChain
  // moves its own: the old best chain's blocks back to where the new one
  // forks taken off (their undo records read back where the index says,
  // checked), the new one's connected: their inputs spent, their outputs
  // added, each one's undo record written into revNNNNN.dat (N: its blk
  // file) as Core's ConnectBlock and WriteBlockUndo do, and its place
  // given to `chain` (set_undo_offset). A block on a side branch with less
  // work changes nothing. `appended` (`appended_hash`, and its
  // transactions' ids when known: not hashed again): the block just
  // appended, already decoded; the others are read from the blk files.
  // Errors: undo::errc::missing_coin (a block spends what its chain never
  // made), a block of the old branch whose undo record is not known
  // (undo::errc::no_rev_file) or fails its checks, LevelDB's, the files';
  // the error's context names the block. After an error the store takes
  // nothing more until reopened.
  result<void> follow(BlockIndex& chain, const Block* appended = nullptr, const BlockHash& appended_hash = BlockHash::all_zeros(),
                      std::span<const TxIds> appended_ids = {});

  // The rev files synced, then the changes and the best block written in
  // one synced LevelDB write. Also when the cache is full, from follow().
  result<void> flush();

  // The block the set is at; all zeros before the genesis block.
  const BlockHash& best_block() const noexcept;
  std::uint64_t coins_connected() const noexcept;  // coins added since open(), for a summary

  // What open() did to catch up: the bytes of a torn undo record it cut
  // off, and the blocks it connected (from the set's best block, or the
  // genesis block for a new set, to the chain's tip).
  struct Opening {
    std::uint64_t undo_bytes_cut = 0;
    std::uint64_t blocks_connected = 0;
    std::optional<Height> from_height;  // the set's best block's height when opened (none: a new set)
    std::string imported_from;          // a new set copied from this chainstate of Core's (empty: none)
    std::uint64_t coins_imported = 0;
    // What a person should hear of it (none when nothing was done), `dir`
    // the blocks directory as the user named it.
    std::vector<std::string> lines(const std::string& dir) const;
  };
  const Opening& opening() const noexcept;

 private:
  struct State;
  explicit UtxoStore(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace blockwire
