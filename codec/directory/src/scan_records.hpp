// The reading half of scan_block_files: one blk file's records, framed,
// un-XORed, and validated by a BlockView's one pass (no objects built; the
// workers decode). A record whose block does not decode is reported once,
// and the reader resynchronises from the byte after its magic (within
// BlockFileReader::reject_last's budget) instead of trusting its length.
#pragma once

#include "scan_pipeline.hpp"

#include <blockwire/blockfiles/block_file_reader.hpp>  // max_block_size
#include <blockwire/codec/network.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/xor.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace blockwire::detail {

struct FileToScan {
  std::size_t index;  // in ScanResult::files
  std::string path;
  XorKey key;
  std::uint64_t progress_base;  // bytes of the files before it, for the progress bar
  std::uint64_t size;
  network net;  // of its records' magic
  // The last blk file of a directory a writer is appending to: a record
  // cut short at its end is being written, not damage.
  bool being_written = false;
};

// Submits each valid block to `pipeline` and reports damage to it. Returns
// where a record being written begins (file.being_written), if one does,
// or the error that stopped reading the file.
// `progress`, when set, hears the bytes read so far (counting the files
// before) and the records found.
result<std::optional<std::uint64_t>> scan_records(const FileToScan& file, network net, CheckPipeline& pipeline,
                                                  const std::function<void(std::uint64_t, std::uint64_t)>& progress,
                                                  std::uint64_t& records);

}  // namespace blockwire::detail
