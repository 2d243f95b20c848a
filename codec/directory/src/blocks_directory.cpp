#include "core_chain.hpp"

#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/error.hpp>

#include <filesystem>

namespace blockwire {

std::string BlocksDirectory::Failure::message(const std::string& path) const {
  switch (at) {
    case part::key: return xor_key_error_message(path, cause);
    case part::blocks: return path + ": reading blk files: " + cause.message();
    case part::undo: return path + ": reading rev files: " + cause.message();
  }
  return path + ": " + cause.message();
}

BlocksDirectory::opened BlocksDirectory::open(const std::string& path, const Options& options) {
  auto format = record_format(path, options.key, options.net);
  if (!format) return Failure{Failure::part::key, format.error()};
  std::string note;
  std::error_code ec;
  if (options.core_index && std::filesystem::is_directory(std::filesystem::path(path) / "index", ec)) {
    auto core = detail::read_core_chain(path, format.value().key, format.value().net, options.undo && !options.undo_file);
    if (auto* chain = std::get_if<detail::CoreChain>(&core)) {
      BlocksDirectory dir(path, std::move(chain->index));
      dir.source_ = index_source::core_index;
      if (!options.undo) return dir;
      dir.undo_ = std::move(chain->undo);
      // The blocks read past what the index knows: their records paired
      // in their rev files (as refresh() reads a new tip's).
      for (const unsigned file : chain->files_read) {
        auto built = UndoIndex::build(path, dir.key(), dir.index_, dir.net(), file);
        if (!built) {
          if (options.undo_required) return Failure{Failure::part::undo, built.error()};
          dir.undo_error_ = built.error();
          break;
        }
        dir.recent_undo_.insert_or_assign(file, std::move(built).value());
      }
      if (options.undo_file && !dir.undo_) {
        auto built = UndoIndex::build(path, dir.key(), dir.index_, dir.net(), options.undo_file);
        if (!built) return Failure{Failure::part::undo, built.error()};
        dir.undo_ = std::move(built).value();
      }
      return dir;
    }
    note = std::get<std::string>(core);
  }
  auto index = BlockIndex::build(path, format.value().key, format.value().net);
  if (!index) return Failure{Failure::part::blocks, index.error()};
  BlocksDirectory dir(path, std::move(index).value());
  dir.index_note_ = std::move(note);
  if (!options.undo) return dir;
  const auto without_undo = [&](const error& e) -> opened {
    if (options.undo_required) return Failure{Failure::part::undo, e};
    dir.undo_error_ = e;
    return std::move(dir);
  };
  auto revs = undo_files(path);
  if (!revs) return without_undo(revs.error());
  if (revs.value().empty()) return dir;
  auto built = UndoIndex::build(path, dir.key(), dir.index_, dir.net(), options.undo_file);
  if (!built) return without_undo(built.error());
  dir.undo_ = std::move(built).value();
  return dir;
}

BlocksDirectory::opened BlocksDirectory::open(const std::string& path) { return open(path, Options{}); }

result<std::vector<std::byte>> BlocksDirectory::read_block(const IndexedBlock& block) const {
  auto bytes = read_block_record(index_.file_path(block.file), block.offset, key(), net());
  if (!bytes) return bytes;
  // Never another block than the one asked for, whatever an index said
  // of where it is.
  if (bytes.value().size() < header_size ||
      block_hash(decode_header(std::span<const std::byte>(bytes.value()).first(header_size)).value()) != block.hash) {
    return error(blockfiles::errc::wrong_block, block.offset);
  }
  return bytes;
}

const UndoIndex* BlocksDirectory::undo_for(unsigned file) const noexcept {
  if (const auto recent = recent_undo_.find(file); recent != recent_undo_.end()) return &recent->second;
  return undo_ ? &*undo_ : nullptr;
}

result<BlockUndo> BlocksDirectory::undo_of(const IndexedBlock& block, const BlockView& view) const {
  const UndoIndex* undo = undo_for(block.file);
  if (undo == nullptr) return undo::errc::no_rev_file;
  return undo->undo_of(block, view);
}

result<filters::GcsFilter> BlocksDirectory::basic_filter(const IndexedBlock& block, std::size_t* block_size) const {
  auto bytes = read_block(block);
  if (!bytes) return bytes.error();
  if (block_size != nullptr) *block_size = bytes.value().size();
  auto view = BlockView::parse(bytes.value());
  if (!view) return view.error();
  if (has_undo()) {
    auto found = undo_of(block, view.value());
    if (!found) return found.error();
    return filters::basic_filter(view.value(), found.value());
  }
  // No rev files at all: a block that spends nothing needs none.
  if (block.height == 0 || view.value().transaction_count() == 1) {
    return filters::basic_filter(view.value(), std::span<const std::span<const std::byte>>{});
  }
  return directory::errc::no_undo_data;
}

result<bool> BlocksDirectory::refresh() {
  auto moved = index_.refresh();
  if (!moved) return moved.error();
  if (moved.value() && undo_) stale_undo_file_ = at_height(chain_size() - 1).file;
  if (stale_undo_file_) {
    // The new tip's undo records: its rev file read again, that one alone
    // (the rest were paired at open, or on an earlier tip). A failure is
    // said once and tried again on the next refresh; the tip moved all the
    // same.
    auto built = UndoIndex::build(path_, key(), index_, net(), *stale_undo_file_);
    if (!built) {
      undo_error_ = built.error();
      return moved;
    }
    recent_undo_.insert_or_assign(*stale_undo_file_, std::move(built).value());
    stale_undo_file_.reset();
    undo_error_.reset();
  }
  return moved;
}

}  // namespace blockwire
