#include <blockwire/codec/block_or_transaction.hpp>

#include <optional>

namespace blockwire {

std::variant<BlockOrTransaction, NeitherBlockNorTransaction> block_or_transaction(const Readings& readings) {
  std::optional<NeitherBlockNorTransaction> first;
  for (const std::vector<std::byte>* bytes : readings.in_order()) {
    auto block = BlockView::parse(*bytes);
    if (block) return BlockOrTransaction{bytes, std::move(block).value()};
    auto tx = TransactionView::parse(*bytes);
    if (!tx) tx = TransactionView::parse(*bytes, witness::disallow);
    if (tx) return BlockOrTransaction{bytes, std::move(tx).value()};
    if (!first) first = NeitherBlockNorTransaction{block.error(), tx.error()};
  }
  return *first;
}

}  // namespace blockwire
