// The UTXO store following a chain: blocks read, taken off by their undo
// records for a reorganization, and connected up to the chain's tip.
#include "utxo_store_state.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/script.hpp>
#include <blockwire/codec/view.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/undo.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace blockwire {

namespace {

namespace fs = std::filesystem;

using utxo_detail::Change;

}  // namespace

result<Block> UtxoStore::State::read_block(const IndexedBlock& b) const {
  auto read = read_block_record((fs::path(dir) / block_file_name(b.file)).string(), b.offset, key, net);
  if (!read) return read.error();
  return decode_block(read.value());
}

result<BlockUndo> UtxoStore::State::undo_of(const IndexedBlock& b, const Block& block) {
  if (!b.undo_offset) {
    if (!pairing) {
      BlocksDirectory::Options o;
      o.key = key;
      o.net = net;
      // Nothing kept of a reading in the middle of a reorganization: the
      // new branch's records are not written yet.
      o.kept_index = false;
      auto opened = BlocksDirectory::open(dir, o);
      if (!opened) return opened.error();
      pairing.emplace(std::move(opened).value());
    }
    const auto there = pairing->index().find(b.hash);
    if (!there) return error(undo::errc::no_rev_file);
    std::vector<std::byte> bytes;
    encode_block(block, bytes);
    auto view = BlockView::parse(bytes);
    if (!view) return view.error();
    return pairing->undo_of(*there, view.value());
  }
  auto reader = UndoFileReader::open((fs::path(dir) / undo_file_name(b.file)).string(), key, net, *b.undo_offset);
  if (!reader) return reader.error();
  auto record = reader.value().next();
  if (!record) return record.error();
  if (!record.value() || record.value()->offset != *b.undo_offset ||
      undo_checksum(block.header.prev_block, record.value()->bytes) != record.value()->checksum) {
    return error(undo::errc::bad_checksum);
  }
  return decode_block_undo(record.value()->bytes);
}

result<void> UtxoStore::State::disconnect(const IndexedBlock& b) {
  if (failed) return error(directory::errc::store_failed);
  failed = true;  // until it is off
  auto block = read_block(b);
  if (!block) return block.error();
  auto undo = undo_of(b, block.value());
  if (!undo) return undo.error();
  if (auto r = check_shape(undo.value(), block.value()); !r) return r;
  for (std::size_t t = block.value().transactions.size(); t-- > 0;) {
    const Transaction& tx = block.value().transactions[t];
    const Txid id = tx.txid();
    for (std::uint32_t o = 0; o < tx.output_count(); ++o) {
      if (unspendable(tx.output(o).script_pubkey())) continue;
      auto [it, inserted] = changes.try_emplace(OutPoint{id, o});
      if (!inserted && it->second.fresh) {
        changes.erase(it);
      } else {
        it->second = Change{std::nullopt, false};
      }
    }
    if (t == 0) continue;
    std::vector<SpentCoin>& spent = undo.value().transactions[t - 1].coins;
    std::size_t i = 0;
    for (const InputView in : tx.inputs()) {
      change_bytes += sizeof(OutPoint) + sizeof(Change) + 32 + spent[i].script_pubkey.size();
      changes[in.prevout()] = Change{std::move(spent[i++]), false};
    }
  }
  best = block.value().header.prev_block;
  best_height = best_height->previous();
  failed = false;
  return success();
}

result<void> UtxoStore::State::follow(BlockIndex& chain, const Block* appended, const BlockHash& appended_hash,
                                      std::span<const TxIds> appended_ids, const BlocksDirectory* paired) {
  if (chain.empty() || (best_height && chain.tip() == best)) return success();
  const auto said = [&](const error& e, const IndexedBlock& b, const std::string& what) {
    return e.in("block " + b.hash.to_hex() + " (height " + to_string(b.height) + "): " + what);
  };
  while (best_height) {
    const auto b = chain.find(best);
    if (!b) return error(directory::errc::unknown_best_block);
    if (chain.on_best_chain(*b)) break;
    if (auto r = disconnect(*b); !r) return said(r.error(), *b, "taking it off the UTXO set for a reorganization");
  }
  pairing.reset();  // (read for the blocks taken off, once)
  const Height from = best_height ? best_height->next() : Height::genesis();
  const BlockCount::Heights heights = chain.chain_size().heights(from);
  for (const Height h : heights) {
    if (options.stop_requested && options.stop_requested()) return error(io::errc::stopped);
    const IndexedBlock b = chain.at_height(h);
    std::optional<Block> read;
    if (appended == nullptr || b.hash != appended_hash) {
      auto got = read_block(b);
      if (!got) return said(got.error(), b, "reading it");
      read.emplace(std::move(got).value());
    }
    const Block& block = read ? *read : *appended;
    // A block connected before (a reorganization back to its branch)
    // has its record where the index says: not written twice, as Core
    // writes undo data only where a block has none.
    bool has_record = b.undo_offset && undo_of(b, block).has_value();
    if (!has_record && paired != nullptr && !b.is_genesis()) {
      if (const auto there = paired->index().find(b.hash)) {
        std::vector<std::byte> bytes;
        encode_block(block, bytes);
        auto view = BlockView::parse(bytes);
        has_record = view && paired->undo_of(*there, view.value()).has_value();
      }
    }
    auto connected = connect(block, b.hash, BlockPosition{b.file, b.offset}, !has_record, read ? std::span<const TxIds>() : appended_ids);
    if (!connected) return said(connected.error(), b, "connecting it to the UTXO set");
    if (connected.value()) chain.set_undo_offset(b.hash, *connected.value());
    ++blocks_connected;
    if (options.progress) options.progress(static_cast<std::uint64_t>(h - from) + 1, heights.size());
  }
  return success();
}

}  // namespace blockwire
