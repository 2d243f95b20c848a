// The subcommands that serve a directory (serve to Bitcoin peers, rest,
// electrum): their options and help, each bound to its options.
#include "commands.hpp"
#include "option_helpers.hpp"
#include "subcommands.hpp"

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace blockwire::cli {

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

}  // namespace blockwire::cli
