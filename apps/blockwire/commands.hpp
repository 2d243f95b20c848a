// The subcommands of `blockwire`. Each returns the process exit status:
// 0 success, 1 bad data found, 2 usage or I/O error.
#pragma once

#include "directory_options.hpp"
#include <blockwire/tables/etl_rows.hpp>

#include <blockwire/codec/network.hpp>
#include <blockwire/directory/address_index.hpp>
#include <blockwire/io/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blockwire::cli {

// What a failure makes the exit status: blockwire::exit_status_of, the
// library's one table.
enum exit_status : int { ok = 0, bad_data = 1, usage_or_io = 2 };

struct InspectOptions {
  std::string input;  // a path, or "-" for standard input
  bool json = false;
  std::optional<std::uint64_t> offset;  // a record of a blk file
  std::string xor_key;                  // hex; empty: the file's xor.dat
  network net = network::mainnet;
  bool net_from_records = false;  // --offset: the file's magic says the network
};

struct ScanOptions {
  std::vector<std::string> paths;
  std::string xor_key;
  network net = network::mainnet;
  bool net_from_records = false;  // each path's first record says the network
  bool json = false;
  bool progress = true;
  unsigned threads = 0;  // 0: one per core
};

struct PackOptions {
  std::string output_dir;
  std::vector<std::string> inputs;
  std::string xor_key;
  bool random_key = false;
  bool append = false;
  bool undo = false;  // rev files too, undo data made from the blocks themselves
  network net = network::mainnet;
  bool net_from_records = false;  // no --network: the network of OUT's records, else mainnet
};

struct BlocksOptions : ChainOptions {
  int verbosity = 1;
};

struct FiltersOptions : ChainOptions {
  unsigned threads = 0;  // 0: every core
  std::string peer;      // --from-peer HOST[:PORT]: the filters a node serves (BIP157), checked
};

struct ExportOptions : ChainOptions {
  std::string output_dir;
  tables::export_format format = tables::export_format::ndjson;
  tables::compression compress = tables::compression::none;
  std::uint64_t shard_blocks = 1000;
  unsigned threads = 0;  // 0: every core
  bool progress = true;
  std::string scheduler;  // --scheduler ADDRESS: the shards made on a Dask cluster (blockwire.distributed)
};

struct FetchOptions {
  std::string peer;  // HOST[:PORT]
  std::string output_dir;
  std::string xor_key;  // for a new directory; default random
  network net = network::mainnet;
  bool net_from_records = false;
  std::uint64_t max_blocks = 0;     // 0: to the peer's tip
  unsigned timeout_seconds = 0;     // 0: the library's defaults
  bool undo = true;                 // keep the UTXO set, write each block's undo record
  std::uint64_t dbcache_mib = 256;  // the set's changes held in memory before a flush
  bool json = false;
  bool progress = true;
  bool v1 = false;  // v1 at once: no BIP324 attempt
  bool operator==(const FetchOptions&) const = default;
};
struct ServeOptions : DirectoryOptions {
  std::string listen;  // ADDR:PORT; default every address, the network's port
  unsigned max_peers = 125;
  unsigned max_per_address = 0;  // 0: half of max_peers
  unsigned max_handshaking = 32;
  unsigned max_handshaking_per_netgroup = 4;
  unsigned ping_seconds = 120;
  unsigned timeout_seconds = 0;  // 0: 20 minutes idle, as Core
  bool v1 = false;               // v1 peers alone: no BIP324, no NODE_P2P_V2
  bool operator==(const ServeOptions&) const = default;
};
int inspect(const InspectOptions& options);
int fetch(const FetchOptions& options);
int serve(const ServeOptions& options);

struct UtxosOptions {
  std::string chainstate;  // a node's chainstate folder
  std::string snapshot;    // --snapshot FILE: Core's dumptxoutset format
  std::string tables;      // --tables OUT: the utxos table
  tables::export_format format = tables::export_format::ndjson;
  tables::compression compress = tables::compression::none;
  std::string blocks;  // the node's blocks directory; default CHAINSTATE/../blocks
  network net = network::mainnet;
  bool net_from_records = true;  // the network of CHAINSTATE/../blocks, unless --network
  bool json = false;
  bool progress = true;
  std::string scheduler;  // --scheduler ADDRESS: --tables written by a Dask worker (blockwire.distributed)
};
int utxos(const UtxosOptions& options);
struct RestOptions : DirectoryOptions {
  std::string listen = "127.0.0.1:8332";  // ADDR:PORT (Core's RPC port, where its REST answers)
  unsigned threads = 0;                   // 0: one a core
  unsigned timeout_seconds = 0;           // a request's reading, a write's progress and a kept-alive wait; 0: 10 s, 10 s and 60 s
  std::size_t max_connections = 0;        // 0: the descriptor limit less 64, at most 16,384
  std::size_t max_per_address = 64;
  std::size_t work_queue = 64;
  bool tx_index = false;   // --txindex: /rest/tx
  bool addresses = false;  // --addresses: Esplora's address routes (and the transaction index)
  std::string utxo_set;    // --utxos CHAINSTATE; default DIR/../chainstate, else DIR/blockwire-utxos
  bool operator==(const RestOptions&) const = default;
};
int rest_command(const RestOptions& options);

struct ElectrumOptions : DirectoryOptions {
  std::string listen = "127.0.0.1:50001";  // ADDR:PORT (Electrum's port for TCP)
  unsigned threads = 0;                    // 0: one a core
  std::size_t max_per_address = 64;
  std::uint64_t max_history = 200'000;
  std::size_t max_subscriptions = 10'000;
  unsigned idle_seconds = 600;
  std::string banner;
  std::string tls_listen;  // --tls-listen ADDR:PORT, with --tls-cert and --tls-key
  std::string tls_cert;
  std::string tls_key;
  std::string peer;  // the node, HOST[:PORT]: its mempool and broadcasts (empty: confirmed data only)
  bool v1 = false;
  unsigned broadcast_timeout = 30;
  bool operator==(const ElectrumOptions&) const = default;
};
int electrum_command(const ElectrumOptions& options);

struct AddressesOptions : DirectoryOptions {
  std::vector<std::string> show;  // addresses or scripthashes whose totals to print
  unsigned threads = 0;           // 0: every core
};
int addresses_command(const AddressesOptions& options);
// The address index of `dir`, made or brought to its tip with a progress
// bar; nothing (and `status` set) after saying why on standard error.
// `made`: what this call indexed.
std::optional<AddressIndex> open_address_index(const char* command, const BlocksDirectory& dir, unsigned threads, int& status,
                                               AddressIndex::Progress* made = nullptr);
// The transaction index of `dir`, made or brought to its tip with a
// progress bar on a terminal; none (and `status` set) after saying why.
std::optional<TxIndex> open_tx_index(const char* command, const BlocksDirectory& dir, int& status);
int blocks(BlocksOptions options);
int filters_command(FiltersOptions options);
int export_command(ExportOptions options);
int scan(const ScanOptions& options);
int pack(const PackOptions& options);

struct PruneOptions {
  std::string dir;
  std::size_t keep = 288;
  bool dry_run = false;
  bool json = false;
};
int prune(const PruneOptions& options);

}  // namespace blockwire::cli
