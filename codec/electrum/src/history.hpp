// A script's confirmed history as the protocol lists it: its transactions
// in the chain's order (height, then place in the block), each once, and
// when asked its unspent outputs; from the address index's rows and the
// blocks they name (read_script_in_block, or the touches kept of the
// blocks near the tip).
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/directory/address_index.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/sha256.hpp>

#include <cstdint>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <optional>
#include <string>
#include <vector>

namespace blockwire::electrum::detail {

struct HistoryItem {
  Txid txid = Txid::all_zeros();
  Height height = Height::genesis();
  std::uint32_t position = 0;  // in its block
};

struct Unspent {
  OutPoint outpoint;
  Height height = Height::genesis();
  std::uint32_t position = 0;
  Amount value;
};

// Either the items (or the unspent outputs), or why not: the index's or a
// block's error, or too many transactions (more than `limit`: none read).
struct History {
  std::vector<HistoryItem> items;
  std::vector<Unspent> unspent;
  std::optional<error> failure;
  bool too_large = false;
};

// The script's unspent outputs (History::unspent alone), oldest first: its
// blocks read again, each output in when funded, out when spent.
History unspent_of(const BlocksDirectory& dir, const AddressIndex& addresses, const ScriptHash& script, std::uint64_t limit);

// The status the protocol defines: the SHA-256 of "txid:height:" for each
// item in order, in hex; none for an empty history. Kept as it is made
// (the hasher's state after the items up to `top`), so that a new block
// costs the reading of its own rows, not the script's whole history again.
struct RunningStatus {
  Sha256 hasher;
  std::optional<Height> top;  // the height of the last block hashed (none: none yet)
  std::uint64_t items = 0;    // transactions hashed
  std::optional<std::string> status;
};

// Every script a block touches, with the transactions that touch it, found
// once (its outputs and spent coins hashed) and kept for the next script
// asked of the same block: a new block's notifications read it once for
// all subscribers, however many scripts they follow.
struct BlockTouches {
  BlockHash hash = BlockHash::all_zeros();
  struct Touch {
    std::uint32_t position;
    Txid txid;
  };
  struct ByBytes {
    std::size_t operator()(const ScriptHash& s) const noexcept {
      std::size_t h;
      std::memcpy(&h, s.bytes().data(), sizeof h);
      return h;
    }
  };
  std::unordered_map<ScriptHash, std::vector<Touch>, ByBytes> by_script;  // each list in block order
};

// The touches of the blocks near the tip (the last `kept` heights) that
// were asked for; safe from several threads. Older blocks are not kept (a
// long history read once would push out the blocks every subscriber's
// notification needs).
class TouchCache {
 public:
  explicit TouchCache(std::size_t kept = 128) : kept_(kept) {}
  result<std::shared_ptr<const BlockTouches>> at(const BlocksDirectory& dir, Height height);
  // The script's transactions in the block at `height`, in block order:
  // from the kept touches near the tip, else read for this script alone.
  result<std::vector<BlockTouches::Touch>> of(const BlocksDirectory& dir, Height height, const ScriptHash& script);

 private:
  std::size_t kept_;
  std::mutex mutex_;
  std::map<Height, std::shared_ptr<const BlockTouches>> blocks_;
  std::list<Height> used_;  // heights, the most recently asked for first
};

// The protocol's status hashes "txid:height:" for each item in order (a
// mempool transaction's height is the protocol's 0 or -1).
void hash_status_item(Sha256& hasher, const Txid& txid, std::int64_t height);

// The height of the highest block of `old_tip`'s chain that is on the best
// chain now (none: none is).
std::optional<Height> fork_height(const BlockIndex& index, const BlockHash& old_tip);

// A script's history (History::items alone), its blocks read through `blocks`.
History history_of(const BlocksDirectory& dir, const AddressIndex& addresses, TouchCache& blocks, const ScriptHash& script,
                   std::uint64_t limit);

// Hashes the script's rows above `running.top` into it, the blocks read
// through `blocks`. False when the history passes `limit` transactions
// (then `running` means nothing).
result<bool> extend_status(const BlocksDirectory& dir, const AddressIndex& addresses, TouchCache& blocks, const ScriptHash& script,
                           std::uint64_t limit, RunningStatus& running);

}  // namespace blockwire::electrum::detail
