// The shards of an export (etl_export.hpp): the sweep of what left the
// chain, then each shard made whole or not at all.
#include <blockwire/tables/etl_export.hpp>

#include "writer_name.hpp"

#include <blockwire/directory/error.hpp>

#include <blockwire/codec.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/number_text.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace blockwire::tables {

namespace {

namespace fs = std::filesystem;

struct Shard {
  std::uint64_t first = 0, last = 0;  // heights, both in the shard
};

// Where a table's file of a shard goes: its directory and its name.
struct TablePlace {
  fs::path dir;
  std::string name;
  compression compress;
  fs::path path() const { return dir / name; }
  // Hidden while it is written, under a name of the writer's own: a
  // worker thought dead (blockwire.distributed) may still be writing the
  // shard that another makes again.
  fs::path partial(std::string_view writer) const {
    std::string hidden = "." + name + ".";
    hidden.append(writer).append(".partial");
    return dir / hidden;
  }
};

TablePlace place(const fs::path& out, std::string_view table, const Shard& s, export_format f, compression c) {
  const std::string first = shard_number(s.first), last = shard_number(s.last);
  std::string name = std::string(table) + "_" + first + "_" + last + ".";
  name.append(export_extension(f)).append(compression_suffix(c));
  return {out / table / ("start_block=" + first) / ("end_block=" + last), std::move(name), c};
}

// N of a shard directory's name, `prefix` then N (start_block=N,
// end_block=N); nothing for any other name.
std::optional<std::uint64_t> number_after(const fs::path& p, std::string_view prefix) {
  const std::string name = p.filename().string();
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::uint64_t n = 0;
  const auto [at, err] = std::from_chars(name.data() + prefix.size(), name.data() + name.size(), n);
  if (err != std::errc{} || at != name.data() + name.size()) return std::nullopt;
  return n;
}

// The shard's blocks table ends with a line that names `hash` (its last
// block's): written whole, for the chain as it is now. Errors: a file
// that does not decompress (std::errc::illegal_byte_sequence: cut short,
// a reason to make the shard again), the system's (not one to remove it).
result<bool> ends_with_block(const TablePlace& blocks_table, const std::string& hash) {
  auto tail = decompressed_tail(blocks_table.path().c_str(), blocks_table.compress, 4096);
  if (!tail) return tail.error().in(blocks_table.path().string());
  const std::string& text = tail.value();
  if (text.empty() || text.back() != '\n') return false;
  const std::size_t line = text.rfind('\n', text.size() - 2);
  return text.find(hash, line == std::string::npos ? 0 : line) != std::string::npos;
}

bool hidden(const fs::path& p) { return !p.filename().empty() && p.filename().string().front() == '.'; }

// The shards in OUT, by their heights: (first, last) -> its tables'
// directories (OUT/TABLE/start_block=first/end_block=last).
using ShardDirs = std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<fs::path>>;

ShardDirs shards_in(const fs::path& out) {
  ShardDirs shards;
  // (a code a level: a file where a directory was looked for ends that
  // level's listing alone)
  std::error_code ec;
  for (fs::directory_iterator table(out, ec), end; !ec && table != end; table.increment(ec)) {
    std::error_code ec1;
    if (!table->is_directory(ec1) || hidden(table->path())) continue;
    for (fs::directory_iterator start(table->path(), ec1), e1; !ec1 && start != e1; start.increment(ec1)) {
      const auto first = number_after(start->path(), "start_block=");
      if (!first) continue;
      std::error_code ec2;
      for (fs::directory_iterator stop(start->path(), ec2), e2; !ec2 && stop != e2; stop.increment(ec2)) {
        if (const auto last = number_after(stop->path(), "end_block=")) shards[{*first, *last}].push_back(stop->path());
      }
    }
  }
  return shards;
}

std::string range_text(std::uint64_t first, std::uint64_t last) { return shard_number(first) + "-" + shard_number(last); }

// Why shards of `size` blocks may not go beside those in OUT (empty: they
// may). A shard there that starts off a multiple of `size`, or holds more
// blocks, overlaps the new ones: the same blocks in two shards, counted
// twice by whatever reads OUT. Shorter ones of the same start are a tip's
// (or --count's), which a whole new one replaces. Their size is the
// smallest that fits them all: their longest, unless its multiples miss
// some shard's start (their longest short, at a tip).
std::string other_shard_size(const ShardDirs& shards, std::uint64_t size) {
  const auto fits = [](const ShardDirs::value_type& s, std::uint64_t n) {
    const auto [first, last] = s.first;
    return last < first || (first % n == 0 && last - first < n);  // (a name no export writes: the sweep's to judge)
  };
  const auto misfit = std::find_if(shards.begin(), shards.end(), [&](const auto& s) { return !fits(s, size); });
  if (misfit == shards.end()) return {};
  // Their size: a multiple of it starts each shard (it divides `starts`,
  // their first heights' greatest common divisor), and none is longer.
  std::uint64_t longest = 0, starts = 0;
  auto longest_shard = shards.end();
  for (auto s = shards.begin(); s != shards.end(); ++s) {
    const auto [first, last] = s->first;
    if (last < first) continue;
    if (last - first + 1 > longest) {
      longest = last - first + 1;
      longest_shard = s;
    }
    starts = std::gcd(starts, first);
  }
  const std::uint64_t most = std::max(starts, longest);
  std::uint64_t theirs = longest;
  while (theirs <= most &&
         ((starts % theirs != 0) || !std::all_of(shards.begin(), shards.end(), [&](const auto& s) { return fits(s, theirs); }))) {
    ++theirs;
  }
  if (theirs > most) {  // no one size: shards that overlap already
    const auto other = std::find_if(shards.begin(), shards.end(), [&](const auto& s) { return !fits(s, longest); });
    return "its shards are of more than one size (" + range_text(longest_shard->first.first, longest_shard->first.second) + " and " +
           range_text(other->first.first, other->first.second) +
           " among them), holding blocks twice: export into another directory, or remove it first";
  }
  return "its shards are of " + std::to_string(theirs) + " blocks (" + range_text(misfit->first.first, misfit->first.second) +
         " among them), not " + std::to_string(size) +
         ": shards of both sizes would hold the same blocks twice; export into it with --shard-blocks " + std::to_string(theirs) +
         ", or into another directory";
}

// The first failure to remove something: what, and the system's code.
struct SweepFailure {
  std::string text;
  std::error_code code;
  void set(const fs::path& what, std::error_code ec) {
    if (!text.empty()) return;
    text = what.string() + ": " + ec.message();
    code = ec;
  }
};

// What an earlier run left in OUT that the chain no longer has: shards
// whose last block left the best chain or lies past its tip, tables
// without their shard's blocks table, and temporary files (the lock is
// held, so no other export is writing them). Removed the blocks table
// first, which marks a shard whole, so a crash in between leaves tables a
// rerun removes. Returns the shards removed, each said; `problem` set on a
// failure to remove.
class Sweep {
 public:
  Sweep(const fs::path& out, const BlocksDirectory& dir, const EtlExport& spec) : out_(out), dir_(dir), spec_(spec) {}

  std::size_t run(const ShardDirs& shards, SweepFailure& problem) {
    std::size_t removed = 0;
    for (const auto& [range, dirs] : shards) {
      const std::string why = stale(range.first, range.second, problem);
      if (!problem.text.empty()) return removed;  // a table that cannot be read: judge nothing
      for (const fs::path& dir : dirs) remove_partials_in(dir, problem);
      if (why.empty()) continue;
      // The blocks table's directory first: the mark of a whole shard.
      std::vector<fs::path> ordered = dirs;
      std::stable_partition(ordered.begin(), ordered.end(),
                            [](const fs::path& d) { return d.parent_path().parent_path().filename() == "blocks"; });
      for (const fs::path& dir : ordered) remove_shard_dir(dir, problem);
      ++removed;
      if (spec_.note)
        spec_.note("removed shard " + shard_number(range.first) + "-" + shard_number(range.second) + " from " + out_.string() + ": " + why);
    }
    return removed;
  }

 private:
  // Why shard first-last is not the chain's (empty: it is, may be made
  // whole by this run, or its blocks table could not be read: `problem`).
  std::string stale(std::uint64_t first, std::uint64_t last, SweepFailure& problem) const {
    const BlockCount chain = dir_.chain_size();
    const auto at = Height::checked(last);
    if (!at || !chain.contains(*at)) {
      return "its last block, at height " + std::to_string(last) + ", is past the best chain's tip (height " + to_string(*chain.last()) +
             "): a reorg to a shorter chain with more work";
    }
    const std::string hash = dir_.at_height(*at).hash.to_hex();
    std::error_code ec;
    bool marked = false;
    for (const export_format f : {export_format::ndjson, export_format::csv}) {
      for (const compression c : compressions) {
        const TablePlace mark = place(out_, "blocks", {first, last}, f, c);
        if (!fs::is_regular_file(mark.path(), ec)) continue;
        marked = true;
        const auto ends = ends_with_block(mark, hash);
        if (!ends && ends.error().code() == std::errc::illegal_byte_sequence) {
          return "its blocks table does not decompress whole (cut short?)";
        }
        if (!ends) {
          problem.set(mark.path(), ends.error().code());
          return {};
        }
        if (!ends.value()) {
          return "its last block is not the best chain's block " + std::to_string(last) + " (" + hash + "): it left the chain in a reorg";
        }
      }
    }
    if (!marked) return "its blocks table is not there (an export stopped before the shard was whole)";
    return {};
  }

  static void remove_partials_in(const fs::path& dir, SweepFailure& problem) {
    std::error_code ec;
    std::vector<fs::path> partial;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (hidden(it->path()) && name.ends_with(".partial")) partial.push_back(it->path());
    }
    for (const fs::path& p : partial) {
      if (fs::remove(p, ec); ec) problem.set(p, ec);
    }
  }

  // A shard's table directory: its files, then the directory and its
  // start_block= parent when nothing else is in them.
  static void remove_shard_dir(const fs::path& dir, SweepFailure& problem) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) files.push_back(it->path());
    for (const fs::path& f : files) {
      if (fs::remove(f, ec); ec) problem.set(f, ec);
    }
    if (auto synced = sync_directory(dir.c_str()); !synced) problem.set(dir, synced.error().code());
    if (fs::remove(dir, ec)) fs::remove(dir.parent_path(), ec);
    (void)sync_directory(dir.parent_path().parent_path().c_str());
  }

  fs::path out_;
  const BlocksDirectory& dir_;
  const EtlExport& spec_;
};

class Exporter {
 public:
  Exporter(const EtlExport& spec, const BlocksDirectory& dir, const std::string& out)
      : spec_(spec), dir_(dir), out_(out), writer_(writer_name()) {}

  std::atomic<std::uint64_t> blocks_done{0};
  std::atomic<std::uint64_t> bytes_done{0};
  std::atomic<bool> stop{false};  // an I/O error: no shard more

  ShardOutcome run(const Shard& s) {
    ShardOutcome r;
    r.first = height_at(s.first);
    r.last = height_at(s.last);
    r.reached = true;
    const std::vector<TablePlace> places = places_of(s);
    // Whole already, or inside a longer whole shard of the same start (an
    // earlier run went further than this one's --count): nothing to make.
    if (whole(places, s.last) || covered(s)) {
      r.skipped = true;
      blocks_done += s.last - s.first + 1;
      remove_shorter(s, r);
      return r;
    }
    std::error_code ec;
    if (!write(s, places, r)) {
      remove_partials(places);
      return r;
    }
    // In place table by table, the blocks table last: it is what marks
    // the shard whole, so a crash in between leaves one a rerun makes
    // again, never old tables under a new marker.
    for (std::size_t i = places.size(); i-- > 0;) {
      const TablePlace& p = places[i];
      fs::rename(p.partial(writer_), p.path(), ec);
      if (ec) {
        fail(r, error(ec).in(p.path().string()));
        remove_partials(places);
        return r;
      }
      if (auto synced = sync_directory(p.dir.c_str()); !synced) {
        fail(r, synced.error().in(p.dir.string()));
        return r;
      }
    }
    remove_shorter(s, r);
    return r;
  }

 private:
  // (a shard's heights, below the tip: the caller planned them on the chain, or checked)
  static Height height_at(std::uint64_t height) noexcept { return *Height::checked(height); }
  IndexedBlock block(std::uint64_t height) const { return dir_.at_height(height_at(height)); }

  std::vector<TablePlace> places_of(const Shard& s) const {
    std::vector<TablePlace> places;
    for (const std::string_view t : export_tables(spec_.format)) places.push_back(place(out_, t, s, spec_.format, spec_.compress));
    return places;
  }

  // Every table is there, and the blocks table ends with the chain's block
  // at `last`.
  bool whole(const std::vector<TablePlace>& places, std::uint64_t last) const {
    std::error_code ec;
    for (const TablePlace& p : places) {
      if (!fs::is_regular_file(p.path(), ec)) return false;
    }
    if (const auto at = Height::checked(last); !at || !dir_.chain_size().contains(*at)) return false;
    const auto ends = ends_with_block(places[0], block(last).hash.to_hex());
    return ends && ends.value();  // (one that cannot be read is made again)
  }

  // The other shards of s's start, by their last height (end_block=N).
  std::vector<std::uint64_t> same_start_ends(const Shard& s) const {
    std::vector<std::uint64_t> ends;
    std::error_code ec;
    const fs::path start_dir = places_of(s)[0].dir.parent_path();
    for (fs::directory_iterator it(start_dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (const auto n = number_after(it->path(), "end_block="); n && *n != s.last) ends.push_back(*n);
    }
    return ends;
  }

  bool covered(const Shard& s) const {
    for (const std::uint64_t end : same_start_ends(s)) {
      if (end > s.last && whole(places_of({s.first, end}), end)) return true;
    }
    return false;
  }

  // A shorter shard of the same start, made when the chain or --count
  // ended sooner: this whole one replaces it, table by table. Longer ones,
  // and what another process is writing (hidden names), are left alone.
  void remove_shorter(const Shard& s, ShardOutcome& r) {
    for (const std::uint64_t end : same_start_ends(s)) {
      if (end >= s.last) continue;
      for (const TablePlace& p : places_of({s.first, end})) {
        std::error_code ec;
        fs::remove(p.path(), ec);
        if (!ec) fs::remove(p.dir, ec);  // only when nothing else is in it
        if (ec && ec != std::errc::directory_not_empty && ec != std::errc::no_such_file_or_directory) {
          fail(r, error(ec).in("removing the shorter shard " + p.path().string()));
        }
      }
    }
  }

  // A shard not made: its hidden files, and its directories when nothing
  // else is in them.
  void remove_partials(const std::vector<TablePlace>& places) const {
    for (const TablePlace& p : places) {
      std::error_code ec;
      fs::remove(p.partial(writer_), ec);
      if (fs::remove(p.dir, ec)) fs::remove(p.dir.parent_path(), ec);
    }
  }

  // Always false: what write() returns when the shard is not made.
  bool fail(ShardOutcome& r, error problem) {
    // An I/O error stops the run: the other shards would meet it too.
    if (problem.is_io()) stop = true;
    r.problem = std::move(problem);
    return false;
  }

  // The shard's tables under their temporary names, synced; false (and the
  // problem in r) when a block or a write failed.
  bool write(const Shard& s, const std::vector<TablePlace>& places, ShardOutcome& r) {
    std::vector<std::unique_ptr<TextOut>> files;
    std::vector<TextOut*> tables;
    for (const TablePlace& p : places) {
      std::error_code ec;
      fs::create_directories(p.dir, ec);
      if (ec) return fail(r, error(ec).in(p.dir.string()));
      auto file = CompressedFileWriter::create(p.partial(writer_).c_str(), spec_.compress);
      if (!file) return fail(r, file.error().in(p.partial(writer_).string()));
      files.push_back(std::make_unique<TextOut>(std::move(file).value()));
      tables.push_back(files.back().get());
    }
    const ExportFiles out{spec_.format, tables};
    write_export_headers(out);
    BlockRowsRoom room;
    for (std::uint64_t height = s.first; height <= s.last; ++height) {
      if (stop) return fail(r, error(io::errc::stopped).in("after an I/O error elsewhere"));
      const IndexedBlock b = block(height);
      // The block's place, said only when it fails.
      const auto where = [&] {
        return dir_.index().file_path(b.file) + ":" + std::to_string(b.offset) + ": block " + std::to_string(height) + " (" +
               b.hash.to_hex() + ")";
      };
      auto written = write_block_rows(dir_, b, out, room);
      if (!written) return fail(r, written.error().in(where()));
      r.transactions += written.value().transactions;
      r.block_bytes += written.value().bytes;
      ++blocks_done;
      bytes_done += written.value().bytes;
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (auto done = files[i]->finish(); !done) return fail(r, done.error().in(places[i].partial(writer_).string()));
    }
    return true;
  }

  const EtlExport& spec_;
  const BlocksDirectory& dir_;
  fs::path out_;
  std::string writer_;  // this export's part of its temporary files' names
};

}  // namespace

result<BlockRows> write_block_rows(const BlocksDirectory& dir, const IndexedBlock& b, const ExportFiles& out, BlockRowsRoom& room) {
  if (auto read = dir.read_block(b, room.block); !read) return read.error();
  auto view = BlockView::parse(room.block);
  if (!view) return view.error();
  const BlockView& v = view.value();
  if (block_hash(v.header()) != b.hash) return error(directory::errc::input_changed);
  // The rows are only as good as the bytes: the transactions must hash to
  // the header's root (the txids are the rows' anyway).
  std::vector<Txid>& txids = room.txids;
  txids.resize(v.transaction_count(), Txid::all_zeros());
  blockwire::txids(v, 0, txids);  // several transactions side by side
  bool mutated = false;
  if (merkle_root(txids, &mutated) != v.header().merkle_root) return error(check::errc::bad_merkle_root);
  if (mutated) return error(check::errc::mutated_merkle_root);
  std::optional<BlockUndo> undo;
  if (dir.has_undo()) {
    auto found = dir.undo_of(b, v);
    if (!found) return found.error().in("its undo data (" + undo_file_name(b.file) + ")");
    undo = std::move(found).value();
  }
  write_export_rows(out, {v, b.height, b.hash, txids, undo ? &*undo : nullptr, dir.net()});
  return BlockRows{v.transaction_count(), room.block.size()};
}

ExportCounts EtlReport::counts() const noexcept {
  return ExportCounts{shards.size(), made(), skipped(), failed(), transactions(), block_bytes(), removed, seconds, io_failed()};
}

std::vector<std::string> EtlReport::problem_lines() const {
  std::vector<std::string> lines;
  for (const ShardOutcome& s : shards) {
    if (s.problem) lines.push_back(shard_problem_line(s.first.to_wire(), s.last.to_wire(), s.problem->message()));
  }
  return lines;
}

std::string shard_problem_line(std::uint64_t first, std::uint64_t last, std::string_view why) {
  return "shard " + shard_number(first) + "-" + shard_number(last) + " not made: " + std::string(why);
}

std::string ExportCounts::summary(const std::string& out) const {
  const std::size_t not_reached = shards - made - skipped - failed;
  char rate[64];
  std::snprintf(rate, sizeof rate, " in %.2f s, %.0f MB/s), ", seconds,
                seconds > 0 ? static_cast<double>(block_bytes) / seconds / 1e6 : 0.0);
  std::string line = count_of(shards, "shard") + " into " + out + ": " + std::to_string(made) + " made (" +
                     count_of(transactions, "transaction") + ", " + with_commas(block_bytes) + " bytes of blocks" + rate +
                     std::to_string(skipped) + " already whole, " + std::to_string(failed) + " failed";
  if (not_reached != 0) line += ", " + std::to_string(not_reached) + " not reached";
  if (removed != 0) line += ", " + std::to_string(removed) + " removed (off the best chain)";
  return line;
}

int ExportCounts::exit_status(bool damaged) const noexcept {
  if (io_failed) return 2;
  return failed != 0 || damaged ? 1 : 0;
}

std::string shard_number(std::uint64_t n) {
  char text[24];
  std::snprintf(text, sizeof text, "%08llu", static_cast<unsigned long long>(n));
  return text;
}

std::size_t EtlReport::made() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(shards.begin(), shards.end(), [](const ShardOutcome& s) { return s.reached && !s.skipped && !s.problem; }));
}
std::size_t EtlReport::failed() const noexcept {
  return static_cast<std::size_t>(std::count_if(shards.begin(), shards.end(), [](const ShardOutcome& s) { return s.problem.has_value(); }));
}
std::size_t EtlReport::skipped() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(shards.begin(), shards.end(), [](const ShardOutcome& s) { return s.skipped && !s.problem; }));
}
bool EtlReport::io_failed() const noexcept {
  return std::any_of(shards.begin(), shards.end(), [](const ShardOutcome& s) { return s.problem && s.problem->is_io(); });
}
std::uint64_t EtlReport::transactions() const noexcept {
  std::uint64_t n = 0;
  for (const ShardOutcome& s : shards) {
    if (s.reached && !s.skipped && !s.problem) n += s.transactions;
  }
  return n;
}
std::uint64_t EtlReport::block_bytes() const noexcept {
  // The made shards' alone: a shard that failed (a full disk) read its
  // blocks, and holds none of them.
  std::uint64_t n = 0;
  for (const ShardOutcome& s : shards) {
    if (s.reached && !s.skipped && !s.problem) n += s.block_bytes;
  }
  return n;
}

result<EtlOutput> EtlOutput::open(const std::string& out_dir) {
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec)) return std::make_error_code(std::errc::not_a_directory);
  if (fs::create_directories(out_dir, ec), ec) return error(ec);
  auto lock = lock_file((fs::path(out_dir) / ".blockwire-export.lock").c_str(), true);
  if (!lock) return lock.error();
  return EtlOutput(out_dir, std::move(lock).value());
}

result<std::vector<ShardOutcome>> plan_shards(const BlocksDirectory& dir, const EtlExport& spec) {
  if (spec.shard_blocks == 0 || spec.from.to_wire() % spec.shard_blocks != 0) return std::make_error_code(std::errc::invalid_argument);
  // No chain at all (a mistyped path): every shard would look past its tip.
  if (dir.chain_size().empty()) return directory::errc::no_chain;
  const BlockCount tip = dir.chain_size();
  const std::uint64_t end = spec.end.empty() ? tip.value() : std::min(tip, spec.end).value();
  std::vector<ShardOutcome> shards;
  for (std::uint64_t first = spec.from.to_wire(); first < end; first += spec.shard_blocks) {
    ShardOutcome s;
    s.first = *Height::checked(first);
    s.last = *Height::checked(std::min(end, first + spec.shard_blocks) - 1);
    shards.push_back(s);
  }
  return shards;
}

result<std::size_t> remove_stale_shards(const BlocksDirectory& dir, const EtlOutput& out, const EtlExport& spec) {
  if (dir.chain_size().empty()) return directory::errc::no_chain;
  if (spec.shard_blocks == 0) return std::make_error_code(std::errc::invalid_argument);
  // Before anything is removed, damage or not: shards of two sizes overlap.
  const ShardDirs shards = shards_in(out.path());
  if (std::string why = other_shard_size(shards, spec.shard_blocks); !why.empty()) {
    return error(std::make_error_code(std::errc::invalid_argument)).in(why);
  }
  if (dir.damaged()) {
    if (spec.note) spec.note(dir.path() + " has damage: no shard of " + out.path() + " is removed for not being on its chain");
    return std::size_t{0};
  }
  SweepFailure failure;
  const std::size_t removed = Sweep(out.path(), dir, spec).run(shards, failure);
  if (!failure.text.empty()) {
    if (spec.note) spec.note("removing what left the chain: " + failure.text);
    return error(failure.code).in(failure.text);
  }
  return removed;
}

ShardOutcome export_shard(const BlocksDirectory& dir, const std::string& out_dir, const EtlExport& spec, Height first, Height last) {
  return Exporter(spec, dir, out_dir).run({first.to_wire(), last.to_wire()});
}

result<EtlReport> export_etl(const BlocksDirectory& dir, const EtlOutput& out, const EtlExport& spec) {
  auto planned = plan_shards(dir, spec);
  if (!planned) return planned.error();
  EtlReport report;
  auto removed = remove_stale_shards(dir, out, spec);
  if (!removed) return removed.error();
  report.removed = removed.value();
  report.shards = std::move(planned).value();
  Exporter exporter(spec, dir, out.path());
  // Two a core by default: a thread waits while its tables go to the disk
  // (O_DIRECT writes return when the device has the bytes), and another
  // formats meanwhile (4 threads on 2 cores: 192-223 MB/s, 2: 149-179).
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(
      report.shards.size(), spec.threads != 0 ? spec.threads : 2 * std::max(1u, std::thread::hardware_concurrency())));
  std::atomic<std::size_t> next{0};
  std::atomic<unsigned> running{threads};
  const auto work = [&] {
    for (std::size_t i; !exporter.stop && (i = next.fetch_add(1)) < report.shards.size();) {
      ShardOutcome& s = report.shards[i];
      const ShardOutcome made = exporter.run({s.first.to_wire(), s.last.to_wire()});
      s = made;
    }
    --running;
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  while (running != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (spec.progress) spec.progress(exporter.blocks_done, exporter.bytes_done);
  }
  for (auto& t : pool) t.join();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace blockwire::tables
