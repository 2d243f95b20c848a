// The basic filters of a blocks directory's best chain kept beside its
// blocks (what `blockwire filters` makes and `blockwire serve` reads).
#pragma once

#include <blockwire/codec/height.hpp>
#include <blockwire/codec/ids.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/io/hash256.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace blockwire {

// The basic filters of a blocks directory's best chain, kept next to its
// blocks in DIR/blockwire-filters/basic.dat so that they are made once:
// records in height order from genesis, each the block's hash (32 bytes),
// its filter header (32), the encoded filter (a CompactSize length, the
// bytes). Append-only. Opening reads it back and keeps the records that
// are the chain's, in order, each header chained from the one before; the
// first that is not (a record a crash tore, a block that left the best
// chain) and all after it are cut off, to be made again. Locked against
// another writer (an exclusive lock on the file, for as long as the object
// lives).
class FilterFile {
 public:
  // `chain`: the best chain's block hashes from genesis.
  static result<FilterFile> open(const std::string& blocks_dir, std::span<const BlockHash> chain);
  // The same for a reader (serve) while a writer may append: read only,
  // not locked, nothing cut (records past the first that does not match
  // are only left out). No file: an empty one.
  static result<FilterFile> read(const std::string& blocks_dir, std::span<const BlockHash> chain);

  // The filters held: those of the first size() blocks.
  BlockCount size() const noexcept { return BlockCount(records_.size()); }
  const Hash256& header(Height height) const noexcept { return records_[height.to_wire()].header; }
  const Hash256& filter_hash(Height height) const noexcept { return records_[height.to_wire()].filter_hash; }
  const BlockHash& block(Height height) const noexcept { return records_[height.to_wire()].block; }
  result<std::vector<std::byte>> filter(Height height) const;
  // The next height's: its block's hash and filter (the header is chained
  // here). Written through to the file.
  result<void> append(const BlockHash& block, std::span<const std::byte> filter);

 private:
  struct Record {
    std::uint64_t at;  // the filter's first byte in the file
    std::uint32_t size;
    BlockHash block = BlockHash::all_zeros();
    Hash256 filter_hash;
    Hash256 header;
  };
  // The records of the file's first `size` bytes that are the chain's; where they end.
  std::uint64_t load(std::uint64_t size, std::span<const BlockHash> chain);
  FileDescriptor fd_;
  std::uint64_t end_ = 0;
  std::vector<Record> records_;
};

}  // namespace blockwire
