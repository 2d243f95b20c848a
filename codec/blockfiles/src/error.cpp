#include <blockwire/blockfiles/error.hpp>
#include <blockwire/io/error.hpp>

namespace blockwire {
namespace {

const char* describe(int value) noexcept {
  switch (static_cast<blockfiles::errc>(value)) {
    case blockfiles::errc::bad_key_file: return "xor.dat is not 8 bytes";
    case blockfiles::errc::key_mismatch: return "the directory's xor.dat holds another XOR key";
    case blockfiles::errc::plain_files_present: return "the directory has unobfuscated blk files: a key would garble them";
    case blockfiles::errc::block_too_large: return "block longer than 4,000,000 bytes (MAX_BLOCK_SERIALIZED_SIZE)";
    case blockfiles::errc::writer_closed: return "the block-file writer is closed";
    case blockfiles::errc::zero_bytes: return "zero bytes between records";
    case blockfiles::errc::truncated_record_header: return "truncated record header at the end of the file";
    case blockfiles::errc::bad_magic: return "bad magic";
    case blockfiles::errc::implausible_length: return "implausible block length";
    case blockfiles::errc::record_past_end: return "the record runs past the end of the file";
    case blockfiles::errc::undecodable_block: return "the record's block does not decode";
    case blockfiles::errc::past_end_of_file: return "no record there: the file ends before it (or only zero bytes follow)";
    case blockfiles::errc::directory_locked: return "another writer holds the directory's lock (.lock)";
    case blockfiles::errc::node_running: return "a running node holds its data directory's lock (../.lock): stop it first";
    case blockfiles::errc::too_many_files: return "past blk99999.dat, the last name Bitcoin Core gives a block file";
    case blockfiles::errc::damaged_last_file:
      return "the last blk file is damaged: a record that does not decode, or broken framing before a whole record";
    case blockfiles::errc::batch_in_progress: return "a batch of appends is already open";
    case blockfiles::errc::bad_batch_file: return ".blockwire-batch does not name a position of this directory's blk files";
    case blockfiles::errc::wrong_block: return "the record there holds another block than the index says";
    case blockfiles::errc::pruned: return "the block's data was pruned (the node keeps its header alone)";
  }
  return nullptr;
}

}  // namespace

namespace {
condition classify(int value) noexcept {
  using blockfiles::errc;
  switch (static_cast<errc>(value)) {
    case errc::key_mismatch:
    case errc::plain_files_present:
    case errc::block_too_large:
    case errc::writer_closed:
    case errc::past_end_of_file:
    case errc::batch_in_progress:
    case errc::pruned: return condition::usage;
    case errc::directory_locked:
    case errc::node_running:
    case errc::too_many_files: return condition::io;
    // A key file, framing, a block, a batch file that is wrong. (No
    // default: a new code is a -Wswitch warning until it is classified.)
    case errc::bad_key_file:
    case errc::zero_bytes:
    case errc::truncated_record_header:
    case errc::bad_magic:
    case errc::implausible_length:
    case errc::record_past_end:
    case errc::undecodable_block:
    case errc::damaged_last_file:
    case errc::bad_batch_file:
    case errc::wrong_block: return condition::bad_data;
  }
  return condition::bad_data;  // (a value no code has)
}
}  // namespace

const std::error_category& blockfiles::category() noexcept {
  static const enum_category instance("blockwire.blockfiles", describe, classify);
  return instance;
}

}  // namespace blockwire
