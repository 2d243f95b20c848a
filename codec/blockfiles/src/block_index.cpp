#include "batch_record.hpp"

#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/block_file_reader.hpp>
#include <blockwire/blockfiles/block_index.hpp>
#include <blockwire/codec/check.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/io/file.hpp>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <unistd.h>
#include <set>
#include <tuple>

namespace blockwire {

std::string IndexProblem::message() const {
  std::string text = block_file_name(file) + ":" + std::to_string(offset) + ": ";
  switch (what) {
    case kind::damaged_record: return text + reason + ", " + std::to_string(bytes) + " bytes skipped";
    case kind::bad_proof_of_work:
      return text + "the header's proof of work fails (its hash is above its target, or the target is easier than the network allows)";
    case kind::unlinked: return text + "the block links to no block of the chain (its parent is missing or was left out)";
    case kind::unfinished_batch:
      return text + std::to_string(bytes) +
             " records of an append that did not finish (its writer died) left out; the next fetch or pack removes them";
    case kind::unreadable_file: return block_file_name(file) + ": cannot be read: " + reason;
    case kind::torn_record:
      return text + "the file ends inside a record (" + std::to_string(bytes) +
             " bytes): a write interrupted by a crash; the next fetch or pack cuts it off";
  }
  return text;
}

void BlockIndex::add_record_problem(IndexProblem p) {
  ++record_problem_count_;
  if (record_problems_.size() < max_listed) record_problems_.push_back(std::move(p));
}

result<BlockIndex> BlockIndex::build(const std::string& blocks_dir, const XorKey& key, network net) {
  BlockIndex index;
  index.dir_ = blocks_dir;
  index.key_ = key;
  index.net_ = net;
  auto files = block_files(blocks_dir);
  if (!files) return files.error();
  const std::size_t before = index.blocks_.size();
  if (auto r = index.read_files(files.value(), 0, 0); !r) return r.error();
  if (index.uncommitted_) {
    index.add_record_problem(
        {IndexProblem::kind::unfinished_batch, index.uncommitted_->file, index.uncommitted_->offset, index.uncommitted_records_, {}});
  }
  index.link(before);
  return index;
}

result<BlockIndex> BlockIndex::build_from(const std::string& blocks_dir, const XorKey& key, network net, std::span<const KnownBlock> known,
                                          const std::optional<Hash256>& tip, BlockPosition resume) {
  BlockIndex index(blocks_dir, net, key);
  index.blocks_.reserve(known.size());
  for (const KnownBlock& k : known) {
    if (!index.by_hash_.emplace(k.hash, index.blocks_.size()).second) continue;
    IndexedBlock b;
    b.hash = k.hash;
    b.header = k.header;
    b.file = k.at.file;
    b.offset = k.at.offset;
    b.failed = k.failed;
    index.blocks_.push_back(b);
  }
  index.link(0);
  if (tip) {
    const auto at = index.by_hash_.find(*tip);
    if (at != index.by_hash_.end() && index.blocks_[at->second].height >= 0 && !index.blocks_[at->second].failed) {
      index.move_tip(at->second);
    }
  }
  auto files = block_files(blocks_dir);
  if (!files) return files.error();
  const std::size_t before = index.blocks_.size();
  if (auto r = index.read_files(files.value(), resume.file, resume.offset); !r) return r.error();
  index.link(before);
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
    const Hash256 old_tip = best_.empty() ? Hash256{} : blocks_[best_.back()].hash;
    auto again = build(dir_, key_, net_);
    if (!again) return again.error();
    *this = std::move(again).value();
    return (best_.empty() ? Hash256{} : blocks_[best_.back()].hash) != old_tip;
  }
  // An append whose writer died, and no writer since: nothing new can
  // follow it until one opens the directory (and removes it).
  if (uncommitted_ && !being_written(dir_)) {
    auto batch = detail::read_batch_start(dir_);
    if (batch && batch.value() == uncommitted_) return false;
  }
  const std::size_t before = blocks_.size();
  const std::uint64_t problems_before = record_problem_count_;
  if (auto r = read_files(files.value(), resume_file_, resume_offset_); !r) return r.error();
  if (blocks_.size() == before && record_problem_count_ == problems_before) return false;
  const std::size_t old_tip = best_.empty() ? IndexedBlock::none : best_.back();
  link(before);
  return (best_.empty() ? IndexedBlock::none : best_.back()) != old_tip;
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
    // end the last file as a record cut short (torn, or being written).
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
      IndexedBlock b;
      b.hash = block_hash(header);
      last_record_ = BlockPosition{number, record->offset};
      last_record_hash_ = b.hash;
      b.header = header;
      b.file = number;
      b.offset = record->offset;
      if (!proof_of_work_ok(b.hash, header.bits, net_)) {
        add_record_problem({IndexProblem::kind::bad_proof_of_work, number, b.offset, 0, {}});
        continue;
      }
      if (by_hash_.emplace(b.hash, blocks_.size()).second) blocks_.push_back(b);  // a duplicate: the first stays
    }
    if (uncommitted_) std::erase_if(skipped, [&](const SkippedBytes& k) { return is_uncommitted(number, k.offset); });
    const bool cut_short = !skipped.empty() && skipped.front().cut_short();
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

void BlockIndex::link(std::size_t first_new) {
  // The blocks to place: the new ones, and those that linked to nothing so
  // far (their parent may have come). Each walks up to a linked ancestor
  // first (blocks come in any order); a walk stops at a block already
  // walked this round, so the work is linear.
  std::vector<std::size_t> candidates = std::move(orphans_);
  orphans_.clear();
  for (std::size_t i = first_new; i < blocks_.size(); ++i) candidates.push_back(i);
  walked_.resize(blocks_.size(), 0);
  ++round_;
  std::vector<std::size_t> path;
  std::size_t tip = best_.empty() ? IndexedBlock::none : best_.back();
  for (const std::size_t i : candidates) {
    std::size_t at = i;
    while (walked_[at] != round_ && blocks_[at].height < 0) {
      walked_[at] = round_;
      path.push_back(at);
      if (blocks_[at].header.prev_block.is_zero()) break;
      const auto parent = by_hash_.find(blocks_[at].header.prev_block);
      if (parent == by_hash_.end()) break;
      at = parent->second;
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) place(*it);
    path.clear();
  }
  for (const std::size_t i : candidates) {
    const IndexedBlock& b = blocks_[i];
    if (b.height < 0) {
      orphans_.push_back(i);
      continue;
    }
    if (b.failed) continue;
    // The tip: the most work; among equals, the first found (Core keeps
    // the block it received first).
    if (tip == IndexedBlock::none || !at_most(b.chainwork, blocks_[tip].chainwork) || (b.chainwork == blocks_[tip].chainwork && i < tip)) {
      tip = i;
    }
  }
  std::sort(orphans_.begin(), orphans_.end());
  orphan_parents_.clear();
  for (const std::size_t i : orphans_) orphan_parents_.insert(blocks_[i].header.prev_block);
  move_tip(tip);
  // The problems: what reading found, then the blocks linked to nothing.
  problems_ = record_problems_;
  problem_count_ = record_problem_count_;
  for (const std::size_t i : orphans_) {
    ++problem_count_;
    if (problems_.size() < max_listed) problems_.push_back({IndexProblem::kind::unlinked, blocks_[i].file, blocks_[i].offset, 0, {}});
  }
  std::sort(problems_.begin(), problems_.end(),
            [](const IndexProblem& a, const IndexProblem& b) { return std::tie(a.file, a.offset) < std::tie(b.file, b.offset); });
}

void BlockIndex::move_tip(std::size_t tip) {
  if (tip == IndexedBlock::none || (!best_.empty() && best_.back() == tip)) return;
  // From the new tip down to where it meets the old best chain.
  const std::size_t kept = std::min(best_.size(), static_cast<std::size_t>(blocks_[tip].height) + 1);
  best_.resize(static_cast<std::size_t>(blocks_[tip].height) + 1);
  for (std::size_t at = tip; at != IndexedBlock::none; at = blocks_[at].parent) {
    const auto h = static_cast<std::size_t>(blocks_[at].height);
    if (h < kept && best_[h] == at) break;
    best_[h] = at;
  }
}

void BlockIndex::add(const BlockHeader& header, const Hash256& hash, BlockPosition at) {
  if (by_hash_.contains(hash)) return;
  IndexedBlock b;
  b.hash = hash;
  b.header = header;
  b.file = at.file;
  b.offset = at.offset;
  by_hash_.emplace(hash, blocks_.size());
  blocks_.push_back(b);
  const std::size_t self = blocks_.size() - 1;
  // The usual case, in constant time: its parent is linked and no block
  // waits for it. (Otherwise the blocks waiting are linked too.)
  if (orphan_parents_.contains(hash) || !place(self)) return link(self);
  if (blocks_[self].failed) return;
  if (best_.empty() || !at_most(blocks_[self].chainwork, blocks_[best_.back()].chainwork)) move_tip(self);
}

bool BlockIndex::place(std::size_t i) {
  IndexedBlock& b = blocks_[i];
  const Hash256 work = work_from_bits(b.header.bits);
  if (b.header.prev_block.is_zero()) {
    b.height = 0;
    b.chainwork = work;
    return true;
  }
  const auto parent = by_hash_.find(b.header.prev_block);
  if (parent == by_hash_.end() || blocks_[parent->second].height < 0) return false;
  const IndexedBlock& p = blocks_[parent->second];
  b.parent = parent->second;
  b.height = p.height + 1;
  b.failed = b.failed || p.failed;
  b.chainwork = add_work(p.chainwork, work);
  return true;
}

std::int64_t BlockIndex::height_of(const Hash256& hash) const {
  const IndexedBlock* b = find(hash);
  if (b == nullptr || b->height < 0 || static_cast<std::size_t>(b->height) >= best_.size()) return -1;
  return &blocks_[best_[static_cast<std::size_t>(b->height)]] == b ? b->height : -1;
}

std::vector<Hash256> BlockIndex::locator() const {
  std::vector<Hash256> hashes;
  if (best_.empty()) return hashes;
  std::int64_t step = 1;
  for (std::int64_t h = height(); h > 0; h -= step) {
    hashes.push_back(blocks_[best_[static_cast<std::size_t>(h)]].hash);
    if (hashes.size() > 10) step *= 2;  // as Core: eleven one apart, then doubling
  }
  hashes.push_back(blocks_[best_.front()].hash);
  return hashes;
}

const IndexedBlock* BlockIndex::find(const Hash256& hash) const {
  const auto it = by_hash_.find(hash);
  return it == by_hash_.end() ? nullptr : &blocks_[it->second];
}

ChainInfo BlockIndex::chain_info(const IndexedBlock& b) const {
  ChainInfo info{b.height, -1, b.header.time, b.chainwork, std::nullopt};
  const std::size_t self = static_cast<std::size_t>(&b - blocks_.data());
  const bool on_best =
      b.height >= 0 && static_cast<std::size_t>(b.height) < best_.size() && best_[static_cast<std::size_t>(b.height)] == self;
  if (on_best) {
    info.confirmations = static_cast<std::int64_t>(best_.size()) - b.height;
    if (static_cast<std::size_t>(b.height) + 1 < best_.size()) info.next = blocks_[best_[static_cast<std::size_t>(b.height) + 1]].hash;
  }
  // Core's GetMedianTimePast: the middle of the sorted times of the block
  // and up to ten ancestors.
  std::vector<std::uint32_t> times;
  for (std::size_t at = self; at != IndexedBlock::none && times.size() < 11; at = blocks_[at].parent)
    times.push_back(blocks_[at].header.time);
  std::sort(times.begin(), times.end());
  info.median_time = times[times.size() / 2];
  return info;
}

std::string BlockIndex::file_path(unsigned file) const { return (std::filesystem::path(dir_) / block_file_name(file)).string(); }

}  // namespace blockwire
