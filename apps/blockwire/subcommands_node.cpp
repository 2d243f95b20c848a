// The subcommands that fetch from a node or keep state beside a directory
// (fetch, utxos, prune): their options and help, each bound to its
// options.
#include "commands.hpp"
#include "option_helpers.hpp"
#include "subcommands.hpp"

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace blockwire::cli {

CLI::App* add_fetch(CLI::App& app, FetchOptions& fetch) {
  auto* fetch_cmd =
      app.add_subcommand("fetch",
                         "Sync a blocks directory (Bitcoin Core's layout, xor.dat) from a node, headers first: getheaders\n"
                         "from the directory's best tip, each header checked (links, proof of work), then the blocks, 16 in\n"
                         "flight, each checked (check_block) and appended whole in chain order. A rerun goes on from where\n"
                         "the last one stopped (a torn last record a crash left is cut off, and said); the directory is locked\n"
                         "while fetching. A peer that breaks the protocol or sends a bad block ends the run with exit status 1,\n"
                         "naming what it did and at which byte; so does damage found in DIR (after the sync). Each block's undo\n"
                         "record is written into revNNNNN.dat as Bitcoin Core writes it, from a UTXO set kept beside the blocks\n"
                         "(DIR/blockwire-utxos, in the format of Core's chainstate; built from the directory's blocks the first\n"
                         "time), so that filters, fees and prevouts of fetched blocks need no node. The connection is BIP324's\n"
                         "encrypted v2 transport, as Core's default, or v1 when the node hangs up on it (--v1: v1 at once).");
  fetch_cmd->add_option("peer", fetch.peer, "the node: HOST, HOST:PORT or [IPv6]:PORT (default port: the network's)")
      ->required()
      ->type_name("HOST[:PORT]");
  fetch_cmd->add_option("-o,--output", fetch.output_dir, "the blocks directory to write (created when missing)")
      ->required()
      ->type_name("DIR");
  fetch_cmd->add_option("--max-blocks", fetch.max_blocks, "stop after this many blocks (default: up to the peer's tip)")
      ->check(whole_number(1))
      ->type_name("N");
  fetch_cmd
      ->add_option("--timeout", fetch.timeout_seconds,
                   "seconds for connecting, the handshake, silence and one message each (default 10, 30, 60, 60)")
      ->check(CLI::Range(1u, 3600u))
      ->type_name("SECONDS");
  fetch_cmd->add_option("--xor-key", fetch.xor_key, "a new directory's key (default: random, as Core 28+)")->type_name("HEX");
  fetch_cmd->add_flag("--json", fetch.json, "print the summary as JSON");
  fetch_cmd->add_flag("--v1", fetch.v1,
                      "speak v1's plaintext at once (default: BIP324's encrypted v2 first, as Core does, and v1 again\n"
                      "when the peer hangs up at our key)");
  fetch_cmd->add_flag("!--no-progress", fetch.progress, "no progress bar (shown on a terminal only)");
  fetch_cmd
      ->add_option("--dbcache", fetch.dbcache_mib,
                   "MiB of UTXO set changes held in memory before they are written with the undo records synced (default 256;\n"
                   "Core's -dbcache): more is faster, less loses less to a crash")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->type_name("MIB");
  fetch_cmd->add_flag("!--no-undo", fetch.undo,
                      "blocks alone: no UTXO set kept (DIR/blockwire-utxos) and no undo records written, so a chain whose blocks\n"
                      "spend what it never made is fetched too; filters, fees and prevouts then need rev files from elsewhere");
  add_network_option(*fetch_cmd, fetch.net);
  return fetch_cmd;
}

CLI::App* add_utxos(CLI::App& app, UtxosOptions& utxos) {
  auto* utxos_cmd =
      app.add_subcommand("utxos",
                         "The UTXO set of a Bitcoin Core node's chainstate (DATADIR/chainstate), read in key order from a\n"
                         "private snapshot (nothing written into it; a running node's lock no obstacle): what gettxoutsetinfo\n"
                         "says with hash_type hash_serialized_3 (best block, transactions, txouts, bogosize, the hash, the total\n"
                         "amount). A damaged chainstate is an error naming the coin, never a short set; one with no best block\n"
                         "yet (a node's before its first flush; fetch's DIR/blockwire-utxos while it is made, until its first\n"
                         "blocks are written) is the error \"no best block\" (exit 1), never an empty set. The network (for\n"
                         "--snapshot's magic) is that of the blocks directory beside (CHAINSTATE/../blocks) unless --network\n"
                         "says.");
  utxos_cmd->add_option("chainstate", utxos.chainstate, "a node's chainstate folder")->required()->type_name("CHAINSTATE");
  utxos_cmd->add_flag("--json", utxos.json, "as gettxoutsetinfo's JSON (its keys, in its order)");
  utxos_cmd
      ->add_option("--snapshot", utxos.snapshot,
                   "also write the set as Bitcoin Core's dumptxoutset does, whole or not at all (Core's loadtxoutset takes\n"
                   "one at a height its chain parameters list, on a node that has the block's header)")
      ->type_name("FILE");
  utxos_cmd
      ->add_option("--tables", utxos.tables,
                   "also write the set as a table (a row a coin: its output's columns as export's outputs table has them, its\n"
                   "block's height, hash and time) in OUT/utxos/height=H/, loadable by DuckDB beside export's tables")
      ->type_name("OUT")
      ->excludes("--snapshot");
  add_format_option(*utxos_cmd, utxos.format, "of --tables: ndjson (default) or csv");
  add_compress_option(*utxos_cmd, utxos.compress);
  utxos_cmd
      ->add_option("--scheduler", utxos.scheduler,
                   "write --tables on a worker of a running Dask scheduler (tcp://HOST:8786), one that sees CHAINSTATE and\n"
                   "the blocks directory at these paths (OUT too), while this process holds OUT's lock. Runs Python's\n"
                   "blockwire.distributed (BLOCKWIRE_PYTHON names the interpreter; see docs/export.md)")
      ->type_name("ADDRESS")
      ->needs("--tables");
  utxos_cmd->add_option("--blocks", utxos.blocks, "the node's blocks directory, for --tables (default: CHAINSTATE/../blocks)")
      ->type_name("DIR");
  add_network_option(*utxos_cmd, utxos.net);
  utxos_cmd->add_flag("!--no-progress", utxos.progress, "no progress bar (shown on a terminal only)");
  return utxos_cmd;
}

CLI::App* add_prune(CLI::App& app, PruneOptions& prune) {
  auto* prune_cmd =
      app.add_subcommand("prune",
                         "Prune a blocks directory blockwire writes (fetch's, pack's) as a pruned node prunes its own: every blk\n"
                         "file whose blocks are all below the last --keep, and its rev file, deleted whole (never the last\n"
                         "file). The headers of the pruned blocks stay, in DIR/index, Bitcoin Core's block index format, written\n"
                         "before anything is deleted; every command then reads DIR as a pruned node's directory. A node's own\n"
                         "directory is refused (the node prunes it), and so are a damaged one and one whose UTXO set\n"
                         "(DIR/blockwire-utxos) still needs the blocks. Holds the directory's lock: not while fetch writes it.");
  prune_cmd->add_option("dir", prune.dir, "a blocks directory blockwire writes")->required()->type_name("DIR");
  prune_cmd
      ->add_option("--keep", prune.keep,
                   "the blocks at the tip whose data stays (default and least: 288, Core's MIN_BLOCKS_TO_KEEP, for a\n"
                   "reorganization that deep)")
      ->check(CLI::Range(std::size_t{288}, std::size_t{1} << 31))
      ->type_name("N");
  prune_cmd->add_flag("--dry-run", prune.dry_run, "say what would be deleted; change nothing");
  prune_cmd->add_flag("--json", prune.json, "print the result as JSON (files, bytes, pruneheight, blocks, dry_run)");
  return prune_cmd;
}

}  // namespace blockwire::cli
