#include "scan_records.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/io/file.hpp>

#include <optional>

namespace blockwire::detail {

namespace {

// Adjacent damaged stretches (magic and garbage, again and again) become
// one problem, so memory and output follow the records, not the damage.
class SkipMerger {
 public:
  SkipMerger(CheckPipeline& pipeline) : pipeline_(pipeline) {}
  void add(ScanProblem p) {
    if (pending_ && !p.failed_block && !pending_->failed_block && p.offset == pending_->offset + pending_->skipped_bytes) {
      pending_->skipped_bytes += p.skipped_bytes;
      ++merged_;
      return;
    }
    flush();
    pending_ = std::move(p);
  }
  void flush() {
    if (!pending_) return;
    if (merged_ != 0) pending_->reason += ", then " + std::to_string(merged_) + " more damaged stretches";
    pipeline_.add_problem(std::move(*pending_));
    pending_.reset();
    merged_ = 0;
  }

 private:
  CheckPipeline& pipeline_;
  std::optional<ScanProblem> pending_;
  std::uint64_t merged_ = 0;
};

}  // namespace

result<std::optional<std::uint64_t>> scan_records(const FileToScan& file, network net, CheckPipeline& pipeline,
                                                  const std::function<void(std::uint64_t, std::uint64_t)>& progress,
                                                  std::uint64_t& records) {
  auto opened = FileReader::open(file.path.c_str());
  if (!opened) return opened.error();
  BlockFileReader reader(opened.value(), file.key, net);
  std::optional<std::string> decode_failure;  // of the record just rejected: reported with the bytes it skips
  SkipMerger skips(pipeline);
  std::uint64_t found = 0;
  // Being written: what follows the last whole record waits here until a
  // record follows it (then it was damage) or the file ends (then, if it
  // begins as a record cut short, or a record is there on a second look,
  // it is the record being written).
  std::vector<std::pair<ScanProblem, bool>> after_last;  // each with whether it is a record cut short
  const auto release = [&] {
    for (auto& [p, cut_short] : after_last) skips.add(std::move(p));
    after_last.clear();
  };
  for (;;) {
    auto event = reader.next();
    if (!event) {
      release();
      skips.flush();
      return event.error();
    }
    if (!event.value()) break;
    if (const auto* record = std::get_if<BlockRecord>(&*event.value())) {
      release();
      // A view: one validating pass, no objects; the workers decode.
      if (auto decoded = BlockView::parse(record->bytes); !decoded) {
        // The error's offset is within the block; the user wants the file's.
        const error& e = decoded.error();
        std::string what =
            e.code().message() + (e.has_offset() ? " at byte " + std::to_string(record->offset + 8 + e.offset()) + " of the file" : "");
        if (reader.reject_last(e.has_offset() ? e.offset() : record->bytes.size())) {
          decode_failure = std::move(what);
        } else {
          skips.add({file.index, record->offset, 8 + record->bytes.size(),
                     "the record's block does not decode (" + what + "); skipped by its length (resync budget for this stretch spent)",
                     true});
        }
        continue;
      }
      skips.flush();
      ++found;
      std::vector<std::byte> bytes = pipeline.buffer();
      bytes.assign(record->bytes.begin(), record->bytes.end());
      pipeline.submit({file.index, record->offset, std::move(bytes)});
      ++records;
      if (progress) progress(file.progress_base + record->offset, records);
      continue;
    }
    const auto& skipped = std::get<SkippedBytes>(*event.value());
    std::string reason = skipped.message();
    const bool failed_block = skipped.reason == blockfiles::errc::undecodable_block;
    if (failed_block && decode_failure) {
      reason += " (" + *decode_failure + "); skipped to the next magic";
      decode_failure.reset();
    }
    const bool framing = skipped.reason != blockfiles::errc::zero_bytes && !failed_block;
    if (found == 0 && skipped.offset == 0 && framing) {
      reason += " at the start of the file: is the XOR key right? (xor.dat, --xor-key) Is it --network's file?";
    }
    ScanProblem problem{file.index, skipped.offset, skipped.count, std::move(reason), failed_block};
    if (file.being_written && after_last.size() < max_listed_problems) {
      after_last.emplace_back(std::move(problem), skipped.cut_short());
    } else {
      release();
      skips.add(std::move(problem));
    }
  }
  std::optional<std::uint64_t> unfinished;
  if (!after_last.empty()) {
    bool being_written = after_last.front().second;
    if (!being_written) {  // read while written? A second look decides.
      auto again = record_begins_at(file.path, after_last.front().first.offset, file.key, net);
      if (!again) {
        release();
        skips.flush();
        return again.error();
      }
      being_written = again.value();
    }
    if (being_written) {
      unfinished = after_last.front().first.offset;
      after_last.clear();
    }
  }
  release();
  skips.flush();
  return unfinished;
}

}  // namespace blockwire::detail
