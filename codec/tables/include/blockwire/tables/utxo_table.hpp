// A node's UTXO set (its chainstate, read as read_core_coins reads it) as
// a table beside the export's, in the same formats (etl_rows.hpp's utxos
// row), laid out Hive-style by the height the set is at:
//   OUT/utxos/height=HHHHHHHH/utxos_HHHHHHHH_PPPP.EXT[.zst|.gz]
// P: parts of `part_coins` coins each, in the chainstate's key order. A
// height's folder is made whole or not at all: its parts are written in a
// hidden folder beside (engines skip names that begin with a dot), synced,
// and the folder renamed into place, replacing one of the same height;
// what a crash left of a run is removed by the next. OUT is locked as for
// an export (EtlOutput).
#pragma once

#include <blockwire/directory.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/tables/compressed_file.hpp>
#include <blockwire/tables/etl_export.hpp>
#include <blockwire/tables/etl_rows.hpp>

#include <cstdint>
#include <string>

namespace blockwire::tables {

struct UtxoExport {
  export_format format = export_format::ndjson;
  std::uint64_t part_coins = std::uint64_t{1} << 20;
  compression compress = compression::none;
  CoinsProgressFn progress;
};

struct UtxoExportReport {
  UtxoSetInfo info;                   // of the coins written (the hash as gettxoutsetinfo's)
  Height height = Height::genesis();  // of the set's best block
  std::string folder;                 // OUT/utxos/height=HHHHHHHH
  std::uint64_t parts = 0;
};

// Every coin of the chainstate in `chainstate_dir` as a row, with the hash
// and time of the block at its height on `blocks`' chain to the
// chainstate's best block (the node's blocks directory: its index).
// Errors: read_core_coins's; a best block `blocks` does not hold
// (directory::errc::unknown_best_block), one that changed while it was read
// (chainstate_changed); writing's (the system's, its context the file or
// folder). The caller names `chainstate_dir`.
result<UtxoExportReport> export_utxos(const std::string& chainstate_dir, const BlockIndex& blocks, const EtlOutput& out,
                                      const UtxoExport& spec);
// The same into `out_dir` without its lock: for a worker of an export
// whose caller holds it (blockwire.distributed.export_utxos, on the
// machine that has the chainstate).
result<UtxoExportReport> export_utxos(const std::string& chainstate_dir, const BlockIndex& blocks, const std::string& out_dir,
                                      const UtxoExport& spec);

}  // namespace blockwire::tables
