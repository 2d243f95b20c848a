// The REST routes' answers (struct Answers: answers.cpp, and utxos.cpp for
// /rest/getutxos) and the UTXO set they keep open (struct Service::Coins).
#pragma once

#include "esplora_json.hpp"
#include "request.hpp"

#include <blockwire/blockfiles/block_index.hpp>
#include <blockwire/codec/block.hpp>
#include <blockwire/codec/ids.hpp>
#include <blockwire/directory/block_store.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/rest/rest_service.hpp>
#include <blockwire/undo/block_undo.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blockwire::rest {

// The UTXO set at the tip, opened when first asked and again when the tip
// moved.
struct Service::Coins {
  std::mutex mutex;
  std::optional<ChainstateSnapshot> set;
  std::chrono::steady_clock::time_point opened{};  // a node's chainstate lags its tip: opened again at most once a second
  // chaininfo's size_on_disk, which walks every file: kept for the chain it was counted for.
  std::mutex size_mutex;
  std::optional<std::pair<std::pair<BlockHash, std::size_t>, std::uint64_t>> size;
};

namespace detail {

// The answers, each under the store's shared lock.
struct Answers {
  BlockStore& store;
  const BlocksDirectory& dir;
  const BlockIndex& index;
  const Sources& sources;
  Service::Coins& coins;
  // The store's shared lock, held while the directory is read: let go
  // around the store's own filter calls, which take it themselves (a
  // shared lock taken twice by one thread is undefined).
  std::shared_lock<std::shared_mutex>& lock;

  // Headers of blocks read in turn, each checked against the hash the
  // index names, each blk file opened once.
  class HeaderReader {
   public:
    explicit HeaderReader(const Answers& a) : a_(a) {}
    struct Head {
      BlockHeader header;
      std::uint64_t tx_count = 0;
    };
    // The header (blockfiles' read_block_header, on the file kept open)
    // and, with `count`, the transaction count after it.
    std::optional<Head> read(const IndexedBlock& b, bool count = false);

   private:
    const Answers& a_;
    std::optional<FileReader> file_;
    unsigned number_ = 0;
  };

  // The best chain from `hash` on, at most `count` blocks.
  std::vector<IndexedBlock> chain_from(const BlockHash& hash, std::uint64_t count) const;

  Response headers(const std::string& part, std::string_view target) const;

  // /rest/block/, /rest/block/notxdetails/, /rest/blockpart/.
  Response block(const std::string& part, int verbosity, std::optional<std::pair<std::uint64_t, std::uint64_t>> range) const;
  Response block_part(const std::string& part, std::string_view target) const;

  Response spent_outputs(const std::string& part) const;

  Response block_filter(const std::string& part) const;

  Response filter_headers(const std::string& part, std::string_view target) const;

  Response block_hash_by_height(const std::string& part) const;

  // Core's size_on_disk: the blk and rev files' records, not what a node
  // pre-allocated past them.
  std::uint64_t size_on_disk() const;

  Response chain_info(const std::string& part) const;

  Response transaction(const std::string& part) const;

  // Core's CCoin: a zero (a version field of old), the height, the output.
  static void encode_coin(Sink& out, const SpentCoin& coin);

  Response utxos(const std::string& part, std::string_view body) const;

  Response deployment_info(const std::string& part) const;

  Response mempool(const std::string& part, std::string_view target) const;

  // Esplora's routes (esplora.cpp).
  Response esplora_tip(std::string_view what) const;
  Response esplora_block_height(std::string_view part) const;
  Response esplora_block(std::string_view part) const;
  Response esplora_tx(std::string_view part) const;
  // /api/address/A... or /api/scripthash/H... (esplora_address.cpp).
  Response esplora_address(std::string_view part, std::string_view query, bool by_scripthash) const;
  // The input that spends `outpoint` (an output of `script` in the block
  // at `height`), found through the address index: the blocks at or
  // above `height` whose transactions spend from that script, read again.
  struct Spender {
    Txid txid = Txid::all_zeros();
    std::uint32_t vin = 0;
    Confirmed at;
  };
  result<std::optional<Spender>> spender_of(const OutPoint& outpoint, std::span<const std::byte> script, Height height) const;
};

}  // namespace detail

}  // namespace blockwire::rest
