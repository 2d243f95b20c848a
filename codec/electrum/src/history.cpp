#include "history.hpp"

#include <blockwire/directory/script_history.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>

#include <algorithm>
#include <map>

namespace blockwire::electrum::detail {

namespace {

// The script's number of transactions, or why its history is not read:
// the index's error, or none when it has more than `limit`.
result<std::optional<std::uint64_t>> count_within(const AddressIndex& addresses, const ScriptHash& script, std::uint64_t limit) {
  const auto totals = addresses.totals(script);
  if (!totals) return totals.error();
  if (totals.value().tx_count > limit) return std::optional<std::uint64_t>{};
  return std::optional<std::uint64_t>(totals.value().tx_count);
}

// A history about to be read, or why it will not be.
History begun(const AddressIndex& addresses, const ScriptHash& script, std::uint64_t limit) {
  History out;
  const auto count = count_within(addresses, script, limit);
  if (!count) {
    out.failure = count.error();
  } else if (!count.value()) {
    out.too_large = true;
  }
  return out;
}

}  // namespace

History unspent_of(const BlocksDirectory& dir, const AddressIndex& addresses, const ScriptHash& script, std::uint64_t limit) {
  History out = begun(addresses, script, limit);
  if (out.failure || out.too_large) return out;
  // Oldest block first: an output in once funded, out once spent.
  std::map<OutPoint, Unspent> unspent;
  ScriptInBlock block;
  const auto r = addresses.each_block(script, false, Height::genesis(), [&](const AddressIndex::BlockRow& row) {
    if (auto read = read_script_in_block(dir, row.height, script, block); !read) {
      out.failure = read.error();
      return false;
    }
    for (const auto& touch : block.touching) {
      const TransactionView tx = block.view.transaction(touch.tx);
      const auto position = static_cast<std::uint32_t>(touch.tx);
      for (const std::uint32_t k : touch.spends) unspent.erase(tx.input(k).prevout());
      if (touch.funds.empty()) continue;
      const Txid txid = tx.txid();
      for (const std::uint32_t k : touch.funds) {
        const OutPoint at{txid, k};
        unspent.insert_or_assign(at, Unspent{at, row.height, position, tx.output(k).value()});
      }
    }
    return true;
  });
  if (!r) out.failure = r.error();
  if (out.failure) return out;
  for (auto& [at, u] : unspent) out.unspent.push_back(u);
  std::sort(out.unspent.begin(), out.unspent.end(), [](const Unspent& a, const Unspent& b) {
    return a.height != b.height       ? a.height < b.height
           : a.position != b.position ? a.position < b.position
                                      : a.outpoint.index < b.outpoint.index;
  });
  return out;
}

result<std::shared_ptr<const BlockTouches>> TouchCache::at(const BlocksDirectory& dir, Height height) {
  if (!dir.chain_size().contains(height)) return std::make_shared<const BlockTouches>();  // (a row the index has yet to take off)
  const IndexedBlock b = dir.at_height(height);
  {
    const std::lock_guard lock(mutex_);
    if (const auto known = blocks_.find(height); known != blocks_.end() && known->second->hash == b.hash) {
      used_.remove(height);
      used_.push_front(height);
      return known->second;
    }
  }
  // (read and hashed outside the lock: other blocks are not kept waiting)
  BlockWithUndo read;
  if (auto r = read_block_with_undo(dir, height, read); !r) return r.error();
  const BlockView& view = read.view;
  std::vector<Txid> ids(view.transaction_count(), Txid::all_zeros());
  txids(view, 0, ids);
  auto made = std::make_shared<BlockTouches>();
  made->hash = b.hash;
  const auto touch = [&](std::span<const std::byte> script, std::uint32_t position) {
    auto& list = made->by_script[ScriptHash::of(script)];
    if (list.empty() || list.back().position != position) list.push_back(BlockTouches::Touch{position, ids[position]});
  };
  for (std::size_t i = 0; i < view.transaction_count(); ++i) {
    const TransactionView tx = view.transaction(i);
    const auto position = static_cast<std::uint32_t>(i);
    if (const TxUndo* spent = coins_spent_by(read.undo, i)) {
      for (const SpentCoin& coin : spent->coins) touch(coin.script_pubkey, position);
    }
    for (const OutputView o : tx.outputs()) touch(o.script_pubkey(), position);
  }
  const std::lock_guard lock(mutex_);
  blocks_.insert_or_assign(height, made);
  used_.remove(height);
  used_.push_front(height);
  while (used_.size() > kept_) {
    blocks_.erase(used_.back());
    used_.pop_back();
  }
  return std::shared_ptr<const BlockTouches>(made);
}

result<std::vector<BlockTouches::Touch>> TouchCache::of(const BlocksDirectory& dir, Height height, const ScriptHash& script) {
  std::vector<BlockTouches::Touch> out;
  if (height.to_wire() + kept_ >= dir.chain_size().value()) {
    auto block = at(dir, height);
    if (!block) return block.error();
    if (const auto it = block.value()->by_script.find(script); it != block.value()->by_script.end()) out = it->second;
    return out;
  }
  ScriptInBlock block;
  if (auto r = read_script_in_block(dir, height, script, block); !r) return r.error();
  for (const auto& touch : block.touching) out.push_back({static_cast<std::uint32_t>(touch.tx), block.view.transaction(touch.tx).txid()});
  return out;
}

History history_of(const BlocksDirectory& dir, const AddressIndex& addresses, TouchCache& blocks, const ScriptHash& script,
                   std::uint64_t limit) {
  History out = begun(addresses, script, limit);
  if (out.failure || out.too_large) return out;
  const auto r = addresses.each_block(script, false, Height::genesis(), [&](const AddressIndex::BlockRow& row) {
    auto touches = blocks.of(dir, row.height, script);
    if (!touches) {
      out.failure = touches.error();
      return false;
    }
    for (const auto& t : touches.value()) out.items.push_back(HistoryItem{t.txid, row.height, t.position});
    return true;
  });
  if (!r) out.failure = r.error();
  return out;
}

void hash_status_item(Sha256& hasher, const Txid& txid, std::int64_t height) {
  std::string text = txid.to_hex();
  text += ':';
  text += std::to_string(height);
  text += ':';
  hasher.update(std::as_bytes(std::span(text)));
}

std::optional<Height> fork_height(const BlockIndex& index, const BlockHash& old_tip) {
  for (auto b = index.find(old_tip); b; b = index.parent(*b)) {
    if (index.on_best_chain(*b)) return b->height;
  }
  return std::nullopt;
}

result<bool> extend_status(const BlocksDirectory& dir, const AddressIndex& addresses, TouchCache& blocks, const ScriptHash& script,
                           std::uint64_t limit, RunningStatus& running) {
  const auto count = count_within(addresses, script, limit);
  if (!count) return count.error();
  if (!count.value()) return false;
  std::optional<error> failure;
  const Height start = running.top ? running.top->next() : Height::genesis();
  const auto r = addresses.each_block(script, false, start, [&](const AddressIndex::BlockRow& row) {
    auto touches = blocks.of(dir, row.height, script);
    if (!touches) {
      failure = touches.error();
      return false;
    }
    for (const auto& touch : touches.value()) {
      hash_status_item(running.hasher, touch.txid, row.height.to_wire());
      ++running.items;
    }
    running.top = row.height;
    return true;
  });
  if (!r) return r.error();
  if (failure) return *failure;
  if (running.items != 0) {
    Sha256 copy = running.hasher;
    running.status = to_hex(copy.finish().bytes());
  }
  return true;
}

}  // namespace blockwire::electrum::detail
