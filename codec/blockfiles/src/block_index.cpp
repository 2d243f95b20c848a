#include "batch_record.hpp"

#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/block_file_reader.hpp>
#include <blockwire/blockfiles/block_index.hpp>
#include <blockwire/codec/check.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/io/file.hpp>

#include <algorithm>
#include <filesystem>
#include <tuple>

namespace blockwire {

std::string IndexProblem::message() const {
  std::string text = block_file_name(file) + ":" + std::to_string(offset) + ": ";
  switch (what) {
    case kind::damaged_record: return text + reason + ", " + std::to_string(bytes) + " bytes skipped";
    case kind::bad_proof_of_work: return text + "the header's proof of work fails (its hash is above its target, or the target is easier than the network allows)";
    case kind::unlinked: return text + "the block links to no block of the chain (its parent is missing or was left out)";
    case kind::unfinished_batch:
      return text + std::to_string(bytes) + " records of an append that did not finish (its writer died) left out; the next fetch or pack removes them";
    case kind::unreadable_file: return block_file_name(file) + ": cannot be read: " + reason;
    case kind::torn_record:
      return text + "the file ends inside a record (" + std::to_string(bytes) + " bytes): a write interrupted by a crash; the next fetch or pack cuts it off";
  }
  return text;
}

void BlockIndex::add_problem(IndexProblem p) {
  ++problem_count_;
  if (problems_.size() < max_listed) problems_.push_back(std::move(p));
}

result<BlockIndex> BlockIndex::build(const std::string& blocks_dir, const XorKey& key, network net) {
  BlockIndex index;
  index.dir_ = blocks_dir;
  index.being_written_ = being_written(blocks_dir);
  auto files = block_files(blocks_dir);
  if (!files) return files.error();
  // An append that never committed (its writer died): what it wrote is not
  // the directory's yet; the next writer removes it. While a writer holds
  // the lock, it is being written.
  auto batch = detail::read_batch_start(blocks_dir);
  if (!batch) return batch.error();
  std::optional<BlockPosition> uncommitted = index.being_written_ ? std::nullopt : batch.value();
  std::uint64_t uncommitted_records = 0;
  const auto is_uncommitted = [&](unsigned file, std::uint64_t offset) {
    return uncommitted && (file > uncommitted->file || (file == uncommitted->file && offset >= uncommitted->offset));
  };
  for (std::size_t f = 0; f < files.value().size(); ++f) {
    const std::string& path = files.value()[f];
    const bool last_file = f + 1 == files.value().size();
    const unsigned number = *block_file_number(std::filesystem::path(path).filename().string());
    auto file = FileReader::open(path.c_str());
    if (!file) {
      index.add_problem({IndexProblem::kind::unreadable_file, number, 0, 0, file.error().message()});
      continue;
    }
    BlockFileReader reader(file.value(), key, net);
    // Skipped stretches since the last whole record: damage, unless they
    // end the last file as a record cut short (torn, or being written).
    std::vector<SkippedBytes> skipped;
    const auto report_skipped = [&] {
      for (const SkippedBytes& k : skipped) index.add_problem({IndexProblem::kind::damaged_record, number, k.offset, k.count, k.message()});
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
      if (is_uncommitted(number, record->offset)) {
        ++uncommitted_records;
        continue;
      }
      // A record's length is at least 81 (BlockFileReader): the header decodes.
      const BlockHeader header = decode_header(record->bytes.first(header_size)).value();
      IndexedBlock b;
      b.hash = block_hash(header);
      b.header = header;
      b.file = number;
      b.offset = record->offset;
      if (!proof_of_work_ok(b.hash, header.bits, net)) {
        index.add_problem({IndexProblem::kind::bad_proof_of_work, number, b.offset, 0, {}});
        continue;
      }
      if (index.by_hash_.emplace(b.hash, index.blocks_.size()).second) index.blocks_.push_back(b);  // a duplicate: the first stays
    }
    if (uncommitted) std::erase_if(skipped, [&](const SkippedBytes& k) { return is_uncommitted(number, k.offset); });
    const bool cut_short = !skipped.empty() && (skipped.front().reason == blockfile_errc::truncated_record_header ||
                                                skipped.front().reason == blockfile_errc::record_past_end);
    if (last_file && cut_short) {
      if (!index.being_written_) {
        std::uint64_t bytes = 0;
        for (const SkippedBytes& k : skipped) bytes += k.count;
        index.add_problem({IndexProblem::kind::torn_record, number, skipped.front().offset, bytes, {}});
      }
      skipped.clear();
    }
    report_skipped();
  }

  // Link each block to its parent and give it a height and chain work,
  // walking up to a resolved ancestor first (blocks come in any order).
  std::vector<bool> resolved(index.blocks_.size(), false);
  std::vector<std::size_t> path;
  for (std::size_t i = 0; i < index.blocks_.size(); ++i) {
    std::size_t at = i;
    while (!resolved[at]) {
      path.push_back(at);
      const auto parent = index.by_hash_.find(index.blocks_[at].header.prev_block);
      if (parent == index.by_hash_.end() || resolved[parent->second] ||
          std::find(path.begin(), path.end(), parent->second) != path.end()) {
        break;
      }
      at = parent->second;
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      IndexedBlock& b = index.blocks_[*it];
      const auto parent = index.by_hash_.find(b.header.prev_block);
      const Hash256 work = work_from_bits(b.header.bits);
      if (b.header.prev_block.is_zero()) {
        b.height = 0;
        b.chainwork = work;
      } else if (parent != index.by_hash_.end() && resolved[parent->second] && index.blocks_[parent->second].height >= 0) {
        const IndexedBlock& p = index.blocks_[parent->second];
        b.parent = parent->second;
        b.height = p.height + 1;
        b.chainwork = add_work(p.chainwork, work);
      }
      resolved[*it] = true;
    }
    path.clear();
  }

  if (uncommitted) index.add_problem({IndexProblem::kind::unfinished_batch, uncommitted->file, uncommitted->offset, uncommitted_records, {}});
  for (const IndexedBlock& b : index.blocks_) {
    if (b.height < 0) index.add_problem({IndexProblem::kind::unlinked, b.file, b.offset, 0, {}});
  }
  std::sort(index.problems_.begin(), index.problems_.end(),
            [](const IndexProblem& a, const IndexProblem& b) { return std::tie(a.file, a.offset) < std::tie(b.file, b.offset); });

  // The tip: the most work; among equals, the first found (Core keeps the
  // block it received first).
  std::size_t tip = IndexedBlock::none;
  for (std::size_t i = 0; i < index.blocks_.size(); ++i) {
    const IndexedBlock& b = index.blocks_[i];
    if (b.height < 0) continue;
    if (tip == IndexedBlock::none || !at_most(b.chainwork, index.blocks_[tip].chainwork)) tip = i;
  }
  if (tip != IndexedBlock::none) {
    index.best_.resize(static_cast<std::size_t>(index.blocks_[tip].height) + 1);
    for (std::size_t at = tip; at != IndexedBlock::none; at = index.blocks_[at].parent) {
      index.best_[static_cast<std::size_t>(index.blocks_[at].height)] = at;
    }
  }
  return index;
}

const IndexedBlock* BlockIndex::find(const Hash256& hash) const {
  const auto it = by_hash_.find(hash);
  return it == by_hash_.end() ? nullptr : &blocks_[it->second];
}

ChainInfo BlockIndex::chain_info(const IndexedBlock& b) const {
  ChainInfo info{b.height, -1, b.header.time, b.chainwork, std::nullopt};
  const std::size_t self = static_cast<std::size_t>(&b - blocks_.data());
  const bool on_best = b.height >= 0 && static_cast<std::size_t>(b.height) < best_.size() && best_[static_cast<std::size_t>(b.height)] == self;
  if (on_best) {
    info.confirmations = static_cast<std::int64_t>(best_.size()) - b.height;
    if (static_cast<std::size_t>(b.height) + 1 < best_.size()) info.next = blocks_[best_[static_cast<std::size_t>(b.height) + 1]].hash;
  }
  // Core's GetMedianTimePast: the middle of the sorted times of the block
  // and up to ten ancestors.
  std::vector<std::uint32_t> times;
  for (std::size_t at = self; at != IndexedBlock::none && times.size() < 11; at = blocks_[at].parent) times.push_back(blocks_[at].header.time);
  std::sort(times.begin(), times.end());
  info.median_time = times[times.size() / 2];
  return info;
}

std::string BlockIndex::file_path(unsigned file) const { return (std::filesystem::path(dir_) / block_file_name(file)).string(); }

}  // namespace blockwire
