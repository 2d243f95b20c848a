// Bitcoin Core's REST interface (its doc/REST-interface.md), answered from
// a blocks directory: the same paths, formats (.bin, .hex, .json), status
// codes and error texts as Core's node gives for the same chain, with no
// node. Read-only; the directory is shared with other threads
// (BlockStore) and refreshed by its owner as blocks are appended.
#pragma once

#include <blockwire/directory/address_index.hpp>
#include <blockwire/directory/block_store.hpp>
#include <blockwire/directory/tx_index.hpp>

#include <memory>

#include <string>
#include <string_view>

namespace blockwire::tables {
class JsonWriter;
}

namespace blockwire::rest {

// A script's totals as Esplora's chain_stats object (its field names and
// order): what /api/address/A answers and `blockwire addresses` prints.
void write_chain_stats(tables::JsonWriter& out, const AddressIndex::Totals& totals);

struct Response {
  unsigned status = 200;
  std::string content_type;  // Core's: application/octet-stream, text/plain, application/json
  std::string body;
};

// The content type of Core's HTTP server for a path no route serves (its
// libevent's default), with status 404 and no body.
inline constexpr std::string_view no_route_content_type = "text/html; charset=ISO-8859-1";

// What answers beyond the blocks need: a transaction index (/rest/tx, as
// Core's -txindex), and the UTXO set at the tip (/rest/getutxos): a node's
// chainstate beside the directory, or the one fetch keeps.
struct Sources {
  const TxIndex* tx_index = nullptr;        // none: every transaction is "not found", as a node without -txindex
  std::string utxo_set;                     // a chainstate folder; empty: none (getutxos: 503)
  const AddressIndex* addresses = nullptr;  // Esplora's /api/address/ and /api/scripthash/ (none: 503)
};

class Service {
 public:
  // `store` opened with its undo data (prevouts, spent outputs) and, for
  // the block filters, enable_filters() called.
  explicit Service(BlockStore& store, Sources sources = {});
  ~Service();

  // The answer to a request for `target`: the path and query as the
  // request line has them ("/rest/block/HASH.json",
  // "/rest/headers/HASH.bin?count=5"), and its body (getutxos' outpoints,
  // posted in .bin or .hex).
  Response get(std::string_view target, std::string_view body = {}) const;
  // Whether the answer to `target` is quick to make (HttpServer's
  // QuickRoute), from the same table of routes get() answers by: the
  // chain's state, a hash by height, a few coins, the page's files; not a
  // block, a transaction, headers, filters or an address's history.
  static bool quick(std::string_view target) noexcept;

  struct Coins;  // (opaque)

 private:
  BlockStore& store_;
  Sources sources_;
  std::unique_ptr<Coins> coins_;  // the UTXO set, opened again when the tip moves
};

}  // namespace blockwire::rest
