#include "scan_records.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/io/file.hpp>

#include <optional>

namespace blockwire::cli {

result<void> scan_records(const FileToScan& file, network net, CheckPipeline& pipeline, Progress& progress,
                          std::uint64_t& records) {
  auto opened = FileReader::open(file.path.c_str());
  if (!opened) return opened.error();
  BlockFileReader reader(opened.value(), file.key, net);
  Block validated;                           // reused: decoding here only says whether the record holds a block
  std::optional<std::string> decode_failure;  // of the record just rejected: reported with the bytes it skips
  std::uint64_t found = 0;
  for (;;) {
    auto event = reader.next();
    if (!event) return event.error();
    if (!event.value()) return success();
    if (const auto* record = std::get_if<BlockRecord>(&*event.value())) {
      if (auto decoded = decode_block(record->bytes, validated); !decoded) {
        // The error's offset is within the block; the user wants the file's.
        const error& e = decoded.error();
        decode_failure = e.code().message() +
                         (e.has_offset() ? " at byte " + std::to_string(record->offset + 8 + e.offset()) + " of the file" : "");
        reader.reject_last();
        continue;
      }
      ++found;
      std::vector<std::byte> bytes = pipeline.buffer();
      bytes.assign(record->bytes.begin(), record->bytes.end());
      pipeline.submit({file.index, record->offset, std::move(bytes)});
      progress.update(file.progress_base + record->offset, ++records);
      continue;
    }
    const auto& skipped = std::get<SkippedBytes>(*event.value());
    std::string reason = skipped.message();
    const bool failed_block = skipped.reason == blockfile_errc::undecodable_block;
    if (failed_block && decode_failure) {
      reason += " (" + *decode_failure + "); skipped to the next magic";
      decode_failure.reset();
    }
    const bool framing = skipped.reason != blockfile_errc::zero_bytes && skipped.reason != blockfile_errc::undecodable_block;
    if (found == 0 && skipped.offset == 0 && framing) {
      reason += " at the start of the file: is the XOR key right? (xor.dat, --xor-key) Is it --network's file?";
    }
    pipeline.add_problem({file.index, skipped.offset, skipped.count, std::move(reason), failed_block});
  }
}

}  // namespace blockwire::cli
