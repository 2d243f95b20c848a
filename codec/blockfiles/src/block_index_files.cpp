// The index from the blk files: built by reading every record (or from a
// node's index, then the records past it), read again for what a writer
// appended, and each block's header read back from its record. The tree
// and the best chain are block_index.cpp's.
#include "batch_record.hpp"

#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/block_file_reader.hpp>
#include <blockwire/blockfiles/block_index.hpp>
#include <blockwire/codec/check.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/xor.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <unistd.h>
#include <map>
#include <set>
#include <tuple>

namespace blockwire {

result<BlockIndex> BlockIndex::build(const std::string& blocks_dir, const XorKey& key, network net) {
  BlockIndex index(blocks_dir, net, key);
  auto files = block_files(blocks_dir);
  if (!files) return files.error();
  index.bulk_ = true;
  if (auto r = index.read_files(files.value(), 0, 0); !r) return r.error();
  if (index.uncommitted_) {
    index.add_record_problem(
        {IndexProblem::kind::unfinished_batch, index.uncommitted_->file, index.uncommitted_->offset, index.uncommitted_records_, {}});
  }
  index.link_bulk(std::nullopt);
  index.first_read_ = index.size();  // (placed by the build: what a refresh reads comes after)
  index.gather_problems();
  return index;
}

result<BlockIndex> BlockIndex::build_from(const std::string& blocks_dir, const XorKey& key, network net, const KnownBlocks& each,
                                          const std::optional<BlockHash>& tip) {
  BlockIndex index(blocks_dir, net, key);
  index.bulk_ = true;
  index.bulk_newest_wins_ = true;
  auto resume = each(
      [&](const KnownBlock& k) {
        if (k.erased) {
          index.bulk_erased_.push_back(static_cast<std::uint32_t>(index.entries_.size()));
          index.push(k.hash, BlockHash::all_zeros(), {0, 0}, 0, 0, false, std::nullopt, false);
          return;
        }
        index.push(k.hash, k.header.prev_block, k.pruned ? BlockPosition{0, 0} : k.at, k.header.time, k.header.bits, k.failed,
                   k.pruned ? std::nullopt : k.undo_offset, k.may_be_tip && !k.pruned, k.pruned);
        if (k.pruned) {
          index.pruned_headers_.resize(index.entries_.size());
          index.pruned_headers_.back() = {k.header.version, k.header.merkle_root, k.header.nonce, k.tx_count};
        }
      },
      [&](std::size_t n) {
        index.entries_.reserve(n);
        index.bulk_prev_.reserve(n);
      });
  if (!resume) return resume.error();
  const bool erased = !index.bulk_erased_.empty();
  index.link_bulk(tip);
  index.first_read_ = index.size();
  // Where the files are read on from: past what the node's index still
  // knows (a deleted entry's block is read from its record again).
  BlockPosition from = resume.value();
  if (erased) {
    from = {0, 0};
    for (std::size_t id = 0; id < index.size(); ++id) {
      const IndexedBlock b = index.block(id);
      if (!b.pruned && std::tie(b.file, b.offset) > std::tie(from.file, from.offset)) from = {b.file, b.offset};
    }
  }
  auto files = block_files(blocks_dir);
  if (!files) return files.error();
  if (auto r = index.read_files(files.value(), from.file, from.offset); !r) return r.error();
  index.link_fresh();
  index.gather_problems();
  return index;
}

result<bool> BlockIndex::refresh() {
  auto files = block_files(dir_);
  if (!files) return files.error();
  // Append-only, or read again: a file cut back below where reading stopped
  // (a writer's repair), or files gone, make the old positions meaningless.
  std::error_code ec;
  const bool shrank =
      !files.value().empty() && block_file_number(std::filesystem::path(files.value().back()).filename().string()) < resume_file_;
  const std::string resume_path = file_path(resume_file_);
  const bool cut = std::filesystem::exists(resume_path, ec) && std::filesystem::file_size(resume_path, ec) < resume_offset_;
  // The last record read must still be there: a writer that cut the
  // directory back (an unfinished batch it removed) may have written past
  // the old end again since.
  bool rewritten = false;
  if (last_record_ && !shrank && !cut) {
    auto bytes = read_block_record(file_path(last_record_->file), last_record_->offset, key_, net_);
    rewritten = !bytes || bytes.value().size() < header_size ||
                block_hash(decode_header(std::span<const std::byte>(bytes.value()).first(header_size)).value()) != last_record_hash_;
  }
  if (shrank || cut || rewritten) {
    const BlockHash old_tip = empty() ? BlockHash::all_zeros() : tip();
    auto again = build(dir_, key_, net_);
    if (!again) return again.error();
    const std::uint64_t generation = generation_ + 1;
    *this = std::move(again).value();
    generation_ = generation;
    return (empty() ? BlockHash::all_zeros() : tip()) != old_tip;
  }
  // An append whose writer died, and no writer since: nothing new can
  // follow it until one opens the directory (and removes it).
  if (uncommitted_ && !being_written(dir_)) {
    auto batch = detail::read_batch_start(dir_);
    if (batch && batch.value() == uncommitted_) return false;
  }
  const std::size_t before = entries_.size();
  const std::uint64_t problems_before = record_problem_count_;
  if (auto r = read_files(files.value(), resume_file_, resume_offset_); !r) return r.error();
  if (entries_.size() == before && record_problem_count_ == problems_before) return false;
  const std::uint32_t old_tip = best_.size() == 0 ? no_id : best_[best_.size() - 1];
  link_fresh();
  gather_problems();
  return (best_.size() == 0 ? no_id : best_[best_.size() - 1]) != old_tip;
}

result<void> BlockIndex::read_files(const std::vector<std::string>& files, unsigned from_file, std::uint64_t from_offset) {
  being_written_ = being_written(dir_);
  // An append that never committed (its writer died): what it wrote is not
  // the directory's yet; the next writer removes it. While a writer holds
  // the lock, it is being written.
  auto batch = detail::read_batch_start(dir_);
  if (!batch) return batch.error();
  uncommitted_ = being_written_ ? std::nullopt : batch.value();
  const auto is_uncommitted = [&](unsigned file, std::uint64_t offset) {
    return uncommitted_ && (file > uncommitted_->file || (file == uncommitted_->file && offset >= uncommitted_->offset));
  };
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::string& path = files[f];
    const bool last_file = f + 1 == files.size();
    const unsigned number = *block_file_number(std::filesystem::path(path).filename().string());
    if (number < from_file) continue;
    const std::uint64_t start = number == from_file ? from_offset : 0;
    auto file = FileReader::open(path.c_str());
    if (!file) {
      if (unreadable_.insert(number).second)
        add_record_problem({IndexProblem::kind::unreadable_file, number, 0, 0, file.error().message()});
      if (last_file) resume_file_ = number;  // (a refresh tries it again, and says it once)
      continue;
    }
    if (start != 0 && ::lseek(file.value().fd(), static_cast<off_t>(start), SEEK_SET) < 0) {
      return std::error_code(errno, std::system_category());
    }
    BlockFileReader reader(file.value(), key_, net_, start);
    // Skipped stretches since the last whole record: damage, unless they
    // end the last file as a record cut short (torn, or being written) or,
    // while a writer holds the lock, as a record found there on a second look.
    std::vector<SkippedBytes> skipped;
    std::uint64_t end = start;  // of the last whole record read, or of damage reported after it
    const auto report_skipped = [&] {
      for (const SkippedBytes& k : skipped) {
        add_record_problem({IndexProblem::kind::damaged_record, number, k.offset, k.count, k.message()});
        end = std::max(end, k.offset + k.count);
      }
      skipped.clear();
    };
    for (;;) {
      auto event = reader.next();
      if (!event) return event.error();
      if (!event.value()) break;
      const auto* record = std::get_if<BlockRecord>(&*event.value());
      if (record == nullptr) {
        skipped.push_back(std::get<SkippedBytes>(*event.value()));
        continue;
      }
      report_skipped();
      if (torn_reported_ && *torn_reported_ == BlockPosition{number, record->offset}) {  // repaired, and written whole since
        if (std::erase_if(record_problems_, [](const IndexProblem& p) { return p.what == IndexProblem::kind::torn_record; }) != 0) {
          --record_problem_count_;
        }
        torn_reported_.reset();
      }
      if (is_uncommitted(number, record->offset)) {
        ++uncommitted_records_;
        continue;
      }
      end = record->offset + 8 + record->bytes.size();
      // A record's length is at least 81 (BlockFileReader): the header decodes.
      const BlockHeader header = decode_header(record->bytes.first(header_size)).value();
      const BlockHash hash = block_hash(header);
      last_record_ = BlockPosition{number, record->offset};
      last_record_hash_ = hash;
      if (!proof_of_work_ok(hash, header.bits, net_)) {
        add_record_problem({IndexProblem::kind::bad_proof_of_work, number, record->offset, 0, {}});
        continue;
      }
      push(hash, header.prev_block, {number, record->offset}, header.time, header.bits, false, std::nullopt);
    }
    if (uncommitted_) std::erase_if(skipped, [&](const SkippedBytes& k) { return is_uncommitted(number, k.offset); });
    bool cut_short = !skipped.empty() && skipped.front().cut_short();
    if (last_file && being_written_ && !skipped.empty() && !cut_short) {  // read while written? A second look decides.
      auto again = record_begins_at(path, skipped.front().offset, key_, net_);
      if (!again) return again.error();
      cut_short = again.value();
    }
    if (last_file && cut_short) {
      // Torn (said once: a refresh reads it again), or being written.
      const BlockPosition at{number, skipped.front().offset};
      if (!being_written_ && torn_reported_ != at) {
        std::uint64_t bytes = 0;
        for (const SkippedBytes& k : skipped) bytes += k.count;
        add_record_problem({IndexProblem::kind::torn_record, number, at.offset, bytes, {}});
        torn_reported_ = at;
      }
      skipped.clear();
    }
    report_skipped();
    // A refresh goes on after the last whole record of the last file (or
    // where an unfinished batch began: the writer that removes it appends there).
    if (last_file) {
      resume_file_ = number;
      resume_offset_ = uncommitted_ && uncommitted_->file == number ? std::min(end, uncommitted_->offset) : end;
    }
  }
  return success();
}

result<BlockHeader> BlockIndex::header(const IndexedBlock& b) const {
  if (b.pruned) {
    // Put together from what the index keeps, and checked against the hash.
    if (b.id >= pruned_headers_.size()) return error(blockfiles::errc::pruned);
    const PrunedHeader& p = pruned_headers_[b.id];
    BlockHeader h;
    h.version = p.version;
    if (const auto parent = parent_of(static_cast<std::uint32_t>(b.id))) h.prev_block = entries_[*parent].hash;
    h.merkle_root = p.merkle_root;
    h.time = b.time;
    h.bits = b.bits;
    h.nonce = p.nonce;
    if (block_hash(h) != b.hash) return error(blockfiles::errc::pruned);
    return h;
  }
  return read_block_header(file_path(b.file), b.offset, key_, net_, b.hash);
}

std::vector<BlockIndex::UndoGap> BlockIndex::files_without_undo() const {
  std::map<unsigned, UndoGap> files;
  std::set<unsigned> lacking;
  const std::uint32_t genesis = best_.size() == 0 ? no_id : best_[0];
  for (std::size_t id = 0; id < entries_.size(); ++id) {
    const Entry& e = entries_[id];
    if ((e.file_word & Entry::no_data) != 0) continue;  // (nothing to pair: its data is gone)
    const unsigned file = e.file_word & ((1u << Entry::file_bits) - 1);
    UndoGap& gap = files.try_emplace(file, UndoGap{file, std::nullopt}).first->second;
    if ((e.file_word & Entry::undo_known) != 0) {
      gap.last_known = std::max(gap.last_known.value_or(0), e.undo_offset);
    } else if (id != genesis) {
      lacking.insert(file);
    }
  }
  std::vector<UndoGap> out;
  for (const unsigned file : lacking) out.push_back(files.at(file));
  return out;
}

}  // namespace blockwire
