// blockwire blocks: a blocks directory's best chain in height order, as
// getblock shows each block (verbosity 0, 1, 2 or 3) or one line a block.
// With rev files, their undo data gives each transaction's fee (2, 3) and
// each input's prevout (3), as Core prints them. What the index left out
// (damage, failed proof of work) and blocks whose undo data is damaged or
// missing are said on standard error, and the exit status is 1.
// Memory: the header index, an index of the undo records, one block.
#include "commands.hpp"
#include <blockwire/tables/core_json.hpp>
#include "damage_report.hpp"
#include <blockwire/tables/json_writer.hpp>
#include "text.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/undo.hpp>

#include <cstdio>
#include <optional>

namespace blockwire::cli {

int blocks(BlocksOptions o) {
  // Undo data, when the directory has it and the output shows it.
  auto opened = open_chain("blocks", o, o.json && o.verbosity >= 2);
  if (const int* status = std::get_if<int>(&opened)) {
    if (*status == ok && o.json) std::printf("[]\n");  // (nothing to show: still a JSON document)
    return *status;
  }
  const BlocksDirectory& dir = std::get<BlocksDirectory>(opened);
  // Blocks of a blk file whose rev file is there, but with no undo data
  // that pairs (damaged, or missing): said, not left out silently.
  std::uint64_t undo_missing = 0;
  std::optional<tables::JsonWriter> json;
  if (o.json) {
    json.emplace();
    json->begin_array();
  }
  for (const Height height : o.end.heights(o.first)) {
    const IndexedBlock b = dir.at_height(height);
    const std::string path = dir.index().file_path(b.file);
    auto bytes = dir.read_block(b);
    if (!bytes) {
      std::fprintf(stderr, "blockwire blocks: %s:%llu: %s\n", path.c_str(), static_cast<unsigned long long>(b.offset),
                   bytes.error().message().c_str());
      return exit_status_of(bytes.error());
    }
    auto view = BlockView::parse(bytes.value());
    if (!view) {
      std::fprintf(stderr, "blockwire blocks: %s:%llu: the block at height %llu does not decode: %s\n", path.c_str(),
                   static_cast<unsigned long long>(b.offset), static_cast<unsigned long long>(height.to_wire()),
                   view.error().message().c_str());
      return bad_data;
    }
    if (!json) {
      std::printf("%8llu  %s  %6zu tx  %9zu bytes\n", static_cast<unsigned long long>(height.to_wire()), b.hash.to_hex().c_str(),
                  view.value().transaction_count(), view.value().size());
      continue;
    }
    if (o.verbosity == 0) {
      json->string(to_hex(bytes.value()));
    } else {
      const ChainInfo info = dir.index().chain_info(b);
      std::optional<BlockUndo> undo;
      if (dir.has_undo()) {
        auto found = dir.undo_of(b, view.value());
        if (!found && found.error().code() != condition::bad_data) {
          std::fprintf(stderr, "blockwire blocks: reading the undo data of block %llu: %s\n",
                       static_cast<unsigned long long>(height.to_wire()), found.error().message().c_str());
          return usage_or_io;
        }
        if (found) {
          undo = std::move(found).value();
        } else if (++undo_missing <= 10) {
          std::fprintf(stderr, "blockwire blocks: %s/%s: no undo data for block %llu (%s): %s: its fees and prevouts are left out\n",
                       o.dir.c_str(), undo_file_name(b.file).c_str(), static_cast<unsigned long long>(height.to_wire()),
                       b.hash.to_hex().c_str(), found.error().message().c_str());
        }
      }
      tables::write_block_json(*json, view.value(), dir.net(), &info, o.verbosity, undo ? &*undo : nullptr);
    }
  }
  if (json) json->end_array();
  if (undo_missing != 0) {
    std::fprintf(stderr,
                 "blockwire blocks: %s: %s without undo data (a damaged rev record, or blocks a program that writes no undo data "
                 "appended); blockwire scan %s reports the damage\n",
                 o.dir.c_str(), count_of(undo_missing, "block").c_str(), o.dir.c_str());
  }
  return dir.damaged() || undo_missing != 0 ? bad_data : ok;
}

}  // namespace blockwire::cli
