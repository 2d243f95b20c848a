#include <blockwire/blockfiles/error.hpp>
#include <blockwire/directory/script_history.hpp>

#include <string>
#include <utility>

namespace blockwire {

result<void> read_block_with_undo(const BlocksDirectory& dir, Height height, BlockWithUndo& out) {
  out.block = dir.at_height(height);
  const std::string where = "block " + to_string(height);
  if (out.block.pruned) return error(blockfiles::errc::pruned).in(where);
  if (auto r = dir.read_block(out.block, out.bytes); !r) return r.error().in(where);
  auto view = BlockView::parse(out.bytes);
  if (!view) return view.error().in(where);
  out.view = std::move(view).value();
  out.undo = BlockUndo{};
  if (out.view.transaction_count() > 1) {
    auto undo = dir.undo_of(out.block, out.view);
    if (!undo) return undo.error().in("the undo data of " + where);
    out.undo = std::move(undo).value();
  }
  return success();
}

result<void> read_script_in_block(const BlocksDirectory& dir, Height height, const ScriptHash& script, ScriptInBlock& out) {
  out.touching.clear();
  if (!dir.chain_size().contains(height)) return success();
  if (auto r = read_block_with_undo(dir, height, out); !r) return r;
  for (std::size_t i = 0; i < out.view.transaction_count(); ++i) {
    const TransactionView tx = out.view.transaction(i);
    ScriptInBlock::Touch touch{i, {}, {}};
    for (std::uint32_t k = 0; k < tx.output_count(); ++k) {
      if (ScriptHash::of(tx.output(k).script_pubkey()) == script) touch.funds.push_back(k);
    }
    if (const TxUndo* spent = coins_spent_by(out.undo, i)) {
      for (std::uint32_t k = 0; k < spent->coins.size() && k < tx.input_count(); ++k) {
        if (ScriptHash::of(spent->coins[k].script_pubkey) == script) touch.spends.push_back(k);
      }
    }
    if (!touch.funds.empty() || !touch.spends.empty()) out.touching.push_back(std::move(touch));
  }
  return success();
}

}  // namespace blockwire
