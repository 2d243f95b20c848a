// BlockFileReader: the records of one blk*.dat file, in order.
//
// Each record is the network magic, a 4-byte little-endian length, and a
// block. The reader removes the XOR obfuscation, checks the framing, and
// yields each block's bytes with the record's file offset. Where the framing
// is broken (bad magic, an implausible length, a length past the end of the
// file) it reports the bytes it skips and finds the next magic with memchr.
// Zero bytes at the end of a file (space Core pre-allocates) are not an
// error: Core writes them raw, not obfuscated, so zeros count in either
// domain (a zero byte on disk, or one after removing the key). Memory: one window of at most a few MiB, whatever the file's size.
#pragma once

#include <blockwire/blockfiles/error.hpp>
#include <blockwire/codec/block.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/reader.hpp>
#include <blockwire/io/xor.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace blockwire {

// Core's MAX_BLOCK_SERIALIZED_SIZE: no valid record is longer.
inline constexpr std::uint32_t max_block_size = 4'000'000;

struct BlockRecord {
  std::uint64_t offset;              // of the record's magic in the file
  std::span<const std::byte> bytes;  // the block; valid until the next call
};

struct SkippedBytes {
  std::uint64_t offset;  // where the skipped bytes begin
  std::uint64_t count;
  blockfiles::errc reason;
  std::uint32_t claimed_length;  // implausible_length, record_past_end: the record's length field

  // "bad magic", "implausible block length 5000000", ...
  std::string message() const;
  // A record's beginning with the rest missing (its header, or its header
  // and part of its block, up to the end of the file): what an append
  // interrupted by a crash leaves, or one still being written.
  bool cut_short() const noexcept {
    return reason == blockfiles::errc::truncated_record_header || reason == blockfiles::errc::record_past_end;
  }
};

using BlockFileEvent = std::variant<BlockRecord, SkippedBytes>;

class BlockFileReader {
 public:
  // `file` is positioned at `start_offset` (0: the start of the file); the
  // key applies by file offset.
  BlockFileReader(reader_ref file, const XorKey& key, network net = network::mainnet, std::uint64_t start_offset = 0);

  // The next record or skipped run; nothing at the end of the file; an
  // error only when reading the file fails.
  result<std::optional<BlockFileEvent>> next();

  // The last record's block did not decode, `decoded` bytes in (the
  // error's offset; unknown: the whole block): look for the next magic
  // from one byte past its start (the length may have lied, and a real
  // record may hide inside) instead of trusting its length. Within a
  // budget: the decoding spent inside one damaged stretch (rejected
  // records with no accepted one between them) stays linear in the
  // stretch, so that records nested in records' scripts cannot make
  // reading quadratic. Returns false when the budget is spent: then the
  // record is skipped by its length, and the caller says so (next() does
  // not report it).
  bool reject_last(std::uint64_t decoded = ~std::uint64_t{0});

 private:
  result<std::size_t> fill(std::size_t at_least);
  // How many bytes from window_[from] on, before window_[to], are zero on
  // disk or zero once un-XORed.
  std::size_t zero_run(std::size_t from, std::size_t to) const noexcept;
  result<std::optional<BlockFileEvent>> resync(std::uint64_t from, blockfiles::errc reason, std::uint32_t claimed_length = 0);

  XorReader<reader_ref> source_;
  XorKey key_;
  Magic magic_;
  // Uninitialised on purpose: only the pages a file's records touch are
  // ever faulted in, so reading one record does not clear 8 MiB first.
  std::unique_ptr<std::byte[]> window_;
  std::size_t begin_ = 0;   // next unread byte in window_
  std::size_t end_ = 0;     // bytes in window_
  std::uint64_t base_ = 0;  // file offset of window_[0]
  bool eof_ = false;
  std::optional<std::uint64_t> last_record_;
  bool pending_resync_ = false;
  // The damaged stretch being resynchronised in, and the bytes decoded in it.
  static constexpr std::uint64_t no_stretch = ~std::uint64_t{0};
  std::uint64_t stretch_start_ = no_stretch;
  std::uint64_t stretch_work_ = 0;
};

// The block of the record at `offset` (its magic) of the blk file at `path`.
// Errors: the file's, blockfiles::errc::past_end_of_file, or, with the offset,
// why no record starts there (bad_magic: often the wrong key or network).
result<std::vector<std::byte>> read_block_record(const std::string& path, std::uint64_t offset, const XorKey& key,
                                                 network net = network::mainnet);
// The same into `block`, whose memory is kept from one call to the next
// (after an error its bytes mean nothing): a reader of many blocks
// allocates once (an allocator that returns freed
// memory at once, as Dask's workers are set up, would otherwise map and
// fault in every block's megabyte anew).
result<void> read_block_record(const std::string& path, std::uint64_t offset, const XorKey& key, network net,
                               std::vector<std::byte>& block);

// Whether a record, whole or cut short by the file's end, begins at
// `offset` of the blk file at `path` now: a second look at a file a writer
// appends to. A pass that read a new record's later pages after the writer
// copied them, but its first pages before, saw zeros or a broken record
// there (a writer copies in order): a record there now was being written;
// anything else is damage.
result<bool> record_begins_at(const std::string& path, std::uint64_t offset, const XorKey& key, network net);

// The header of the record at `offset`, which must be the block `hash`: the
// record's magic and header read (88 bytes), not its block. Errors: the
// file's, blockfiles::errc::bad_magic, blockfiles::errc::wrong_block, each
// with the offset.
result<BlockHeader> read_block_header(const std::string& path, std::uint64_t offset, const XorKey& key, network net, const BlockHash& hash);
// The same from a blk file already open (many headers of one file read
// in turn: the file opened once).
result<BlockHeader> read_block_header(int fd, std::uint64_t offset, const XorKey& key, network net, const BlockHash& hash);

}  // namespace blockwire
