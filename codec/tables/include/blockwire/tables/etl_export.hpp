// A blocks directory's best chain as bitcoin-etl's tables (etl_rows.hpp),
// cut into shards of `shard_blocks` heights at multiples of it and laid out
// Hive-style as bitcoin-etl's export_all lays them out:
//   OUT/TABLE/start_block=XXXXXXXX/end_block=YYYYYYYY/TABLE_XXXXXXXX_YYYYYYYY.EXT[.zst|.gz]
// A shard is made whole or not at all: each of its tables is written under
// a hidden temporary name beside its place (engines skip names that begin
// with a dot), synced, and renamed into place, the blocks table last; it
// depends on no other shard (its CSV files each have their header), so
// shards made by separate runs, processes or machines are the same bytes
// as one run makes. A rerun skips a shard whose files are all there and
// whose blocks table ends with the chain's block at its last height. The
// last shard may end short of a multiple (at the tip, or `end`): made
// again whole later, it replaces the short one. One OUT holds shards of
// one size: an export of another size into it is refused before anything
// is made or removed (the two would hold blocks twice). OUT is locked
// while an export runs (OUT/.blockwire-export.lock). Before any shard is made,
// every shard in OUT whose last block is no longer the best chain's at its
// height (a reorg, to a longer or a shorter chain), and every table left
// without its shard's blocks table or under a temporary name (a crash), is
// removed: OUT then holds what a clean export of the chain as it is would.
// A directory with damage has nothing removed (damage can cut its chain
// short). Threads take a shard each; memory is a block, its undo data and
// the tables' buffers (a megabyte a table; compressed, 256 KiB more and
// the compressor's state) per thread.
#pragma once

#include <blockwire/directory.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/tables/compressed_file.hpp>
#include <blockwire/tables/etl_rows.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire::tables {

// OUT, made when missing and locked for one export at a time
// (OUT/.blockwire-export.lock): two would make and remove the same
// shards' files under each other. Taken before the directory is opened, so
// that a second export hears of the first at once. Errors:
// std::errc::not_a_directory, the system's, io::errc::locked.
class EtlOutput {
 public:
  static result<EtlOutput> open(const std::string& out_dir);
  const std::string& path() const noexcept { return path_; }

 private:
  EtlOutput(std::string path, FileDescriptor lock) : path_(std::move(path)), lock_(std::move(lock)) {}
  std::string path_;
  FileDescriptor lock_;
};

struct EtlExport {
  export_format format = export_format::ndjson;
  Height from = Height::genesis();  // a multiple of shard_blocks
  BlockCount end;                   // the blocks up to one past the last height; none: to the tip
  std::uint64_t shard_blocks = 1000;
  compression compress = compression::none;  // each table's file
  unsigned threads = 0;                      // 0: two a core
  // What the export does that a user should hear of (a shard removed,
  // why), one line each, from the calling thread.
  std::function<void(std::string_view)> note;
  // Blocks and block bytes done so far, every tenth of a second from the
  // calling thread while the threads work.
  std::function<void(std::uint64_t blocks, std::uint64_t bytes)> progress;
};

struct ShardOutcome {
  Height first = Height::genesis();  // the shard's heights, both in it
  Height last = Height::genesis();
  bool reached = false;  // false: not begun (an I/O error stopped the run)
  bool skipped = false;  // whole already
  // Not made: why, its context the block's place (or the file); an I/O
  // error (problem->is_io()) stopped the run.
  std::optional<error> problem;
  std::uint64_t transactions = 0;
  std::uint64_t block_bytes = 0;  // of the blocks made into rows
};

// What an export came to, counted, wherever its shards were made (here, or
// on a cluster's workers: blockwire.distributed): what its summary line
// and exit status are made from.
struct ExportCounts {
  std::size_t shards = 0;
  std::size_t made = 0;
  std::size_t skipped = 0;  // whole already
  std::size_t failed = 0;
  std::uint64_t transactions = 0;  // of the shards made
  std::uint64_t block_bytes = 0;   // of the shards made
  std::size_t removed = 0;         // off the best chain
  double seconds = 0;
  bool io_failed = false;  // an I/O error stopped the run (or removing what workers left failed)
  // "N shards into OUT: M made (T transactions, B bytes of blocks in S s,
  // R MB/s), K already whole, F failed[, X not reached][, Y removed ...]".
  std::string summary(const std::string& out) const;
  // 2 for an I/O failure, else 1 for a shard not made or a damaged
  // directory, else 0.
  int exit_status(bool damaged) const noexcept;
};

// "shard 00000000-00000999 not made: WHY": a shard not made, as it is said.
std::string shard_problem_line(std::uint64_t first, std::uint64_t last, std::string_view why);

struct EtlReport {
  std::vector<ShardOutcome> shards;
  std::size_t removed = 0;  // shards removed for being off the best chain
  double seconds = 0;
  std::size_t made() const noexcept;
  std::size_t failed() const noexcept;
  std::size_t skipped() const noexcept;
  bool io_failed() const noexcept;  // an I/O error stopped the run
  // Of the shards made (not those skipped, failed or not reached).
  std::uint64_t transactions() const noexcept;
  std::uint64_t block_bytes() const noexcept;
  ExportCounts counts() const noexcept;
  // A shard_problem_line for each shard not made.
  std::vector<std::string> problem_lines() const;
};

// Makes the shards of heights [from, end) of `dir`'s best chain in `out`:
// plan_shards, remove_stale_shards, then export_shard for each on threads.
// Errors, before any shard: from not a multiple of shard_blocks, OUT
// holding shards of another size (std::errc::invalid_argument: a
// condition::usage), a directory with no chain (directory::errc::no_chain:
// nothing in OUT is judged against it), removing what left the chain (the
// system's). What each shard came to is in the report.
result<EtlReport> export_etl(const BlocksDirectory& dir, const EtlOutput& out, const EtlExport& spec);

// The three steps of export_etl, for a caller that has the shards made
// elsewhere (blockwire.distributed: on the workers of a Dask cluster, each
// with the directory, or a copy of it, and OUT at the same path).
//
// The shards of spec's heights, none begun. Errors as export_etl's.
result<std::vector<ShardOutcome>> plan_shards(const BlocksDirectory& dir, const EtlExport& spec);
// What left `dir`'s chain removed from `out` (export_etl's sweep, said by
// spec.note; nothing for a directory with damage). Returns the shards
// removed. Errors: directory::errc::no_chain; OUT holding shards that
// shards of spec.shard_blocks would overlap (made with another size, or
// overlapping already: std::errc::invalid_argument, its context saying
// their size and what to do; nothing removed), whatever the directory's
// damage; the system's.
result<std::size_t> remove_stale_shards(const BlocksDirectory& dir, const EtlOutput& out, const EtlExport& spec);
// Shard [first, last] made in `out_dir` (or skipped when whole) as
// export_etl makes it, on the calling thread. For a worker of an export
// whose caller holds OUT's lock and has removed what left the chain: it
// takes no lock itself. `dir` must have the chain the caller planned by
// (the caller checks the last block's hash).
ShardOutcome export_shard(const BlocksDirectory& dir, const std::string& out_dir, const EtlExport& spec, Height first, Height last);

// The rows of one block of `dir`'s best chain (`b`) into open tables, as
// export writes a shard's: its record read, checked to be the block the
// index names (directory::errc::input_changed) and to hash to its
// header's merkle root (check::errc::bad_merkle_root,
// mutated_merkle_root: the rows are only as good as the bytes), with its
// undo data where the directory has rev files (that error's context says
// so). `room` is memory the caller keeps from block to block. Returns the
// block's transaction count and size. The caller names the block.
struct BlockRows {
  std::size_t transactions = 0;
  std::size_t bytes = 0;
};
struct BlockRowsRoom {
  std::vector<std::byte> block;  // the block's bytes (a megabyte and more, allocated once)
  std::vector<Txid> txids;
};
result<BlockRows> write_block_rows(const BlocksDirectory& dir, const IndexedBlock& b, const ExportFiles& out, BlockRowsRoom& room);

// "00001000": a shard's heights in its names.
std::string shard_number(std::uint64_t n);

}  // namespace blockwire::tables
