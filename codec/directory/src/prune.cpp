#include "leveldb_snapshot.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/directory/core_index.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/directory/prune.hpp>
#include <blockwire/directory/utxo_store.hpp>
#include <blockwire/io/file.hpp>

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unistd.h>

namespace blockwire {
namespace {

using detail::slice_of;

namespace fs = std::filesystem;

// A block's header and transaction count, from the start of its record
// (checked to be the block `hash`): what Core's index keeps of it, read
// without reading the block.
struct BlockHead {
  BlockHeader header;
  std::uint32_t tx_count = 0;
};

class HeadReader {
 public:
  HeadReader(const BlockIndex& index) : index_(index) {}

  result<BlockHead> read(const IndexedBlock& b) {
    if (!file_ || number_ != b.file) {
      auto opened = FileReader::open(index_.file_path(b.file).c_str());
      if (!opened) return opened.error();
      file_.emplace(std::move(opened).value());
      number_ = b.file;
    }
    // The frame, the header and the count's first byte (a record holds at
    // least 81 bytes), then the rest of the count where it is longer.
    std::array<std::byte, 8 + header_size + 9> head{};
    const auto first = std::span(head).first(8 + header_size + 1);
    if (auto r = read_at(file_->fd(), first, b.offset); !r) return error(r.error().code(), b.offset);
    const std::size_t more =
        count_length(static_cast<std::uint8_t>(head[8 + header_size] ^ index_.key()[(b.offset + 8 + header_size) % 8])) - 1;
    if (more != 0) {
      if (auto r = read_at(file_->fd(), std::span(head).subspan(first.size(), more), b.offset + first.size()); !r) {
        return error(r.error().code(), b.offset);
      }
    }
    xor_in_place(head, index_.key(), b.offset);
    const Magic m = magic(index_.net());
    if (!std::equal(m.begin(), m.end(), head.begin())) return error(blockfiles::errc::bad_magic, b.offset);
    auto header = decode_header(std::span<const std::byte>(head).subspan(8, header_size));
    if (!header || block_hash(header.value()) != b.hash) return error(blockfiles::errc::wrong_block, b.offset);
    DecodingContext ctx(std::span<const std::byte>(head).subspan(8 + header_size, 1 + more));
    const std::uint64_t count = wire::decode_compact_size(ctx);
    if (!ctx.ok() || count > std::numeric_limits<std::uint32_t>::max()) return error(blockfiles::errc::wrong_block, b.offset);
    return BlockHead{header.value(), static_cast<std::uint32_t>(count)};
  }

 private:
  static std::size_t count_length(std::uint8_t first) { return first < 0xfd ? 1 : first == 0xfd ? 3 : first == 0xfe ? 5 : 9; }

  const BlockIndex& index_;
  std::optional<FileReader> file_;
  unsigned number_ = 0;
};

// The heights and times of the blocks with data in one blk file.
struct FileBlocks {
  std::uint64_t blocks = 0;
  std::optional<Height> height_first, height_last;
  std::uint32_t time_first = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t time_last = 0;
};

std::uint64_t size_of(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

}  // namespace

result<Pruned> prune_directory(const PruneSpec& spec) {
  // The cause, with the directory and what was being done (when the
  // cause's own words do not say it) as its context.
  const auto fail = [&](const error& cause, const std::string& what = {}) -> result<Pruned> {
    return cause.in(what.empty() ? spec.dir : spec.dir + ": " + what);
  };
  if (spec.keep < min_blocks_to_keep) {
    return fail(std::make_error_code(std::errc::invalid_argument),
                "a pruned directory keeps at least the last " + std::to_string(min_blocks_to_keep) +
                    " blocks (as Core: a reorganization that deep needs their undo records), not " + std::to_string(spec.keep));
  }
  const fs::path index_dir = fs::path(spec.dir) / "index";
  std::error_code ec;
  const bool indexed = fs::is_directory(index_dir, ec);
  if (indexed && !written_by_blockwire(index_dir.string())) {
    return fail(directory::errc::node_index,
                "index/ is a node's own block index, which blockwire never writes into: a node prunes its directory itself "
                "(bitcoind -prune, or bitcoin-cli pruneblockchain)");
  }
  auto format = record_format(spec.dir);
  if (!format) return fail(format.error());
  const XorKey key = format.value().key;
  const network net = format.value().net;
  if (!holds_records(spec.dir)) return Pruned{};  // no blocks yet
  // The writer's lock, held to the end: no fetch appends meanwhile.
  auto writer = BlockFileWriter::open(spec.dir, key, net);
  if (!writer) return fail(writer.error());
  if (const auto& repair = writer.value().repaired(); repair && spec.note) {
    spec.note("cut off what a writer that did not finish left (" + std::to_string(repair->bytes) + " bytes), as fetch would");
  }
  const std::string kept_before = BlocksDirectory::kept_index_path(spec.dir);
  BlocksDirectory::Options options;
  options.key = key;
  options.net = net;
  auto opened = BlocksDirectory::open(spec.dir, options);
  if (!opened) return opened.error();
  const BlocksDirectory& dir = opened.value();
  if (dir.damaged()) {
    return fail(directory::errc::damaged_directory,
                dir.problems().front().message() +
                    (dir.problem_count() > 1 ? " (and " + std::to_string(dir.problem_count() - 1) + " more)" : "") +
                    ": a damaged directory is not pruned (`blockwire blocks` and `scan` list the damage)");
  }
  const BlockIndex& index = dir.index();
  Pruned out;
  out.chain_size = index.chain_size();
  out.pruned_before = index.prune_height();
  out.prune_height = out.pruned_before;
  if (index.empty()) return out;

  // Core's rule (FindFilesToPruneManual): a file goes once its highest
  // block, on any branch, is below the blocks kept; the last file never.
  const std::int64_t last_prunable = static_cast<std::int64_t>(index.chain_size().value()) - 1 - static_cast<std::int64_t>(spec.keep);
  std::map<unsigned, FileBlocks> files;
  for (std::size_t id = 0; id < index.size(); ++id) {
    const IndexedBlock b = index.block(id);
    if (b.pruned || !b.linked) continue;
    FileBlocks& f = files[b.file];
    ++f.blocks;
    f.height_first = std::min(f.height_first.value_or(b.height), b.height);
    f.height_last = std::max(f.height_last.value_or(b.height), b.height);
    f.time_first = std::min(f.time_first, b.time);
    f.time_last = std::max(f.time_last, b.time);
  }
  const unsigned last_file = writer.value().position().file;
  auto on_disk = block_files(spec.dir);
  if (!on_disk) return fail(on_disk.error());
  std::set<unsigned> doomed;
  for (const std::string& path : on_disk.value()) {
    const auto n = block_file_number(fs::path(path).filename().string());
    if (!n || *n >= last_file) continue;
    const auto f = files.find(*n);
    // (a file no block with data is in: one a crash left after the index
    // said its blocks were pruned)
    if (f == files.end() || f->second.height_last->to_wire() <= last_prunable) doomed.insert(*n);
  }
  for (const Height h : index.chain_size().heights()) {
    const IndexedBlock b = index.at_height(h);
    if (b.pruned || doomed.contains(b.file)) out.prune_height = h.next();
  }
  if (doomed.empty()) return out;

  // The UTXO set kept beside connects the blocks after its own from their
  // data: none of them may go.
  if (const std::string set = UtxoStore::path_of(spec.dir); fs::is_directory(set, ec)) {
    auto best = read_core_best_block(set);
    if (!best) return fail(best.error(), fs::path(set).filename().string());
    // (no best block: a set a crash interrupted while it was first made,
    // which is made again from nothing, and cannot be once pruned: as none)
    const auto at = best.value() ? index.find(*best.value()) : std::nullopt;
    const std::int64_t height = signed_height(at ? at->linked_height() : std::nullopt);
    if (best.value() && height + 1 < std::int64_t{out.prune_height.to_wire()}) {
      return fail(directory::errc::utxo_set_behind, "the UTXO set in " + set + " is at height " + std::to_string(height) +
                                                        " and needs the blocks after it, up to the tip, " +
                                                        "to catch up; pruning would delete those below height " +
                                                        to_string(out.prune_height) + " (run fetch to bring it to the tip first)");
    }
  }
  for (const unsigned n : doomed) {
    out.files.push_back(n);
    out.bytes += size_of(fs::path(spec.dir) / block_file_name(n)) + size_of(fs::path(spec.dir) / undo_file_name(n));
  }
  if (spec.dry_run) return out;

  // The mark first: an index/ without it would be taken for a node's.
  fs::create_directories(index_dir, ec);
  if (ec) return fail(ec, "index");
  if (!written_by_blockwire(index_dir.string())) {
    const std::string mark =
        "This block index was written by blockwire prune, in Bitcoin Core's format, for a blocks directory blockwire writes.\n";
    if (auto r = write_file_atomically((index_dir / blockwire_index_mark).c_str(), std::as_bytes(std::span(mark))); !r) {
      return fail(r.error(), "index");
    }
  }
  leveldb::Options db_options;
  db_options.create_if_missing = true;
  db_options.paranoid_checks = true;
  db_options.compression = leveldb::kNoCompression;  // as Core's
  leveldb::DB* raw = nullptr;
  if (const leveldb::Status s = leveldb::DB::Open(db_options, index_dir.string(), &raw); !s.ok()) {
    return fail(detail::leveldb_failure(s), "index");
  }
  const std::unique_ptr<leveldb::DB> db(raw);
  // In batches (a few MB each, not the whole index in memory twice): any
  // mix of old and new entries a crash leaves agrees with the files, all
  // of which are still there; the last write is synced.
  leveldb::WriteBatch batch;
  const auto write = [&](bool last) -> std::optional<error> {
    leveldb::WriteOptions options;
    options.sync = last;
    if (const leveldb::Status s = db->Write(options, &batch); !s.ok()) return detail::leveldb_failure(s);
    batch.Clear();
    return std::nullopt;
  };
  // Every block as Core's index keeps it, the pruned ones with their header
  // alone; every file's record; the last file; the flag.
  HeadReader heads(index);
  for (std::size_t id = 0; id < index.size(); ++id) {
    const IndexedBlock b = index.block(id);
    if (!b.linked) continue;
    CoreBlockEntry e;
    e.hash = b.hash;
    e.height = b.height.to_core();
    e.status = CoreBlockEntry::valid_tree | (b.failed ? CoreBlockEntry::failed_valid : 0);
    if (b.pruned) {
      auto header = index.header(b);
      if (!header) return fail(header.error(), "the header of pruned block " + b.hash.to_hex());
      e.header = header.value();
      e.tx_count = index.pruned_tx_count(b).value_or(0);
    } else {
      auto head = heads.read(b);
      if (!head) {
        return fail(head.error(), block_file_name(b.file) + ":" + std::to_string(b.offset) + ": block " + b.hash.to_hex());
      }
      e.header = head.value().header;
      e.tx_count = head.value().tx_count;
      if (!doomed.contains(b.file)) {
        e.status |= CoreBlockEntry::have_data;
        e.file = b.file;
        e.data_pos = static_cast<std::uint32_t>(b.offset + 8);
        if (const auto undo = dir.undo_offset(b)) {
          e.status |= CoreBlockEntry::have_undo;
          e.undo_pos = *undo + 8;
        }
      }
    }
    batch.Put(core_block_key(e.hash), slice_of(encode_core_block_entry(e)));
    if (batch.ApproximateSize() >= (std::size_t{4} << 20)) {
      if (auto failed = write(false)) return fail(*failed, "index");
    }
  }
  for (unsigned n = 0; n <= last_file; ++n) {
    CoreFileInfo info;  // (a pruned or missing file's: zeros)
    if (const auto f = files.find(n); f != files.end() && !doomed.contains(n)) {
      info = {f->second.blocks,
              size_of(fs::path(spec.dir) / block_file_name(n)),
              size_of(fs::path(spec.dir) / undo_file_name(n)),
              f->second.height_first->to_wire(),
              f->second.height_last->to_wire(),
              f->second.time_first,
              f->second.time_last};
    }
    batch.Put(core_file_key(n), slice_of(encode_core_file_info(info)));
  }
  std::string last(4, '\0');
  for (int i = 0; i < 4; ++i) last[static_cast<std::size_t>(i)] = static_cast<char>(last_file >> (8 * i));
  batch.Put(core_last_file_key(), last);
  batch.Put(core_flag_key("prunedblockfiles"), "1");

  if (auto failed = write(true)) return fail(*failed, "index");
  // Only now, the files (a crash before leaves them to the next prune).
  for (const unsigned n : doomed) {
    for (const std::string& name : {block_file_name(n), undo_file_name(n)}) {
      const fs::path path = fs::path(spec.dir) / name;
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        const error e = std::error_code(errno, std::system_category());
        return fail(e, name);
      }
    }
  }
  if (auto r = sync_directory(spec.dir.c_str()); !r) return fail(r.error());
  // The index kept before there was an index/ is not where it is kept now
  // (kept_index_path): it goes, and the next open reads index/. The
  // transaction and address indexes kept in it move along: the blocks they
  // were made from may be gone now.
  const std::string kept_now = BlocksDirectory::kept_index_path(spec.dir);
  if (!kept_before.empty() && kept_before != kept_now) {
    for (const char* kept : {"txindex", "addresses"}) {
      const fs::path from = fs::path(kept_before) / kept;
      if (kept_now.empty() || !fs::exists(from, ec)) continue;
      const fs::path to = fs::path(kept_now) / kept;
      fs::create_directories(kept_now, ec);
      fs::remove_all(to, ec);
      fs::rename(from, to, ec);
      if (ec) {  // (another file system: the cache's)
        ec.clear();
        fs::copy(from, to, fs::copy_options::recursive, ec);
      }
    }
    fs::remove_all(kept_before, ec);
  }
  if (auto r = writer.value().close(); !r) return fail(r.error());
  return out;
}

}  // namespace blockwire
