// The subcommands that talk to nodes or keep state beside a directory
// (fetch, serve, rest, utxos, prune): their options and help, each bound
// to its options.
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

CLI::App* add_serve(CLI::App& app, ServeOptions& serve) {
  auto* serve_cmd =
      app.add_subcommand("serve",
                         "Serve a blocks directory to Bitcoin peers, read-only: the handshake; headers (getheaders,\n"
                         "sendheaders), the inv route (getblocks, inv, and an inv of the tip after each batch of 500), blocks\n"
                         "(witness and stripped), compact blocks (cmpctblock within 5 of the tip, blocktxn within 10), an empty\n"
                         "addr for getaddr, notfound for transactions and filtered blocks, pings answered. Blocks appended to DIR\n"
                         "while it runs (by fetch, or a node) are read within a second and announced to every peer.\n"
                         "Limits: --max-peers peers past their handshake and --max-handshaking connections before it, a thread\n"
                         "each; a peer's memory is its largest message (4,000,000 bytes) plus a block read for it and the\n"
                         "buffers; a handshake has 10 s from accept to verack (BIP324's keys included), a message 5 s for its\n"
                         "envelope and 100 kB/s for the rest (60 s at most, either way); 20 minutes of silence ends a peer.\n"
                         "A misbehaving peer is dropped alone. Peers speak v1 or BIP324's encrypted v2\n"
                         "(told apart by their first bytes, as Core does). Prints \"listening on ADDR:PORT\" on standard output;\n"
                         "SIGINT or SIGTERM stops it.");
  serve_cmd->add_option("dir", serve.dir, "a blocks directory")->required()->type_name("DIR");
  serve_cmd->add_option("--listen", serve.listen, "the address and port (default: every address, the network's port; port 0: any free one)")
      ->check(cli::listen_address())
      ->type_name("ADDR:PORT");
  serve_cmd
      ->add_option("--max-peers", serve.max_peers,
                   "peers past their handshake served at once (default 125, Core's); when all are taken, one is evicted\n"
                   "for a newcomer as Core's node picks it: one that left a ping unanswered for a whole --ping-interval,\n"
                   "else, 4 peers protected by netgroup, the 8 with the lowest ping and the longest-connected half of the\n"
                   "rest, the youngest of the netgroup (/16) holding the most; when all are protected, the newcomer is\n"
                   "refused")
      ->check(CLI::Range(1u, 1000u))
      ->type_name("N");
  serve_cmd
      ->add_option("--max-handshaking", serve.max_handshaking,
                   "connections still in their handshake, apart from the peers' slots (default 32): a newcomer past it\n"
                   "closes the oldest of the netgroup holding the most")
      ->check(CLI::Range(1u, 1000u))
      ->type_name("N");
  serve_cmd
      ->add_option("--max-handshaking-per-netgroup", serve.max_handshaking_per_netgroup,
                   "connections of one netgroup (/16, or /32 for IPv6) still in their handshake (default 4): a newcomer\n"
                   "past it closes its own netgroup's oldest, so that one network's flood cannot keep others out")
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
                   "peers past their handshake from one address at once (default: half of --max-peers); one more is\n"
                   "refused")
      ->check(CLI::Range(1u, 1000u))
      ->type_name("N");
  serve_cmd
      ->add_option("--timeout", serve.timeout_seconds,
                   "seconds of silence, and for one message either way, before a peer is dropped (default: 1,200\n"
                   "idle; a message's 24-byte envelope within 5 s of its first byte, the whole at 100 kB/s, 60 s at most)")
      ->check(CLI::Range(1u, 86400u))
      ->type_name("SECONDS");
  serve_cmd->add_flag("--v1", serve.v1,
                      "v1 peers alone (default: v2 peers too, BIP324's encrypted transport, told apart by their first\n"
                      "bytes as Core does, and NODE_P2P_V2 announced)");
  add_directory_options(*serve_cmd, serve.xor_key, serve.net);
  return serve_cmd;
}

CLI::App* add_rest(CLI::App& app, RestOptions& rest) {
  auto* rest_cmd =
      app.add_subcommand("rest",
                         "Bitcoin Core's REST interface over a blocks directory, no node: /rest/block, /rest/block/notxdetails,\n"
                         "/rest/blockpart, /rest/headers, /rest/blockhashbyheight, /rest/blockfilter, /rest/blockfilterheaders,\n"
                         "/rest/spenttxouts, /rest/tx (--txindex), /rest/getutxos (from a chainstate), /rest/chaininfo,\n"
                         "/rest/deploymentinfo, /rest/mempool (an empty one), in .bin, .hex and .json where Core has\n"
                         "them, with Core's status codes and error texts. HTTP/1.1 with keep-alive (Boost.Beast), a thread a core;\n"
                         "a request's headers are bounded (16 KiB) and its reading (10 s, 60 s idle between requests). Blocks\n"
                         "appended to DIR while it runs are read within a second. Prints \"listening on ADDR:PORT\"; SIGINT or\n"
                         "SIGTERM stops it. An explorer page at / reads the same interface. Esplora's routes under /api/ (blocks,\n"
                         "transactions with --txindex, addresses with --addresses) answer clients written for it.");
  rest_cmd->add_option("dir", rest.dir, "a blocks directory")->required()->type_name("DIR");
  rest_cmd->add_option("--listen", rest.listen, "the address and port (default 127.0.0.1:8332; [IPv6]:PORT; port 0: any free one)")
      ->check(cli::listen_address())
      ->type_name("ADDR:PORT");
  rest_cmd
      ->add_option("--max-connections", rest.max_connections,
                   "connections open at once (default: the descriptors the system allows, at most 16,384); when full, an\n"
                   "idle one (it has sent no byte of a request: new, or kept alive) is closed for a newcomer, the oldest of\n"
                   "the address with the most connections")
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
  rest_cmd->add_flag("--addresses", rest.addresses,
                     "keep the address index (blockwire addresses) and the transaction index, made at the first start and\n"
                     "extended as blocks arrive: Esplora's /api/address/ and /api/scripthash/ routes answer");
  rest_cmd
      ->add_option("--utxos", rest.utxo_set,
                   "the UTXO set /rest/getutxos reads, at the tip: a node's chainstate (default: DIR/../chainstate, else the\n"
                   "set fetch keeps, DIR/blockwire-utxos)")
      ->type_name("CHAINSTATE");
  add_directory_options(*rest_cmd, rest.xor_key, rest.net);
  return rest_cmd;
}

CLI::App* add_electrum(CLI::App& app, ElectrumOptions& electrum) {
  auto* cmd =
      app.add_subcommand("electrum",
                         "An Electrum server (protocol 1.4, as ElectrumX, electrs and Fulcrum speak it) on a blocks directory, no node:\n"
                         "wallets (Electrum, Sparrow, ...) read their addresses' balances, histories and unspent outputs, headers and\n"
                         "merkle proofs from DIR. Keeps the address index and the transaction index beside DIR's kept index (made at\n"
                         "the first start, a progress bar; extended as blocks arrive, within a second, when subscribers are told of the\n"
                         "new tip and their scripthashes' new statuses). Newline-delimited JSON-RPC over TCP, batches too. With\n"
                         "--peer, the node's mempool (the transactions it announces over P2P, unconfirmed in histories and\n"
                         "balances) and broadcasts handed to it; without, the confirmed chain only (said in server.banner). Prints\n"
                         "\"listening on ADDR:PORT\"; SIGINT or SIGTERM stops it.");
  cmd->add_option("dir", electrum.dir, "a blocks directory")->required()->type_name("DIR");
  cmd->add_option("--listen", electrum.listen, "the address and port (default 127.0.0.1:50001; [IPv6]:PORT; port 0: any free one)")
      ->check(cli::listen_address())
      ->type_name("ADDR:PORT");
  cmd->add_option("--threads", electrum.threads, "threads answering (default: one a core)")->check(CLI::Range(1u, 256u))->type_name("N");
  cmd->add_option("--max-per-address", electrum.max_per_address,
                  "connections from one client address (default 64); more are closed at once")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->type_name("N");
  cmd->add_option("--max-history", electrum.max_history,
                  "transactions of one script past which its history, status and unspent outputs are refused with \"history\n"
                  "too large\" (default 200,000; its balance is always answered)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->type_name("N");
  cmd->add_option("--max-subscriptions", electrum.max_subscriptions, "scripthashes one connection may subscribe to (default 10,000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24))
      ->type_name("N");
  cmd->add_option("--timeout", electrum.idle_seconds, "seconds a connection may stay silent before it is closed (default 600)")
      ->check(CLI::Range(1u, 86400u))
      ->type_name("SECONDS");
  cmd->add_option("--banner", electrum.banner, "server.banner's text (default: one that says what this server serves)")->type_name("TEXT");
  auto* tls = cmd->add_option("--tls-listen", electrum.tls_listen,
                              "also serve TLS on this address and port (Electrum's 50002; clients' \"s\"), with --tls-cert and\n"
                              "--tls-key; prints \"listening with TLS on ADDR:PORT\" after the plain address")
                  ->check(cli::listen_address())
                  ->type_name("ADDR:PORT");
  auto* cert = cmd->add_option("--tls-cert", electrum.tls_cert, "the server's certificate (chain), PEM")
                   ->check(CLI::ExistingFile)
                   ->type_name("FILE");
  auto* key = cmd->add_option("--tls-key", electrum.tls_key, "its private key, PEM")->check(CLI::ExistingFile)->type_name("FILE");
  tls->needs(cert)->needs(key);
  cert->needs(tls);
  key->needs(tls);
  cmd->add_option("--peer", electrum.peer,
                  "the node whose directory DIR is, over P2P (HOST, HOST:PORT, [IPv6]:PORT; default port: the network's):\n"
                  "the transactions it announces are kept as its mempool, broadcasts are handed to it. Core sends its\n"
                  "whole mempool at connection only with peerbloomfilters=1 (else what it announces from then on)")
      ->type_name("HOST[:PORT]");
  cmd->add_flag("--v1", electrum.v1, "speak v1's plaintext to the peer at once (default: BIP324's v2 first, v1 when it hangs up)");
  cmd->add_option("--broadcast-timeout", electrum.broadcast_timeout,
                  "seconds the node has to announce a broadcast transaction before the broadcast is answered as failed\n"
                  "(default 30; Core announces to a peer like this one every 5 s on average)")
      ->check(CLI::Range(1u, 3600u))
      ->type_name("SECONDS");
  add_directory_options(*cmd, electrum.xor_key, electrum.net);
  return cmd;
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
