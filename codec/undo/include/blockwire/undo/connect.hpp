// A block connected to a set of coins, as Bitcoin Core's ConnectBlock does
// to its coins view: the one description of it, for every set that keeps
// coins (CoinSet in memory, the directory's UtxoStore on disk). Opt-in, as
// the wire toolkit: <blockwire/undo.hpp> does not include it.
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/codec/script.hpp>
#include <blockwire/undo/block_undo.hpp>
#include <blockwire/undo/error.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>

namespace blockwire::undo {

// What a set of coins offers: spend a coin (take it out; nothing: it holds
// none there), add one (over any at the same outpoint: a duplicate txid
// before BIP30 replaces the older coin, as in Core).
template <class V>
concept CoinView = requires(V& v, const OutPoint& p, SpentCoin c) {
  { v.spend(p) } -> std::same_as<result<std::optional<SpentCoin>>>;
  { v.add(p, std::move(c)) } -> std::same_as<void>;
};

// Transaction by transaction (a block may spend what it made), each
// input's coin spent into the undo data, then each spendable output added:
// not OP_RETURN ones, not scripts over max_script_size (Core's AddCoin).
// `ids`, when they are the block's transactions' (as check_block hashed
// them), spare hashing the txids again. Errors: missing_coin, the view's;
// the view is left as the calls before made it (the caller undoes or drops
// it).
template <CoinView V>
result<BlockUndo> connect_block(const Block& block, Height height, V& view, std::span<const TxIds> ids = {}) {
  BlockUndo undo;
  undo.transactions.reserve(block.transactions.empty() ? 0 : block.transactions.size() - 1);
  for (std::size_t t = 0; t < block.transactions.size(); ++t) {
    const Transaction& tx = block.transactions[t];
    if (t != 0) {
      TxUndo& tx_undo = undo.transactions.emplace_back();
      tx_undo.coins.reserve(tx.input_count());
      for (const InputView in : tx.inputs()) {
        auto coin = view.spend(in.prevout());
        if (!coin) return coin.error();
        if (!coin.value()) return errc::missing_coin;
        tx_undo.coins.push_back(std::move(*coin.value()));
      }
    }
    const Txid id = ids.size() == block.transactions.size() ? ids[t].txid : tx.txid();
    for (std::uint32_t o = 0; o < tx.output_count(); ++o) {
      const OutputView out = tx.output(o);
      const auto script = out.script_pubkey();
      if (unspendable(script)) continue;
      view.add(OutPoint{id, o}, SpentCoin{height, t == 0, out.value(), std::vector<std::byte>(script.begin(), script.end())});
    }
  }
  return undo;
}

}  // namespace blockwire::undo
