// DIR/.blockwire-batch, where an open batch of appends began
// (BlockFileWriter::begin_batch): one line, "blockwire batch FILE OFFSET".
// The writer that opens the directory next removes what follows it; a
// reader leaves it out.
#pragma once

#include <blockwire/blockfiles/block_file_writer.hpp>
#include <blockwire/io/error.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace blockwire::detail {

inline constexpr const char* batch_file_name = ".blockwire-batch";

std::string batch_record(BlockPosition at);
std::optional<BlockPosition> parse_batch_record(const std::string& text);
// The batch's start in `blocks_dir`: nothing when there is no batch file;
// bad_batch_file when it does not parse.
result<std::optional<BlockPosition>> read_batch_start(const std::filesystem::path& blocks_dir);

}  // namespace blockwire::detail
