// export's three steps for Python (etl_export.hpp: plan_shards,
// remove_stale_shards, export_shard), the utxos table (utxo_table.hpp) and
// OUT's lock: what blockwire.distributed runs on a Dask cluster, the
// caller planning, sweeping and holding the lock, the workers writing.
#include "directory_object.hpp"

#include <blockwire/directory/chain_walk.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/tables/etl_export.hpp>
#include <blockwire/tables/utxo_table.hpp>

#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <vector>

namespace blockwire::python {

namespace {

// OUT locked for one export until close() (or the with block's end). A
// call that uses it with the interpreter's lock released (the sweep of
// remove_stale_shards) holds a Use: the output kept alive by its pointer,
// and `busy` held shared, so that close() in another thread waits for the
// call to end before it releases OUT's lock (no sweep of an OUT another
// export may have locked since, and no output destroyed under the sweep).
class ExportOutput {
 public:
  explicit ExportOutput(tables::EtlOutput opened) : out_(std::make_shared<const tables::EtlOutput>(std::move(opened))) {}
  ExportOutput(const ExportOutput&) = delete;
  ExportOutput& operator=(const ExportOutput&) = delete;

  struct Use {
    std::shared_lock<std::shared_mutex> busy;  // (released after `out`: the last owner is close()'s)
    std::shared_ptr<const tables::EtlOutput> out;
  };
  // With the interpreter's lock held: ValueError once closed. While out_ is
  // set no close() has begun, so nothing holds `busy` alone: this does not wait.
  Use use() const {
    if (!out_) throw py::value_error("the export output was closed (its lock released)");
    return Use{std::shared_lock(busy_), out_};
  }
  const tables::EtlOutput& held() const {
    if (!out_) throw py::value_error("the export output was closed (its lock released)");
    return *out_;
  }
  // With the interpreter's lock held on entry: closed at once for every
  // later call, then (the interpreter's lock released) the calls still
  // using it waited for, and OUT's lock released.
  void close() {
    std::shared_ptr<const tables::EtlOutput> closing = std::move(out_);
    out_.reset();
    if (!closing) return;
    const Unlocked unlocked;
    const std::unique_lock alone(busy_);
    closing.reset();
  }

 private:
  std::shared_ptr<const tables::EtlOutput> out_;  // read and reset with the interpreter's lock held
  mutable std::shared_mutex busy_;
};

tables::export_format format_named(const std::string& format) {
  const auto named = tables::export_format_named(format);
  if (!named) throw py::value_error("format '" + format + "' is not ndjson or csv");
  return *named;
}

tables::compression compression_of(const std::string& compress) {
  const auto c = tables::compression_named(compress);
  if (!c) throw py::value_error("compress '" + compress + "' is not none, zstd or gzip");
  return *c;
}

tables::EtlExport spec_of(const std::string& format, std::uint64_t shard_blocks, std::uint64_t from_height, std::uint64_t end,
                          const std::string& compress) {
  tables::EtlExport spec;
  spec.format = format_named(format);
  spec.compress = compression_of(compress);
  if (shard_blocks == 0) throw py::value_error("shard_blocks must be at least 1");
  if (from_height % shard_blocks != 0) {
    throw py::value_error("from_height " + std::to_string(from_height) + " is not a multiple of shard_blocks " +
                          std::to_string(shard_blocks) + ": shards start at multiples of it, so that separate runs make the same shards");
  }
  spec.shard_blocks = shard_blocks;
  spec.from = height_named(from_height, "from_height");
  spec.end = BlockCount(end);
  return spec;
}

py::dict outcome_dict(const tables::ShardOutcome& s) {
  py::dict d;
  d["first"] = s.first.to_wire();
  d["last"] = s.last.to_wire();
  d["reached"] = s.reached;
  d["skipped"] = s.skipped;
  d["made"] = s.reached && !s.skipped && !s.problem;
  d["problem"] = s.problem ? py::object(py::str(s.problem->message())) : py::object(py::none());
  d["io_failure"] = s.problem && s.problem->is_io();
  d["transactions"] = s.transactions;
  d["block_bytes"] = s.block_bytes;
  return d;
}

}  // namespace

void add_export(py::module_& m) {
  py::class_<ExportOutput>(m, "ExportOutput",
                           "An export's OUT, made when missing and locked for one export at a time (OUT/.blockwire-export.lock) "
                           "until close() or the end of a with block.")
      .def_property_readonly("path", [](const ExportOutput& o) { return filesystem_text(o.held().path()); })
      .def("close", &ExportOutput::close)
      .def("__enter__", [](ExportOutput& o) -> ExportOutput& { return o; })
      .def("__exit__", [](ExportOutput& o, const py::args&) { o.close(); });

  m.def(
      "lock_export_output",
      [](const std::string& path) {
        auto opened = tables::EtlOutput::open(path);
        if (!opened) raise(opened.error().in(path));
        return std::make_unique<ExportOutput>(std::move(opened).value());
      },
      py::arg("path"), "OUT made when missing and locked for an export (IOFailure when another export holds it).");

  m.def(
      "plan_shards",
      [](const DirectoryPtr& d, std::uint64_t shard_blocks, std::uint64_t from_height, std::uint64_t end) {
        const tables::EtlExport spec = spec_of("ndjson", shard_blocks, from_height, end, "none");
        std::vector<std::tuple<std::uint64_t, std::uint64_t, std::string>> shards;
        std::optional<error> failed;
        {
          const Unlocked unlocked;  // (while the directory's lock is waited for, and held)
          const std::shared_lock held(d->lock);
          auto planned = tables::plan_shards(d->dir, spec);
          if (!planned) {
            failed = planned.error().in(d->path);
          } else {
            for (const tables::ShardOutcome& s : planned.value())
              shards.emplace_back(s.first.to_wire(), s.last.to_wire(), d->dir.at_height(s.last).hash.to_hex());
          }
        }
        if (failed) raise(*failed);
        return shards;
      },
      py::arg("directory"), py::arg("shard_blocks") = 1000, py::arg("from_height") = 0, py::arg("end") = 0,
      "export's shards of heights [from_height, end) of the directory's chain (end 0: to the tip), each (first, last, the "
      "hash of the block at last).");

  m.def(
      "plan_chain_walk",
      [](const DirectoryPtr& d, const std::string& shown, std::uint64_t from_height, std::uint64_t count, std::uint64_t align,
         const py::object& note) {
        if (align == 0) throw py::value_error("align must be at least 1");
        const ChainWalk walk = [&] {
          const Unlocked unlocked;
          const std::shared_lock held(d->lock);
          return plan_chain_walk(d->dir, shown, from_height, BlockCount(count), align);
        }();
        for (const std::string& line : walk.notes) note(filesystem_text(line));
        if (walk.failure) raise(*walk.failure);
        return std::make_pair(std::uint64_t{walk.from.to_wire()}, walk.end.value());
      },
      py::arg("directory"), py::arg("shown"), py::arg("from_height"), py::arg("count"), py::arg("align"), py::arg("note"),
      "The heights (from, end) a command walking the directory's best chain reads from from_height (count blocks, 0: to "
      "the tip; a pruned directory's moved up to a multiple of align); from == end: nothing to read. note(line) is called "
      "first with each line the command says (naming the directory as shown). Then DataError for blocks of no chain, "
      "UsageError for from_height past the tip.");

  m.def(
      "export_summary",
      [](const std::string& out, std::size_t shards, std::size_t made, std::size_t skipped, std::size_t failed, std::uint64_t transactions,
         std::uint64_t block_bytes, std::size_t removed, double seconds, bool io_failed, bool damaged) {
        const tables::ExportCounts counts{shards, made, skipped, failed, transactions, block_bytes, removed, seconds, io_failed};
        return std::make_pair(counts.summary(out), counts.exit_status(damaged));
      },
      py::arg("out"), py::arg("shards"), py::arg("made"), py::arg("skipped"), py::arg("failed"), py::arg("transactions"),
      py::arg("block_bytes"), py::arg("removed"), py::arg("seconds"), py::arg("io_failed"), py::arg("damaged"),
      "The summary line and exit status of an export that came to these counts, as the command says them.");

  m.def(
      "shard_problem_line",
      [](std::uint64_t first, std::uint64_t last, const std::string& why) { return tables::shard_problem_line(first, last, why); },
      py::arg("first"), py::arg("last"), py::arg("why"), "A shard not made, as the command says it: \"shard FIRST-LAST not made: WHY\".");

  m.def(
      "remove_stale_shards",
      [](const DirectoryPtr& d, const ExportOutput& out, std::uint64_t shard_blocks) {
        if (shard_blocks == 0) throw py::value_error("shard_blocks must be at least 1");
        tables::EtlExport spec;
        spec.shard_blocks = shard_blocks;  // (OUT's shards of another size refused: UsageError)
        std::vector<std::string> notes;
        spec.note = [&](std::string_view line) { notes.emplace_back(line); };
        ExportOutput::Use use = out.use();
        result<std::size_t> removed = [&] {
          const Unlocked unlocked;
          const std::shared_lock held(d->lock);
          return tables::remove_stale_shards(d->dir, *use.out, spec);
        }();
        const std::string path = use.out->path();
        use.out.reset();  // (a close() waiting for the sweep goes on: the output is its to destroy)
        use.busy.unlock();
        if (!removed) raise(removed.error().in(path));
        return std::make_pair(removed.value(), notes);
      },
      py::arg("directory"), py::arg("output"), py::arg("shard_blocks") = 1000,
      "What left the directory's chain removed from the locked output, as blockwire export removes it before making "
      "shards: (the shards removed, the lines that say what and why). An output holding shards of another size than "
      "shard_blocks is refused (UsageError), nothing removed.");

  m.def(
      "export_shard",
      [](const DirectoryPtr& d, const std::string& out, std::uint64_t first, std::uint64_t last, const std::string& format,
         std::uint64_t shard_blocks, const std::string& compress, const std::optional<std::string>& last_hash) {
        if (shard_blocks == 0) throw py::value_error("shard_blocks must be at least 1");
        if (first % shard_blocks != 0 || last < first || last - first >= shard_blocks) {
          throw py::value_error("shard " + std::to_string(first) + "-" + std::to_string(last) + " is not one of shard_blocks " +
                                std::to_string(shard_blocks));
        }
        const tables::EtlExport spec = spec_of(format, shard_blocks, first, last + 1, compress);
        tables::ShardOutcome made;
        made.first = height_named(first, "first");
        made.last = height_named(last, "last");
        {
          const Unlocked unlocked;
          const std::shared_lock held(d->lock);
          // Checked under the hold that makes the shard: a refresh between
          // a check and the shard could move the chain to another branch.
          const bool past = !d->dir.chain_size().contains(made.last);
          if (past || (last_hash && d->dir.at_height(made.last).hash.to_hex() != *last_hash)) {
            made.reached = true;
            made.problem = error(directory::errc::other_chain)
                               .in(d->path + " has " +
                                   (past ? "no block at height " + std::to_string(last)
                                         : "block " + d->dir.at_height(made.last).hash.to_hex() + " at height " + std::to_string(last)) +
                                   (last_hash ? ", not the caller's " + *last_hash : std::string()));
          } else {
            made = tables::export_shard(d->dir, out, spec, made.first, made.last);
          }
        }
        return outcome_dict(made);
      },
      py::arg("directory"), py::arg("out"), py::arg("first"), py::arg("last"), py::kw_only(), py::arg("format") = "ndjson",
      py::arg("shard_blocks") = 1000, py::arg("compress") = "none", py::arg("last_hash") = py::none(),
      "Shard [first, last] made in out (or skipped when whole) as blockwire export makes it, when the directory's block at "
      "last is last_hash (when given); takes no lock: for a worker of an export whose caller holds the output's. A dict: "
      "first, last, reached, skipped, made, problem (why not made, or None), io_failure, transactions, block_bytes.");

  m.def(
      "export_utxos",
      [](const std::string& chainstate, const DirectoryPtr& d, const std::string& out, const std::string& format,
         const std::string& compress, std::uint64_t part_coins) {
        tables::UtxoExport spec;
        spec.format = format_named(format);
        spec.compress = compression_of(compress);
        if (part_coins == 0) throw py::value_error("part_coins must be at least 1");
        spec.part_coins = part_coins;
        result<tables::UtxoExportReport> made = [&] {
          const Unlocked unlocked;
          const std::shared_lock held(d->lock);
          return tables::export_utxos(chainstate, d->dir.index(), out, spec);
        }();
        if (!made) raise(made.error().in(chainstate));
        const tables::UtxoExportReport& r = made.value();
        py::dict report;
        report["height"] = r.height.to_wire();
        report["folder"] = filesystem_text(r.folder);
        report["parts"] = r.parts;
        report["best_block"] = r.info.best_block.to_hex();
        report["transactions"] = r.info.transactions;
        report["txouts"] = r.info.txouts;
        report["bogosize"] = r.info.bogosize;
        report["total_amount"] = r.info.total_amount ? py::object(py::int_(r.info.total_amount->to_sat())) : py::object(py::none());
        report["hash_serialized_3"] = r.info.hash_serialized_3.to_hex();
        return report;
      },
      py::arg("chainstate"), py::arg("directory"), py::arg("out"), py::kw_only(), py::arg("format") = "ndjson",
      py::arg("compress") = "none", py::arg("part_coins") = std::uint64_t{1} << 20,
      "blockwire utxos --tables: the chainstate's coins as the utxos table in out (OUT/utxos/height=H/), each coin's block "
      "from the directory's index; takes no lock (the caller of the export holds it). A dict: height, folder, parts and "
      "gettxoutsetinfo's best_block, transactions, txouts, bogosize, total_amount (satoshis), hash_serialized_3.");
}

}  // namespace blockwire::python
