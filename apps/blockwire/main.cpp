// blockwire: Bitcoin blocks and transactions, and Bitcoin Core's block files.
#include "commands.hpp"
#include "option_helpers.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

using namespace blockwire;
using cli::add_directory_options;
using cli::add_format_option;
using cli::add_network_option;
using cli::whole_number;

int main(int argc, char** argv) {
  // A file-size limit (RLIMIT_FSIZE) then fails a write with EFBIG, which is
  // reported, instead of killing the process mid-record.
  std::signal(SIGXFSZ, SIG_IGN);

  CLI::App app{
      "blockwire: Bitcoin blocks and transactions, and Bitcoin Core's block files.\n"
      "Exit status: 0 success, 1 bad data found, 2 usage or I/O error."};
  app.require_subcommand(1);

  cli::InspectOptions inspect;
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

  cli::ScanOptions scan;
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

  cli::PackOptions pack;
  auto* pack_cmd = app.add_subcommand("pack",
                                      "Write blocks (files of one raw or hex block each) into Bitcoin Core-style blk files and xor.dat.\n"
                                      "A new directory gets a random XOR key, as Bitcoin Core 28+ does; --xor-key 0000000000000000\n"
                                      "writes plain files.");
  pack_cmd->add_option("-o,--output", pack.output_dir, "the blocks directory to write")->required()->type_name("DIR");
  pack_cmd->add_option("blocks", pack.inputs, "block files, raw or hex")->required()->type_name("BLOCKFILES...");
  auto* key_opt = pack_cmd->add_option("--xor-key", pack.xor_key, "the 16-hex-digit obfuscation key")->type_name("HEX");
  pack_cmd->add_flag("--random-key", pack.random_key, "a random key")->excludes(key_opt);
  pack_cmd->add_flag("--append", pack.append,
                     "add to the blk files already in DIR (with its key), all or nothing even across a crash;\n"
                     "blocks DIR already holds are skipped; a torn last record a crash left is cut off first");
  pack_cmd
      ->add_flag("--undo", pack.undo,
                 "also write rev files, Core's undo data, made from the blocks themselves (a new directory; the\n"
                 "blocks a chain from its genesis block, in order)")
      ->excludes("--append");
  add_network_option(*pack_cmd, pack.net);

  cli::BlocksOptions blocks;
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

  cli::FiltersOptions filters;
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

  cli::ExportOptions exports;
  auto* export_cmd =
      app.add_subcommand("export",
                         "A blocks directory's best chain as tables for analytics engines (DuckDB, BigQuery, Spark, Athena), in\n"
                         "bitcoin-etl's schema, from its blk and rev files (no node): NDJSON blocks and transactions (inputs and\n"
                         "outputs nested), or CSV blocks, transactions, inputs and outputs. Input values, types and addresses\n"
                         "come from the rev files (null without them). Shards of --shard-blocks heights, Hive-style:\n"
                         "OUT/TABLE/start_block=XXXXXXXX/end_block=YYYYYYYY/TABLE_XXXXXXXX_YYYYYYYY.EXT, each written whole\n"
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
  export_cmd->add_option("--shard-blocks", exports.shard_blocks, "heights a shard (default 1000)")->check(whole_number(1))->type_name("N");
  export_cmd
      ->add_option("--threads", exports.threads,
                   "shards made side by side (default: two a core, one formatting while another's\n"
                   "tables go to the disk)")
      ->check(whole_number(1))
      ->type_name("N");
  export_cmd->add_flag("!--no-progress", exports.progress, "no progress bar (shown on a terminal only)");
  add_directory_options(*export_cmd, exports.xor_key, exports.net);

  cli::FetchOptions fetch;
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
                         "time), so that filters, fees and prevouts of fetched blocks need no node.");
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

  cli::ServeOptions serve;
  auto* serve_cmd =
      app.add_subcommand("serve",
                         "Serve a blocks directory to Bitcoin peers, read-only: the handshake; headers (getheaders,\n"
                         "sendheaders), the inv route (getblocks, inv, and an inv of the tip after each batch of 500), blocks\n"
                         "(witness and stripped), compact blocks (cmpctblock within 5 of the tip, blocktxn within 10), an empty\n"
                         "addr for getaddr, notfound for transactions and filtered blocks, pings answered. Blocks appended to DIR\n"
                         "while it runs (by fetch, or a node) are read within a second and announced to every peer.\n"
                         "Limits: --max-peers peers, a thread each; a peer's memory is its largest message (4,000,000 bytes)\n"
                         "plus a block read for it and the buffers; a handshake has 30 s, a message 5 s for its envelope and\n"
                         "100 kB/s for the rest (60 s at most, either way); 20 minutes of silence ends a peer. A misbehaving\n"
                         "peer is dropped alone. Prints \"listening on ADDR:PORT\" on standard output; SIGINT or SIGTERM stops it.");
  serve_cmd->add_option("dir", serve.dir, "a blocks directory")->required()->type_name("DIR");
  serve_cmd->add_option("--listen", serve.listen, "the address and port (default: every address, the network's port; port 0: any free one)")
      ->check(cli::listen_address())
      ->type_name("ADDR:PORT");
  serve_cmd
      ->add_option("--max-peers", serve.max_peers,
                   "peers served at once (default 8); when all are taken, the one longest in its handshake (over 1 s;\n"
                   "10 s at most) is evicted for the newcomer, else the youngest of the netgroup (/16) holding the most\n"
                   "slots, when that is more than the newcomer's, not one that asked for data in the last 2 minutes;\n"
                   "else the newcomer is refused")
      ->check(CLI::Range(1u, 1000u))
      ->type_name("N");
  serve_cmd
      ->add_option("--ping-interval", serve.ping_seconds,
                   "seconds between our pings to a peer (default 120, Core's); one that leaves a ping unanswered for as\n"
                   "long goes first when a slot is needed, and after 20 minutes it is dropped")
      ->check(CLI::Range(1u, 3600u))
      ->type_name("SECONDS");
  serve_cmd
      ->add_option("--max-per-address", serve.max_per_address,
                   "peers from one address at once (default: half of --max-peers); its sockets that never finished a\n"
                   "handshake make room first")
      ->check(CLI::Range(1u, 1000u))
      ->type_name("N");
  serve_cmd
      ->add_option("--timeout", serve.timeout_seconds,
                   "seconds of silence, and for one message either way, before a peer is dropped (default: 1,200\n"
                   "idle; a message's 24-byte envelope within 5 s of its first byte, the whole at 100 kB/s, 60 s at most)")
      ->check(CLI::Range(1u, 86400u))
      ->type_name("SECONDS");
  add_directory_options(*serve_cmd, serve.xor_key, serve.net);

  cli::RestOptions rest;
  auto* rest_cmd =
      app.add_subcommand("rest",
                         "Bitcoin Core's REST interface over a blocks directory, no node: /rest/block, /rest/block/notxdetails,\n"
                         "/rest/blockpart, /rest/headers, /rest/blockhashbyheight, /rest/blockfilter, /rest/blockfilterheaders,\n"
                         "/rest/spenttxouts, /rest/tx (--txindex), /rest/getutxos (from a chainstate), /rest/chaininfo,\n"
                         "/rest/deploymentinfo, /rest/mempool (an empty one), in .bin, .hex and .json where Core has\n"
                         "them, with Core's status codes and error texts. HTTP/1.1 with keep-alive (Boost.Beast), a thread a core;\n"
                         "a request's headers are bounded (16 KiB) and its reading (10 s, 60 s idle between requests). Blocks\n"
                         "appended to DIR while it runs are read within a second. Prints \"listening on ADDR:PORT\"; SIGINT or\n"
                         "SIGTERM stops it. An explorer page at / reads the same interface.");
  rest_cmd->add_option("dir", rest.dir, "a blocks directory")->required()->type_name("DIR");
  rest_cmd->add_option("--listen", rest.listen, "the address and port (default 127.0.0.1:8332; [IPv6]:PORT; port 0: any free one)")
      ->check(cli::listen_address())
      ->type_name("ADDR:PORT");
  rest_cmd
      ->add_option("--max-connections", rest.max_connections,
                   "connections open at once (default: the descriptors the system allows, at most 16,384); when full, the\n"
                   "oldest kept-alive connection waiting for its next request is closed for a newcomer")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->type_name("N");
  rest_cmd
      ->add_option("--max-per-address", rest.max_per_address, "connections from one client address (default 64); more are closed at once")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->type_name("N");
  rest_cmd
      ->add_option("--work-queue", rest.work_queue,
                   "requests being answered or waiting for a thread (default 64; Core's -rpcworkqueue); more get 503 at once")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->type_name("N");
  rest_cmd->add_option("--threads", rest.threads, "threads answering (default: one a core)")->check(CLI::Range(1u, 256u))->type_name("N");
  rest_cmd
      ->add_option("--timeout", rest.timeout_seconds,
                   "seconds to read a request from its first byte, for an answer's write to move a byte, and to wait for the\n"
                   "next request on a kept-alive connection (default: 10, 10 and 60)")
      ->check(CLI::Range(1u, 3600u))
      ->type_name("SECONDS");
  rest_cmd->add_flag("--txindex", rest.tx_index,
                     "keep a transaction index (txid to block, as Core's -txindex) beside the directory's kept index, made at\n"
                     "the first start and extended as blocks arrive: /rest/tx answers");
  rest_cmd
      ->add_option("--utxos", rest.utxo_set,
                   "the UTXO set /rest/getutxos reads, at the tip: a node's chainstate (default: DIR/../chainstate, else the\n"
                   "set fetch keeps, DIR/blockwire-utxos)")
      ->type_name("CHAINSTATE");
  add_directory_options(*rest_cmd, rest.xor_key, rest.net);

  cli::UtxosOptions utxos;
  auto* utxos_cmd =
      app.add_subcommand("utxos",
                         "The UTXO set of a Bitcoin Core node's chainstate (DATADIR/chainstate), read in key order from a\n"
                         "private snapshot (nothing written into it; a running node's lock no obstacle): what gettxoutsetinfo\n"
                         "says with hash_type hash_serialized_3 (best block, transactions, txouts, bogosize, the hash, the total\n"
                         "amount). A damaged chainstate is an error naming the coin, never a short set. The network (for\n"
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
  utxos_cmd->add_option("--blocks", utxos.blocks, "the node's blocks directory, for --tables (default: CHAINSTATE/../blocks)")
      ->type_name("DIR");
  add_network_option(*utxos_cmd, utxos.net);
  utxos_cmd->add_flag("!--no-progress", utxos.progress, "no progress bar (shown on a terminal only)");

  cli::PruneOptions prune;
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help (code 0) or the error
    return code == 0 ? cli::ok : cli::usage_or_io;
  }
  // From a blocks directory, the network is what its records' magic says
  // unless --network names one.
  const auto network_given = [](CLI::App* cmd) { return cmd->count("--network") != 0; };
  inspect.net_from_records = !network_given(inspect_cmd);
  scan.net_from_records = !network_given(scan_cmd);
  blocks.net_from_records = !network_given(blocks_cmd);
  filters.net_from_records = !network_given(filters_cmd);
  exports.net_from_records = !network_given(export_cmd);
  fetch.net_from_records = !network_given(fetch_cmd);
  serve.net_from_records = !network_given(serve_cmd);
  utxos.net_from_records = !network_given(utxos_cmd);
  rest.net_from_records = !network_given(rest_cmd);
  int status = *inspect_cmd   ? cli::inspect(inspect)
               : *scan_cmd    ? cli::scan(scan)
               : *blocks_cmd  ? cli::blocks(blocks)
               : *filters_cmd ? cli::filters_command(filters)
               : *export_cmd  ? cli::export_command(exports)
               : *fetch_cmd   ? cli::fetch(fetch)
               : *serve_cmd   ? cli::serve(serve)
               : *utxos_cmd   ? cli::utxos(utxos)
               : *rest_cmd    ? cli::rest_command(rest)
               : *prune_cmd   ? cli::prune(prune)
                              : cli::pack(pack);
  // What was printed must have arrived: a full disk or a closed pipe
  // behind standard output is an I/O error, not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "blockwire: writing the output: %s\n", std::strerror(errno));
    status = cli::usage_or_io;
  }
  return status;
}
