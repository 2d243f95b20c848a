// What can be wrong with a blocks directory or a blk file. Each code means
// one thing; I/O failures are std::system_category codes, decoding failures
// the codec's (blockwire.codec) and io's (truncated input).
#pragma once

#include <system_error>
#include <type_traits>

namespace blockwire {

namespace blockfiles {

enum class errc : int {
  bad_key_file = 1,         // xor.dat is not 8 bytes
  key_mismatch,             // the directory's xor.dat holds another key than the one given
  plain_files_present,      // unobfuscated blk files are there, and a key was given
  block_too_large,          // a block longer than max_block_size (4,000,000 bytes)
  writer_closed,            // append after close(), or on a moved-from writer
  zero_bytes,               // zero bytes between records
  truncated_record_header,  // fewer than 8 bytes left at the end of the file
  bad_magic,                // no network magic where a record should begin
  implausible_length,       // a record length below 81 or above max_block_size
  record_past_end,          // a record runs past the end of the file
  undecodable_block,        // the record's block does not decode
  past_end_of_file,         // no record at or after that offset: the file ends (or only zeros follow)
  directory_locked,         // another writer holds the directory's .lock
  node_running,             // a running node holds its data directory's .lock (the parent's)
  too_many_files,           // past blk99999.dat, the end of Bitcoin Core's naming
  damaged_last_file,        // the last blk file has a record that does not decode, or broken framing before a whole record
  batch_in_progress,        // begin_batch() while a batch is open
  bad_batch_file,           // DIR/.blockwire-batch does not name a position of this directory
  wrong_block,              // the record where the index puts a block holds another block
  pruned,                   // the block's data was pruned: its node's index keeps its header alone, its blk file is gone
};

const std::error_category& category() noexcept;
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

}  // namespace blockfiles

}  // namespace blockwire

template <>
struct std::is_error_code_enum<blockwire::blockfiles::errc> : std::true_type {};
