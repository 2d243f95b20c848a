#include "core_chain.hpp"

#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/error.hpp>

#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace blockwire {

namespace {

// Opening's failure `cause` at `step`, naming the files it could not read.
error open_failure(directory::open_step step, const error& cause, const std::string& path) {
  switch (step) {
    case directory::open_step::key: {
      // (the key file beside a blk file named as `path`, or in the directory)
      std::error_code ec;
      const std::filesystem::path dir =
          std::filesystem::is_directory(path, ec) ? std::filesystem::path(path) : std::filesystem::path(path).parent_path();
      return cause.in((dir / "xor.dat").string()).at_step(step);
    }
    case directory::open_step::blocks: return cause.in(path + ": reading blk files").at_step(step);
    case directory::open_step::undo: return cause.in(path + ": reading rev files").at_step(step);
  }
  return cause.in(path).at_step(step);
}

}  // namespace

std::string BlocksDirectory::kept_index_path(const std::string& blocks_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(fs::absolute(blocks_dir, ec), ec);
  // A node's directory (its own index beside) or one that may not be
  // written: the user's cache, a folder named by the directory's path.
  if (!fs::exists(dir / "index", ec) && ::access(dir.c_str(), W_OK) == 0) return (dir / "blockwire-index").string();
  fs::path cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    cache = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
    cache = fs::path(home) / ".cache";
  } else {
    return {};
  }
  const std::string text = dir.string();
  const Hash256 named = sha256(std::as_bytes(std::span(text.data(), text.size())));
  return (cache / "blockwire" / "index" / to_hex(named.bytes().first(16))).string();
}

namespace {

constexpr const char* core_stamp_name = "core-index.stamp";

// Bitcoin Core's index as its files are now: each file LevelDB reads
// (CURRENT, the manifest, logs and tables; not LOG or LOCK) with its size
// and time of change, hashed. Any write of the node's changes it (LevelDB
// appends to its log, or writes new files), so a kept index made from
// another stamp is not the node's index any more.
std::string core_index_stamp(const std::string& blocks_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> lines;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(blocks_dir) / "index", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "LOCK" || name.rfind("LOG", 0) == 0) continue;
    struct stat st {};
    if (::stat(it->path().c_str(), &st) != 0) continue;
    lines.push_back(name + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
                    std::to_string(st.st_mtim.tv_nsec) + " " + std::to_string(st.st_ino));
  }
  if (ec) return {};
  std::sort(lines.begin(), lines.end());
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  return to_hex(sha256(std::as_bytes(std::span(all.data(), all.size()))).bytes());
}

std::string read_stamp(const std::string& kept_dir) {
  std::ifstream in(std::filesystem::path(kept_dir) / core_stamp_name);
  std::string stamp;
  std::getline(in, stamp);
  return stamp;
}

void write_stamp(const std::string& kept_dir, const std::string& stamp) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(kept_dir) / core_stamp_name;
  const fs::path temporary = fs::path(kept_dir) / (std::string(core_stamp_name) + ".tmp");
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << stamp << "\n";
    if (!out.flush()) return;  // (not kept: the next open reads the node's index again)
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
}

}  // namespace

result<BlocksDirectory> BlocksDirectory::open(const std::string& path, const Options& options) {
  auto format = record_format(path, options.key, options.net);
  if (!format) return open_failure(directory::open_step::key, format.error(), path);
  const XorKey key = format.value().key;
  const network net = format.value().net;
  const std::optional<network> records = network_of(path, key);
  // Asked for another network than the records' magic says: said as such,
  // not read as a directory of no chain (each record's magic not the one
  // sought, as damage would be).
  if (options.net && records && *records != *options.net) {
    return open_failure(
        directory::open_step::blocks,
        error(directory::errc::other_network)
            .in("its records are " + std::string(name(*records)) + "'s (their magic), not " + std::string(name(*options.net)) + "'s"),
        path);
  }
  if (!options.net && !records) {
    // No record to say the network yet (a directory just made, a writer
    // that has not written its first block): a chain of length zero,
    // nothing guessed. refresh() opens it again once a record is there.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec) && !holds_records(path)) {
      BlocksDirectory dir(path, BlockIndex(path, net, key));
      dir.reopen_ = options;
      dir.options_ = options;
      return dir;
    }
  }
  std::vector<std::string> notes;
  std::optional<BlockIndex> index;
  index_source source = index_source::blk_files;
  // The kept index first, then the node's, then every blk file.
  const std::string kept_dir = options.kept_index ? kept_index_path(path) : std::string();
  // Beside Bitcoin Core's index, the kept one is the node's only while the
  // node's has not changed since (a block invalidated, a flush, pruning).
  std::error_code ec;
  const bool beside_core = options.core_index && std::filesystem::is_directory(std::filesystem::path(path) / "index", ec);
  const std::string core_stamp = beside_core ? core_index_stamp(path) : std::string();
  bool kept_current = true;
  if (!kept_dir.empty() && beside_core) {
    const std::string kept_stamp = read_stamp(kept_dir);
    kept_current = !kept_stamp.empty() && kept_stamp == core_stamp;
    if (!kept_current) {
      // What was kept is not used again (a later save that writes nothing,
      // a damaged chain, must not leave it to pair with the new stamp).
      // (Not a note: a running node changes its index at every flush.)
      std::error_code removed;
      std::filesystem::remove(std::filesystem::path(kept_dir) / "state.dat", removed);
    }
  }
  if (!kept_dir.empty() && kept_current) {
    auto loaded = BlockIndex::load(kept_dir, path, key, net);
    if (auto* kept = std::get_if<BlockIndex>(&loaded)) {
      index = std::move(*kept);
      source = index_source::kept_index;
    } else if (const auto& why = std::get<std::string>(loaded); !why.empty()) {
      notes.push_back("the index kept in " + kept_dir + " was not used (" + why + "); it is made again");
    }
  }
  if (!index && beside_core) {
    auto core = detail::read_core_chain(path, key, net, options.undo);
    if (auto* chain = std::get_if<BlockIndex>(&core)) {
      index = std::move(*chain);
      source = index_source::core_index;
    } else {
      notes.push_back("Bitcoin Core's block index not used: " + std::get<std::string>(core) + "; every blk file was read instead");
    }
  }
  if (!index) {
    auto built = BlockIndex::build(path, key, net);
    if (!built) return open_failure(directory::open_step::blocks, built.error(), path);
    index = std::move(built).value();
  }
  BlocksDirectory dir(path, std::move(*index));
  dir.options_ = options;
  dir.source_ = source;
  dir.notes_ = std::move(notes);

  // The undo records: where an index put them, the rest paired with their
  // blocks in their rev files (those files alone). Then the index is kept,
  // with what it learned.
  dir.kept_dir_ = kept_dir;
  bool learned = false;  // undo records paired for blocks an index held
  const auto keep = [&] {
    if (source != index_source::kept_index || dir.index_.size() != dir.index_.first_read() || learned) {
      dir.keep(learned || source != index_source::kept_index);
    }
    // (the stamp of the node's index as it was before it was read: a
    // change while it was read is seen next time)
    if (source == index_source::core_index && !kept_dir.empty() && !core_stamp.empty()) write_stamp(kept_dir, core_stamp);
  };
  if (!options.undo) {
    keep();
    return dir;
  }
  const auto without_undo = [&](const error& e) -> result<BlocksDirectory> {
    if (options.undo_required) return open_failure(directory::open_step::undo, e, path);
    dir.undo_error_ = e;
    return std::move(dir);
  };
  auto revs = undo_files(path);
  if (!revs) return without_undo(revs.error());
  if (revs.value().empty()) {
    keep();
    return dir;
  }
  dir.undo_wanted_ = true;
  auto known = UndoIndex::known(path, dir.key(), dir.net());
  if (!known) return without_undo(known.error());
  dir.undo_ = std::move(known).value();
  // The blocks no index placed: their rev files read from past the last
  // record placed there (records are written in order), and paired.
  std::vector<UndoIndex::FileFrom> files;
  for (const BlockIndex::UndoGap& gap : dir.index_.files_without_undo()) {
    if (options.undo_file && gap.file != *options.undo_file) continue;
    std::uint64_t from = 0;
    if (gap.last_known) {
      auto end =
          UndoIndex::record_end((std::filesystem::path(path) / undo_file_name(gap.file)).string(), dir.key(), dir.net(), *gap.last_known);
      if (end) from = end.value();  // (else from the start: damage is found by pairing)
    }
    files.push_back({gap.file, from});
  }
  if (!files.empty()) {
    auto built = UndoIndex::build(path, dir.key(), dir.index_, dir.net(), std::span<const UndoIndex::FileFrom>(files));
    if (!built) return without_undo(built.error());
    dir.paired_ = std::move(built).value();
    for (const UndoIndex::FileFrom& f : files) dir.paired_files_.insert(f.file);
    // Records found for blocks an index held: kept, the index written anew.
    for (std::size_t id = 0; id < dir.index_.first_read() && !learned; ++id) {
      const IndexedBlock b = dir.index_.block(id);
      learned = !b.undo_offset && !b.is_genesis() && dir.paired_->offset_of(b.hash).has_value();
    }
  }
  keep();
  return dir;
}

result<BlocksDirectory> BlocksDirectory::open(const std::string& path) { return open(path, Options{}); }

result<BlockIndex> BlocksDirectory::open_index(const std::string& path, const XorKey& key, network net, std::vector<std::string>* notes) {
  Options options;
  options.key = key;
  options.net = net;
  options.undo = false;
  auto opened = open(path, options);
  if (!opened) return opened.error();
  if (notes != nullptr) *notes = opened.value().notes_;
  return std::move(opened.value().index_);
}

result<void> BlocksDirectory::keep_index(BlockIndex& index) {
  const std::string kept_dir = kept_index_path(index.dir());
  if (kept_dir.empty()) return success();
  return index.save(
      kept_dir, false, [](const BlockHash&) { return std::optional<std::uint32_t>(); }, false);
}

result<std::vector<std::byte>> BlocksDirectory::read_block(const IndexedBlock& block) const {
  std::vector<std::byte> bytes;
  if (auto read = read_block(block, bytes); !read) return read.error();
  return bytes;
}

result<void> BlocksDirectory::read_block(const IndexedBlock& block, std::vector<std::byte>& bytes) const {
  if (block.pruned) return error(blockfiles::errc::pruned);
  if (auto read = read_block_record(index_.file_path(block.file), block.offset, key(), net(), bytes); !read) return read;
  // Never another block than the one asked for, whatever an index said
  // of where it is.
  if (bytes.size() < header_size || block_hash(decode_header(std::span<const std::byte>(bytes).first(header_size)).value()) != block.hash) {
    return error(blockfiles::errc::wrong_block, block.offset);
  }
  return success();
}

const UndoIndex* BlocksDirectory::undo_for(unsigned file) const noexcept {
  if (const auto recent = recent_undo_.find(file); recent != recent_undo_.end()) return &recent->second;
  if (paired_ && paired_files_.contains(file)) return &*paired_;
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
  if (block.is_genesis() || view.value().transaction_count() == 1) {
    return filters::basic_filter(view.value(), std::span<const std::span<const std::byte>>{});
  }
  return directory::errc::no_undo_data;
}

std::optional<std::uint32_t> BlocksDirectory::undo_offset(const IndexedBlock& block) const {
  if (block.undo_offset) return block.undo_offset;
  return paired_offset(block.hash);
}

std::optional<std::uint32_t> BlocksDirectory::paired_offset(const BlockHash& hash) const {
  for (const auto& [file, recent] : recent_undo_) {
    if (auto at = recent.offset_of(hash)) return at;
  }
  return paired_ ? paired_->offset_of(hash) : std::nullopt;
}

void BlocksDirectory::keep(bool rewrite) {
  if (kept_dir_.empty()) return;
  const auto paired = [&](const BlockHash& hash) { return paired_offset(hash); };
  if (auto saved = index_.save(kept_dir_, undo_wanted_, paired, rewrite); !saved) {
    notes_.push_back("the index could not be kept in " + kept_dir_ + ": " + saved.error().message());
  }
}

// Pruning deletes the oldest blk files whole, so the first to go is the
// one holding the lowest block of the best chain that has its data: one
// stat(2) a refresh.
bool BlocksDirectory::pruned_since() const {
  const Height first = index_.prune_height();
  if (!chain_size().contains(first)) return false;
  const IndexedBlock lowest = at_height(first);
  std::error_code ec;
  return !lowest.pruned && !std::filesystem::exists(index_.file_path(lowest.file), ec) && !ec;
}

result<bool> BlocksDirectory::refresh() {
  if (reopen_) {
    // Opened before its first record: opened again once one is there
    // (its network and key are known only now).
    auto format = record_format(path_, reopen_->key, reopen_->net);
    if (!format || !network_of(path_, format.value().key)) return false;
    const Options options = *reopen_;
    auto again = open(path_, options);
    if (!again) return again.error();
    *this = std::move(again).value();
    return !chain_size().empty();
  }
  if (pruned_since()) {
    // Opened again, as a fresh start would: the node's index (or the one
    // prune wrote) now says which blocks have their data.
    const BlockHash tip = index_.empty() ? BlockHash::all_zeros() : index_.tip();
    auto again = open(path_, options_);
    if (!again) return again.error();  // (tried again at the next refresh: the file is still gone)
    *this = std::move(again).value();
    return !index_.empty() && index_.tip() != tip;
  }
  const std::uint64_t generation = index_.generation();
  auto moved = index_.refresh();
  if (!moved) return moved.error();
  if (index_.generation() != generation && undo_wanted_) {
    // Built anew (a writer cut the files back): no undo record is placed,
    // every rev file paired again.
    recent_undo_.clear();
    stale_undo_file_.reset();
    auto built = UndoIndex::build(path_, key(), index_, net());
    if (!built) {
      undo_error_ = built.error();
      paired_.reset();
      paired_files_.clear();
      return moved;
    }
    paired_ = std::move(built).value();
    paired_files_.clear();
    for (std::size_t id = 0; id < index_.size(); ++id) paired_files_.insert(index_.block(id).file);
    undo_error_.reset();
    keep(true);
    return moved;
  }
  if (moved.value() && undo_) stale_undo_file_ = at_height(*chain_size().last()).file;
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
  if (moved.value()) keep(false);  // what a writer appended, kept (a failure is a note)
  return moved;
}

}  // namespace blockwire
