#include "history.hpp"

#include <blockwire/directory/script_history.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>

#include <algorithm>
#include <map>

namespace blockwire::electrum::detail {

History history_of(const BlocksDirectory& dir, const AddressIndex& addresses, const ScriptHash& script, std::uint64_t limit,
                   bool with_unspent) {
  History out;
  const auto totals = addresses.totals(script);
  if (!totals) {
    out.failure = totals.error();
    return out;
  }
  if (totals.value().tx_count > limit) {
    out.too_large = true;
    return out;
  }
  out.items.reserve(totals.value().tx_count);
  // Oldest block first: an output in once funded, out once spent.
  std::map<OutPoint, Unspent> unspent;
  ScriptInBlock block;
  const auto r = addresses.each_block(script, false, 0, [&](const AddressIndex::BlockRow& row) {
    if (auto read = read_script_in_block(dir, row.height, script, block); !read) {
      out.failure = read.error();
      return false;
    }
    for (const auto& touch : block.touching) {
      const TransactionView tx = block.view.transaction(touch.tx);
      const Txid txid = tx.txid();
      const auto position = static_cast<std::uint32_t>(touch.tx);
      out.items.push_back(HistoryItem{txid, row.height, position});
      if (!with_unspent) continue;
      for (const std::uint32_t k : touch.spends) unspent.erase(tx.input(k).prevout());
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

std::optional<std::string> status_of(const std::vector<HistoryItem>& items) {
  if (items.empty()) return std::nullopt;
  std::string text;
  text.reserve(items.size() * 72);
  for (const HistoryItem& item : items) {
    text += item.txid.to_hex();
    text += ':';
    text += std::to_string(item.height);
    text += ':';
  }
  const Hash256 h = sha256(std::as_bytes(std::span(text)));
  return to_hex(h.bytes());
}

}  // namespace blockwire::electrum::detail
