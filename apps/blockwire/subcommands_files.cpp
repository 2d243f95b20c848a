// The subcommands that read and write files (inspect, scan, pack, blocks,
// filters, export): their options and help, each bound to its options.
#include "commands.hpp"
#include "option_helpers.hpp"
#include "subcommands.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <thread>

namespace blockwire::cli {

CLI::App* add_inspect(CLI::App& app, InspectOptions& inspect) {
  auto* inspect_cmd =
      app.add_subcommand("inspect",
                         "Summarise one block or transaction (raw or hex, detected), or one record of a blk file.\n"
                         "--json prints Bitcoin Core's `getblock <hash> 2` (a block) or `decoderawtransaction` (a transaction)\n"
                         "shape: keys in Core's order, asm, desc, address (for --network) and type of each script.\n"
                         "Left out for a loose block: what needs the chain (confirmations, height, mediantime,\n"
                         "chainwork, nextblockhash) or undo data (fee, prevout). A record of a blocks directory (--offset)\n"
                         "has them: its chain from the directory, and with the same-numbered rev file, getblock 3's fees\n"
                         "and prevouts.");
  inspect_cmd->add_option("input", inspect.input, "a file, or - for standard input")->required()->type_name("FILE|-");
  inspect_cmd->add_flag("--json", inspect.json, "print JSON in Bitcoin Core's shape");
  inspect_cmd->add_option("--offset", inspect.offset, "read the record at this byte offset of a blk file (the offset of its magic)")
      ->check(whole_number())
      ->type_name("N");
  inspect_cmd->add_option("--xor-key", inspect.xor_key, "with --offset: the 16-hex-digit key (default: xor.dat beside the file)")
      ->type_name("HEX");
  add_network_option(*inspect_cmd, inspect.net);
  return inspect_cmd;
}

CLI::App* add_scan(CLI::App& app, ScanOptions& scan) {
  auto* scan_cmd = app.add_subcommand("scan",
                                      "Read blk files or Bitcoin Core blocks directories (reading xor.dat), decode every block, run\n"
                                      "check_block (proof of work, merkle root, coinbase, witness commitment), re-encode and compare\n"
                                      "the bytes. Reports damaged records with file:offset and the bytes skipped to the next one.");
  scan_cmd->add_option("paths", scan.paths, "blk*.dat files or blocks directories")->required()->type_name("PATH...");
  scan_cmd->add_option("--xor-key", scan.xor_key, "the 16-hex-digit key (default: each directory's xor.dat)")->type_name("HEX");
  add_network_option(*scan_cmd, scan.net);
  scan_cmd->add_flag("--json", scan.json, "print the summary as JSON");
  scan_cmd->add_flag("!--no-progress", scan.progress, "no progress bar (shown on a terminal only)");
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  scan_cmd->add_option("--threads", scan.threads, "checking threads (default: one per core; at most 4 per core)")
      ->check(whole_number(1))
      ->check([cores](const std::string& v) {
        return std::stoull(v) <= 4 * cores ? std::string() : "at most 4 x the cores (" + std::to_string(4 * cores) + " here), not " + v;
      })
      ->type_name("N");
  return scan_cmd;
}

CLI::App* add_pack(CLI::App& app, PackOptions& pack) {
  auto* pack_cmd = app.add_subcommand("pack",
                                      "Write blocks (files of one raw or hex block each) into Bitcoin Core-style blk files and xor.dat.\n"
                                      "A new directory gets a random XOR key, as Bitcoin Core 28+ does; --xor-key 0000000000000000\n"
                                      "writes plain files.");
  pack_cmd->add_option("-o,--output", pack.output_dir, "the blocks directory to write")->required()->type_name("DIR");
  pack_cmd->add_option("blocks", pack.inputs, "block files, raw or hex")->required()->type_name("BLOCKFILES...");
  auto* key_opt = pack_cmd->add_option("--xor-key", pack.xor_key, "the 16-hex-digit obfuscation key")->type_name("HEX");
  pack_cmd->add_flag("--random-key", pack.random_key, "a random key")->excludes(key_opt);
  pack_cmd->add_flag("--append", pack.append,
                     "add to the blk files already in DIR (with its key and its records' network: a block that shows\n"
                     "it is another network's is refused), all or nothing even across a crash; blocks DIR already\n"
                     "holds are skipped; a torn last record a crash left is cut off first");
  pack_cmd
      ->add_flag("--undo", pack.undo,
                 "also write rev files, Core's undo data, made from the blocks themselves (a new directory; the\n"
                 "blocks a chain from its genesis block, in order)")
      ->excludes("--append");
  add_network_option(*pack_cmd, pack.net);
  return pack_cmd;
}

CLI::App* add_blocks(CLI::App& app, BlocksOptions& blocks) {
  auto* blocks_cmd = app.add_subcommand("blocks",
                                        "A blocks directory's best chain in height order: an index of its headers (linked by previous\n"
                                        "hash, the chain with the most work), then each block as Bitcoin Core's getblock shows it\n"
                                        "(--json, --verbosity 0 hex, 1 txids, 2 transactions, 3 with prevouts from the rev files), with\n"
                                        "height, confirmations, mediantime, chainwork and next block; or one line a block.");
  blocks_cmd->add_option("dir", blocks.dir, "a blocks directory")->required()->type_name("DIR");
  blocks_cmd->add_option("--from", blocks.from, "the first height (default 0)")->check(whole_number())->type_name("HEIGHT");
  blocks_cmd->add_option("--count", blocks.count, "how many blocks (default: to the tip)")->check(whole_number(1))->type_name("N");
  blocks_cmd->add_flag("--json", blocks.json, "a JSON array, one getblock result a block");
  blocks_cmd
      ->add_option("--verbosity", blocks.verbosity,
                   "with --json: 0 hex, 1 txids (default), 2 transactions (with fees when DIR has rev files),\n"
                   "3 also each input's prevout (from the rev files)")
      ->check(CLI::Range(0, 3))
      ->type_name("0|1|2|3");
  add_directory_options(*blocks_cmd, blocks.xor_key, blocks.net);
  return blocks_cmd;
}

CLI::App* add_filters(CLI::App& app, FiltersOptions& filters) {
  auto* filters_cmd = app.add_subcommand("filters",
                                         "BIP158 basic filters and BIP157 filter headers of a blocks directory's best chain, from its\n"
                                         "blk and rev files (no node): one line a block, or with --json one object a block, as Core's\n"
                                         "getblockfilter gives it (filter, header) with height and hash. Every block from genesis is\n"
                                         "filtered (each header hashes the one before); a block without undo data ends the run.\n"
                                         "With --from-peer, the filters a node serves (BIP157), each checked, in the same shape.");
  filters_cmd->add_option("dir", filters.dir, "a blocks directory with rev files")->type_name("DIR");
  filters_cmd
      ->add_option("--from-peer", filters.peer,
                   "instead: download a node's filters (BIP157), each checked against its\n"
                   "filter header chain and the node's checkpoints")
      ->type_name("HOST[:PORT]");
  filters_cmd->add_option("--from", filters.from, "the first height shown (default 0)")->check(whole_number())->type_name("HEIGHT");
  filters_cmd->add_option("--count", filters.count, "how many blocks (default: to the tip)")->check(whole_number(1))->type_name("N");
  filters_cmd->add_flag("--json", filters.json, "a JSON array, one getblockfilter result a block");
  filters_cmd->add_option("--threads", filters.threads, "blocks filtered side by side (default: every core)")
      ->check(whole_number(1))
      ->type_name("N");
  add_directory_options(*filters_cmd, filters.xor_key, filters.net);
  return filters_cmd;
}

CLI::App* add_addresses(CLI::App& app, AddressesOptions& addresses) {
  auto* cmd = app.add_subcommand("addresses",
                                 "The address index of a blocks directory's best chain, made from its blk and rev files (no node) or\n"
                                 "brought to its tip: for every output script, the blocks that fund it or spend from it and what they\n"
                                 "did there. Kept beside the directory's kept index; what rest --addresses answers Esplora's\n"
                                 "/api/address/ routes from. Safe to stop at any point: the next run goes on from the last block\n"
                                 "written. Says its size and the time it took at the end.");
  cmd->add_option("dir", addresses.dir, "a blocks directory with rev files")->required()->type_name("DIR");
  cmd->add_option("show", addresses.show,
                  "addresses of the directory's network or scripthashes (Esplora's: SHA-256 of the script, 64 hex digits) whose\n"
                  "totals to print, a JSON line each (Esplora's chain_stats)")
      ->type_name("ADDRESS|SCRIPTHASH");
  cmd->add_option("--threads", addresses.threads, "blocks read and hashed side by side (default: every core)")
      ->check(whole_number(1))
      ->type_name("N");
  add_directory_options(*cmd, addresses.xor_key, addresses.net);
  return cmd;
}

CLI::App* add_export(CLI::App& app, ExportOptions& exports) {
  auto* export_cmd =
      app.add_subcommand("export",
                         "A blocks directory's best chain as tables for analytics engines (DuckDB, BigQuery, Spark, Athena), in\n"
                         "bitcoin-etl's schema, from its blk and rev files (no node): NDJSON blocks and transactions (inputs and\n"
                         "outputs nested), or CSV blocks, transactions, inputs and outputs. Input values, types and addresses\n"
                         "come from the rev files (null without them). Shards of --shard-blocks heights, Hive-style:\n"
                         "OUT/TABLE/start_block=XXXXXXXX/end_block=YYYYYYYY/TABLE_XXXXXXXX_YYYYYYYY.EXT[.zst|.gz], each written whole\n"
                         "(under a temporary name, then renamed) and independent of the others; a rerun skips the whole ones and removes\n"
                         "those whose blocks left the best chain (a reorg). One export at a time into an OUT (it is locked).\n"
                         "A shard with a damaged block is not made (said, with the block's place; exit status 1).");
  export_cmd->add_option("dir", exports.dir, "a blocks directory (with rev files for input values)")->required()->type_name("DIR");
  export_cmd->add_option("-o,--output", exports.output_dir, "where the shards go (created when missing)")->required()->type_name("OUT");
  export_cmd->add_option("--from", exports.from, "the first height (default 0; a multiple of --shard-blocks)")
      ->check(whole_number())
      ->type_name("HEIGHT");
  export_cmd->add_option("--count", exports.count, "how many blocks (default: to the tip)")->check(whole_number(1))->type_name("N");
  add_format_option(*export_cmd, exports.format, "ndjson (default): blocks and transactions, a JSON object a line; csv: four flat tables");
  add_compress_option(*export_cmd, exports.compress);
  export_cmd
      ->add_option("--shard-blocks", exports.shard_blocks,
                   "heights a shard (default 1000). An OUT holds shards of one size: an export of another\n"
                   "into it is refused (exit 2, nothing made or removed; the two would hold blocks twice)")
      ->check(whole_number(1))
      ->type_name("N");
  export_cmd
      ->add_option("--threads", exports.threads,
                   "shards made side by side (default: two a core, one formatting while another's\n"
                   "tables go to the disk)")
      ->check(whole_number(1))
      ->type_name("N");
  export_cmd->add_flag("!--no-progress", exports.progress, "no progress bar (shown on a terminal only)");
  export_cmd
      ->add_option("--scheduler", exports.scheduler,
                   "make the shards on the workers of a running Dask scheduler (tcp://HOST:8786), each opening DIR\n"
                   "itself (a path every worker sees, or a copy at the same path; OUT too): the same shards and summary.\n"
                   "Runs Python's blockwire.distributed (BLOCKWIRE_PYTHON names the interpreter; see docs/export.md)")
      ->type_name("ADDRESS")
      ->excludes("--threads");
  add_directory_options(*export_cmd, exports.xor_key, exports.net);
  return export_cmd;
}

}  // namespace blockwire::cli
