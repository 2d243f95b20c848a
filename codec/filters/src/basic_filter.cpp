// The basic filter of a block (BIP158): where each element comes from.
#include <blockwire/filters.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/undo/error.hpp>

#include <array>
#include <vector>

namespace blockwire::filters {

namespace {

constexpr std::byte op_return{0x6a};

std::vector<std::span<const std::byte>> output_scripts(const BlockView& block, std::size_t spent) {
  std::vector<std::span<const std::byte>> out;
  std::size_t outputs = 0;
  for (std::size_t t = 0; t < block.transaction_count(); ++t) outputs += block.transaction(t).output_count();
  out.reserve(outputs + spent);
  for (std::size_t t = 0; t < block.transaction_count(); ++t) {
    for (const OutputView o : block.transaction(t).outputs()) {
      const auto script = o.script_pubkey();
      if (!script.empty() && script[0] != op_return) out.push_back(script);
    }
  }
  return out;
}

bool undo_fits(const BlockView& block, const BlockUndo& undo) {
  if (block.transaction_count() == 0 || undo.transactions.size() != block.transaction_count() - 1) return false;
  for (std::size_t i = 0; i < undo.transactions.size(); ++i) {
    if (undo.transactions[i].coins.size() != block.transaction(i + 1).input_count()) return false;
  }
  return true;
}

}  // namespace

std::vector<std::span<const std::byte>> basic_elements(const BlockView& block, std::span<const std::span<const std::byte>> spent) {
  auto out = output_scripts(block, spent.size());
  for (const auto script : spent) {
    if (!script.empty()) out.push_back(script);
  }
  return out;
}

std::vector<std::span<const std::byte>> basic_elements(const BlockView& block, const BlockUndo& undo) {
  std::size_t spent = 0;
  for (const TxUndo& tx : undo.transactions) spent += tx.coins.size();
  auto out = output_scripts(block, spent);
  for (const TxUndo& tx : undo.transactions) {
    for (const SpentCoin& coin : tx.coins) {
      if (!coin.script_pubkey.empty()) out.push_back(coin.script_pubkey);
    }
  }
  return out;
}

GcsFilter basic_filter(const BlockView& block, std::span<const std::span<const std::byte>> spent) {
  return GcsFilter::build(basic_params(block_hash(block.header())), basic_elements(block, spent));
}

result<GcsFilter> basic_filter(const BlockView& block, const BlockUndo& undo) {
  if (!undo_fits(block, undo)) return undo::errc::wrong_shape;
  return GcsFilter::build(basic_params(block_hash(block.header())), basic_elements(block, undo));
}

Hash256 filter_hash(const GcsFilter& filter) { return sha256d(filter.encoded()); }

Hash256 filter_header(const Hash256& filter_hash, const Hash256& previous_header) {
  std::array<std::byte, 64> both;
  std::copy(filter_hash.bytes().begin(), filter_hash.bytes().end(), both.begin());
  std::copy(previous_header.bytes().begin(), previous_header.bytes().end(), both.begin() + 32);
  return sha256d(both);
}

}  // namespace blockwire::filters
