#include "batch_record.hpp"

#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/block_file_reader.hpp>  // max_block_size, BlockFileReader
#include <blockwire/blockfiles/block_file_writer.hpp>
#include <blockwire/blockfiles/error.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/file_descriptor.hpp>
#include <blockwire/io/number_text.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <climits>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <system_error>
#include <unistd.h>

namespace blockwire {

std::string BlockFileRepair::message(const std::string& dir) const {
  const bool torn = what == kind::torn_record;
  return dir + ": " +
         (torn ? "cut off a torn record at the end of the last blk file, left by a crash"
               : "removed the blocks of an append that a crash interrupted") +
         " (" + count_of(bytes, "byte") + " removed); it now ends at byte " + std::to_string(end.offset) + " of " +
         block_file_name(end.file);
}

namespace fs = std::filesystem;

namespace {

// An exclusive lock on `path` (io's lock_file), `held` the code for a lock
// someone else holds. Bitcoin Core locks its data directory's .lock with a
// classic fcntl lock, which conflicts with ours.
result<FileDescriptor> lock_file(const fs::path& path, bool create, blockfiles::errc held) {
  auto lock = blockwire::lock_file(path.c_str(), create);
  if (!lock && lock.error().code() == io::errc::locked) return held;
  return lock;
}

// The data directory a blocks directory sits in: its parent.
fs::path data_directory_of(const std::string& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();  // "blocks/" -> "blocks"
  return p.parent_path();
}

struct Tail {
  std::uint64_t end;  // of the last whole record
  bool padded;        // zero bytes follow it up to the end of the file
  bool torn;          // the beginning of a record follows it, cut short, and nothing whole after
};

// Walks the records of the last blk file: each must be whole and hold a
// block that decodes, up to the end of the file, to trailing zero padding,
// or to a torn record (what a crash inside an append leaves: a record's
// header, or its header and part of its block, at the very end). Anything
// else is damaged_last_file, at the offset where it begins.
result<Tail> check_last_file(const std::string& path, const XorKey& key, network net, std::uint64_t size) {
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  BlockFileReader reader(file.value(), key, net);
  Block block;
  std::uint64_t end = 0;
  std::optional<std::uint64_t> torn_at;  // a record cut short: torn, if nothing whole follows it
  for (;;) {
    auto event = reader.next();
    if (!event) return event.error();
    if (!event.value()) break;
    if (const auto* record = std::get_if<BlockRecord>(&*event.value())) {
      if (torn_at) return error(blockfiles::errc::damaged_last_file, *torn_at);
      if (!decode_block(record->bytes, block)) return error(blockfiles::errc::damaged_last_file, record->offset);
      end = record->offset + 8 + record->bytes.size();
      continue;
    }
    const auto& skipped = std::get<SkippedBytes>(*event.value());
    if (torn_at) continue;  // inside the torn record's block: bytes that look like a magic
    if (!skipped.cut_short() || skipped.offset != end) return error(blockfiles::errc::damaged_last_file, skipped.offset);
    torn_at = skipped.offset;
  }
  return Tail{end, !torn_at && end < size, torn_at.has_value()};
}

}  // namespace

struct BlockFileWriter::State {
  std::string dir;
  XorKey key;
  Magic magic;
  FileDescriptor lock;       // DIR/.lock, held while the writer lives
  FileDescriptor node_lock;  // the data directory's .lock, when there is one: no node starts meanwhile
  unsigned number = 0;
  std::uint64_t file_size = max_blockfile_size;  // a file is not written past it
  std::optional<FileWriter> file;
  unsigned synced_from = 0;               // sync() syncs the files from this number on: the first written since open, or the last sync
  std::uint64_t size = 0;                 // of the current file
  std::uint64_t written_back = 0;         // of the current file, handed to the kernel's writeback
  unsigned first_created = UINT_MAX;      // files numbered from here on were created by this writer
  error failure{};                        // sticky: after a failed write, nothing more is written
  std::optional<BlockPosition> batch;     // where the open batch began
  std::optional<BlockFileRepair> repair;  // what open() repaired

  fs::path batch_path() const { return fs::path(dir) / detail::batch_file_name; }

  std::string path_of(unsigned n) const { return (fs::path(dir) / block_file_name(n)).string(); }

  // Never truncates or overwrites: a new file must not exist yet.
  result<void> create_file(unsigned n) {
    if (n > max_block_file_number) return blockfiles::errc::too_many_files;
    auto created = FileWriter::create_new(path_of(n).c_str());
    if (!created) return created.error();
    file.emplace(std::move(created).value());
    number = n;
    size = 0;
    written_back = 0;
    if (n < first_created) first_created = n;
    return success();
  }

  // Removes what a failed append left: the file cut back to where the
  // record began, or gone if this writer created it and it is now empty.
  void cut_back(const BlockPosition& at) {
    if (!file) return;
    if (at.offset == 0 && at.file >= first_created) {
      (void)file->close();
      file.reset();
      ::unlink(path_of(at.file).c_str());
    } else {
      // (a cut that fails too leaves a torn record, which the next open cuts)
      if (::ftruncate(file->fd(), static_cast<off_t>(at.offset)) != 0) return;
    }
  }

  // Removes every blk file numbered after `to` and cuts `to`'s file back
  // to its offset; the bytes removed.
  result<std::uint64_t> remove_after(BlockPosition to, unsigned last_number) {
    std::uint64_t removed = 0;
    std::error_code ec;
    for (unsigned n = last_number; n > to.file; --n) {
      const std::string path = path_of(n);
      const auto size = fs::file_size(path, ec);
      if (ec) {
        if (ec == std::errc::no_such_file_or_directory) continue;
        return ec;
      }
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) return last_system_error();
      removed += size;
    }
    const std::string path = path_of(to.file);
    const auto size = fs::file_size(path, ec);
    if (ec == std::errc::no_such_file_or_directory) return removed;  // the batch's first file is gone: nothing to cut
    if (ec) return ec;
    if (size < to.offset) return error(blockfiles::errc::bad_batch_file);
    if (::truncate(path.c_str(), static_cast<off_t>(to.offset)) != 0) return last_system_error();
    return removed + (size - to.offset);
  }

  // Frames and writes one record in one pass: magic, length, block, XORed
  // by offset in the buffer itself (the buffer hands itself over as scratch,
  // through writer_ref, to XorWriter::write_in_place).
  template <class EncodeBlock>
  result<BlockPosition> append(std::uint64_t length, EncodeBlock&& encode_block) {
    if (failure) return failure;
    if (!file) return blockfiles::errc::writer_closed;
    if (length > max_block_size) return blockfiles::errc::block_too_large;  // no reader would take it
    if (size != 0 && size + 8 + length > file_size) {
      if (batch) {  // commit_batch() syncs only the file it has open (sync() the ones since its last call)
        if (auto r = file->sync(); !r) return failure = r.error();
      }
      if (auto r = file->close(); !r) return failure = r.error();
      file.reset();
      if (auto r = create_file(number + 1); !r) return failure = r.error();
    }
    const BlockPosition at{number, size};
    XorWriter<FileWriter&> obfuscated(*file, key, size);
    StreamWriter w{writer_ref(obfuscated)};
    w.write(std::span<const std::byte, 4>(magic));
    wire::encode_u32(w, static_cast<std::uint32_t>(length));
    encode_block(w);
    if (auto r = w.flush(); !r) {
      cut_back(at);
      return failure = error(r.error().code(), at.offset);
    }
    size += 8 + length;
    // The kernel asked to start writing what was appended, 8 MiB at a
    // time, without waiting for it: a sync() later (before a UTXO set's
    // flush) then finds little left to write, instead of every byte since
    // the last one.
    if (size >= written_back + (std::uint64_t{8} << 20)) {
      (void)::sync_file_range(file->fd(), static_cast<off_t>(written_back), static_cast<off_t>(size - written_back), SYNC_FILE_RANGE_WRITE);
      written_back = size;
    }
    return at;
  }
};

BlockFileWriter::BlockFileWriter(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {
  if (state_) state_->synced_from = state_->number;
}
BlockFileWriter::BlockFileWriter(BlockFileWriter&&) noexcept = default;
BlockFileWriter& BlockFileWriter::operator=(BlockFileWriter&&) noexcept = default;
BlockFileWriter::~BlockFileWriter() = default;

result<BlockFileWriter> BlockFileWriter::open(const std::string& dir, const XorKey& key, network net, std::uint64_t file_size) {
  auto state = std::make_unique<State>();
  state->dir = dir;
  state->file_size = file_size;
  state->key = key;
  state->magic = magic(net);
  // A running node first: then nothing at all is written.
  auto node_lock = lock_file(data_directory_of(dir) / ".lock", false, blockfiles::errc::node_running);
  if (!node_lock) return node_lock.error();
  state->node_lock = std::move(node_lock).value();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return ec;
  auto lock = lock_file(fs::path(dir) / ".lock", true, blockfiles::errc::directory_locked);
  if (!lock) return lock.error();
  state->lock = std::move(lock).value();

  auto existing = block_files(dir);
  if (!existing) return existing.error();
  // A batch that never committed: the writer that began it is gone (we
  // hold the lock), so what it appended goes.
  const fs::path batch_path = state->batch_path();
  auto batch_start = detail::read_batch_start(dir);
  if (!batch_start) return batch_start.error();
  if (const auto& at = batch_start.value()) {
    // No file the batch began in (every one removed by hand): nothing of
    // it is left to remove.
    const unsigned last_number = existing.value().empty() ? 0 : *block_file_number(fs::path(existing.value().back()).filename().string());
    const bool started_file_there = !existing.value().empty() && at->file <= last_number;
    auto removed = started_file_there ? state->remove_after(*at, last_number) : result<std::uint64_t>(std::uint64_t{0});
    if (!removed) return removed.error();
    if (auto r = sync_directory(dir.c_str()); !r) return r.error();
    if (::unlink(batch_path.c_str()) != 0) return last_system_error();
    if (auto r = sync_directory(dir.c_str()); !r) return r.error();
    state->repair = BlockFileRepair{BlockFileRepair::kind::unfinished_batch, *at, removed.value()};
    existing = block_files(dir);
    if (!existing) return existing.error();
  }
  const bool has_key_file = fs::exists(fs::path(dir) / "xor.dat", ec);
  if (ec) return ec;
  // Whether any blk file holds a byte: a key file that no record was
  // written with can be replaced.
  const bool holds_records = std::any_of(existing.value().begin(), existing.value().end(), [](const std::string& f) {
    std::error_code size_ec;
    return fs::file_size(f, size_ec) != 0 || size_ec;
  });
  if (has_key_file) {
    auto old_key = read_xor_key(dir);
    if (!old_key && old_key.error().code() == blockfiles::errc::bad_key_file && !holds_records) {
      if (auto r = write_xor_key(dir, key); !r) return r.error();
    } else if (!old_key) {
      return old_key.error();
    } else if (old_key.value() != key) {
      return blockfiles::errc::key_mismatch;
    }
  } else if (!existing.value().empty() && !is_zero(key)) {
    return blockfiles::errc::plain_files_present;
  } else if (auto r = write_xor_key(dir, key); !r) {
    return r.error();
  }

  if (existing.value().empty()) {
    if (auto r = state->create_file(0); !r) return r.error();
    return BlockFileWriter(std::move(state));
  }
  const std::string& last = existing.value().back();
  const unsigned number = *block_file_number(fs::path(last).filename().string());  // block_files() lists numbered names only
  std::uint64_t size = fs::file_size(last, ec);
  if (ec) return ec;
  auto tail = check_last_file(last, key, net, size);
  if (!tail) return tail.error();
  if (tail.value().torn) {
    if (::truncate(last.c_str(), static_cast<off_t>(tail.value().end)) != 0) return last_system_error();
    state->repair = BlockFileRepair{BlockFileRepair::kind::torn_record, BlockPosition{number, tail.value().end}, size - tail.value().end};
    size = tail.value().end;
  }
  if (tail.value().padded) {  // Core's pre-allocated tail: leave it, start the next file
    if (auto r = state->create_file(number + 1); !r) return r.error();
    return BlockFileWriter(std::move(state));
  }
  auto file = FileWriter::append(last.c_str());
  if (!file) return file.error();
  state->file.emplace(std::move(file).value());
  state->number = number;
  state->size = size;
  return BlockFileWriter(std::move(state));
}

result<BlockPosition> BlockFileWriter::append(const Block& block) {
  if (!state_) return blockfiles::errc::writer_closed;  // moved from
  return state_->append(serialized_size(block), [&](StreamWriter& w) { encode_block(block, w); });
}

result<BlockPosition> BlockFileWriter::append(std::span<const std::byte> block_bytes) {
  if (!state_) return blockfiles::errc::writer_closed;  // moved from
  return state_->append(block_bytes.size(), [&](StreamWriter& w) { w.write(block_bytes); });
}

result<void> BlockFileWriter::rewind(BlockPosition to) {
  if (!state_) return blockfiles::errc::writer_closed;
  State& s = *state_;
  if (s.file) {
    if (auto r = s.file->close(); !r && !s.failure) s.failure = r.error();
    s.file.reset();
  }
  for (unsigned n = s.number; n > to.file; --n) {
    if (n >= s.first_created && ::unlink(s.path_of(n).c_str()) != 0 && errno != ENOENT) return last_system_error();
  }
  const std::string path = s.path_of(to.file);
  if (to.offset == 0 && to.file >= s.first_created) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return last_system_error();
  } else if (::truncate(path.c_str(), static_cast<off_t>(to.offset)) != 0) {
    return last_system_error();
  }
  s.number = to.file;
  s.size = to.offset;
  if (s.batch && *s.batch == to) {
    s.batch.reset();
    if (::unlink(s.batch_path().c_str()) != 0 && errno != ENOENT) return last_system_error();
  }
  return success();
}

result<void> BlockFileWriter::begin_batch() {
  if (!state_ || !state_->file) return blockfiles::errc::writer_closed;
  State& s = *state_;
  if (s.batch) return blockfiles::errc::batch_in_progress;
  if (s.failure) return s.failure;
  const BlockPosition at{s.number, s.size};
  // The file it begins in must exist on disk, with its size, before the
  // record that names it does.
  if (auto r = s.file->sync(); !r) return r;
  if (auto r = sync_directory(s.dir.c_str()); !r) return r;
  const std::string text = detail::batch_record(at);
  if (auto r = write_file_atomically(s.batch_path().c_str(), std::as_bytes(std::span(text))); !r) return r;
  s.batch = at;
  return success();
}

result<void> BlockFileWriter::commit_batch() {
  if (!state_ || !state_->batch) return success();
  State& s = *state_;
  if (s.failure) return s.failure;
  if (s.file) {
    if (auto r = s.file->sync(); !r) return s.failure = r.error();
  }
  if (auto r = sync_directory(s.dir.c_str()); !r) return s.failure = r.error();  // the files the batch created
  if (::unlink(s.batch_path().c_str()) != 0) return s.failure = error(last_system_error());
  s.batch.reset();
  if (auto r = sync_directory(s.dir.c_str()); !r) return s.failure = r.error();
  return success();
}

result<void> BlockFileWriter::sync() {
  if (!state_ || !state_->file) return blockfiles::errc::writer_closed;
  State& s = *state_;
  if (s.failure) return s.failure;
  // The files left since the last call (closed, so opened again to be
  // synced), then the one open now.
  for (unsigned n = s.synced_from; n < s.number; ++n) {
    auto left = FileReader::open(s.path_of(n).c_str());
    if (!left) continue;  // (one this writer never wrote: nothing of it to sync)
    if (::fsync(left.value().fd()) != 0) return s.failure = error(last_system_error());
  }
  if (auto r = s.file->sync(); !r) return s.failure = r.error();
  if (auto r = sync_directory(s.dir.c_str()); !r) return s.failure = r.error();
  s.synced_from = s.number;
  return success();
}

const std::optional<BlockFileRepair>& BlockFileWriter::repaired() const noexcept {
  static const std::optional<BlockFileRepair> none;
  return state_ ? state_->repair : none;
}

BlockPosition BlockFileWriter::position() const noexcept {
  if (!state_) return {};
  return {state_->number, state_->size};
}

result<void> BlockFileWriter::close() {
  if (!state_) return success();
  result<void> r = success();
  if (state_->file) r = state_->file->close();
  state_->file.reset();
  state_->node_lock = FileDescriptor{};
  state_->lock = FileDescriptor{};
  return r;
}

}  // namespace blockwire
