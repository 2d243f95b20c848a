// Esplora's chain, block and transaction routes (Blockstream's
// esplora-electrs and mempool.space: /api/blocks/tip/...,
// /api/block-height/, /api/block/, /api/tx/),
// so that clients written for it read a node's directory unchanged. Its
// shapes, not Core's: plain text for a single value, its field names,
// `bits` a number, errors as its plain-text words.
#include "answers.hpp"
#include "esplora_json.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/codec/merkle_branch.hpp>
#include <blockwire/directory/tx_index.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/tables/core_json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire::rest::detail {

namespace {

Response text(std::string body) { return {200, "text/plain", std::move(body)}; }
Response said(unsigned status, std::string words) { return {status, "text/plain", std::move(words)}; }

std::string shortest(double v) {
  char out[32];
  const auto end = std::to_chars(out, out + sizeof out, v).ptr;
  return std::string(out, end);
}

}  // namespace

// /api/blocks/tip/height, /api/blocks/tip/hash, /api/block-height/H.
Response Answers::esplora_tip(std::string_view what) const {
  if (index.empty()) return said(404, "Block not found");
  if (what == "height") return text(to_string(*index.tip_height()));
  return text(index.tip().to_hex());
}

Response Answers::esplora_block_height(std::string_view part) const {
  const auto number = whole<std::uint64_t>(part);
  if (!number) return said(400, "Invalid number");
  const auto height = Height::checked(*number);
  if (!height || !index.chain_size().contains(*height)) return said(404, "Block not found");
  return text(index.at_height(*height).hash.to_hex());
}

// /api/block/HASH[/header|/raw|/txids|/txid/I|/status].
Response Answers::esplora_block(std::string_view part) const {
  const auto slash = part.find('/');
  const std::string_view hash_text = part.substr(0, slash);
  const std::string_view rest = slash == std::string_view::npos ? std::string_view{} : part.substr(slash + 1);
  const auto hash = parse_hash(hash_text);
  if (!hash) return said(400, "Invalid hex string");
  const auto b = index.find(*hash);
  if (!b) return said(404, "Block not found");
  if (rest == "status") {
    return json_of([&](tables::JsonWriter& out) {
      out.begin_object();
      const bool best = index.on_best_chain(*b);
      out.member_boolean("in_best_chain", best);
      if (best) {
        out.member_integer("height", b->height.to_wire());
        const ChainInfo chain = index.chain_info(*b);
        out.key("next_best");
        if (chain.next) {
          out.string(chain.next->to_hex());
        } else {
          out.null();
        }
      }
      out.end_object();
    });
  }
  if (b->pruned) return said(404, "Block not found (pruned data)");
  auto bytes = dir.read_block(*b);
  if (!bytes) return said(500, "I/O error reading the block");
  if (rest == "raw")
    return {200, "application/octet-stream", std::string(reinterpret_cast<const char*>(bytes.value().data()), bytes.value().size())};
  auto view = BlockView::parse(bytes.value());
  if (!view) return said(500, "The block's bytes do not decode");
  const BlockView& v = view.value();
  if (rest == "header") return text(to_hex(std::span(bytes.value()).first(80)));
  if (rest == "txids") {
    return json_of([&](tables::JsonWriter& out) {
      out.begin_array();
      for (std::size_t i = 0; i < v.transaction_count(); ++i) out.string(v.transaction(i).txid().to_hex());
      out.end_array();
    });
  }
  if (rest.starts_with("txid/")) {
    const auto i = whole<std::uint64_t>(rest.substr(5));
    if (!i) return said(400, "Invalid number");
    if (*i >= v.transaction_count()) return said(404, "tx index out of range");
    return text(v.transaction(static_cast<std::size_t>(*i)).txid().to_hex());
  }
  if (rest == "txs" || rest.starts_with("txs/")) {
    // 25 transactions from START (a multiple of 25), in Esplora's JSON.
    const auto start = rest == "txs" ? std::optional<std::uint64_t>(0) : whole<std::uint64_t>(rest.substr(4));
    if (!start) return said(400, "Invalid number");
    if (*start % 25 != 0) return said(400, "start index must be a multiple of 25");
    if (*start >= v.transaction_count()) return said(404, "start index out of range");
    BlockUndo undo;
    if (auto failed = read_undo(dir, *b, v, undo)) return *failed;
    const Confirmed at{b->linked_height(), b->hash, v.header().time};
    const std::size_t end = std::min<std::size_t>(v.transaction_count(), static_cast<std::size_t>(*start) + 25);
    return json_of([&](tables::JsonWriter& out) {
      out.begin_array();
      for (auto i = static_cast<std::size_t>(*start); i < end; ++i)
        write_esplora_tx(out, v.transaction(i), coins_spent_by(undo, i), at, dir.net());
      out.end_array();
    });
  }
  if (!rest.empty()) return said(404, "endpoint does not exist");
  const BlockHeader h = v.header();
  const ChainInfo chain = index.chain_info(*b);
  return json_of([&](tables::JsonWriter& out) {
    out.begin_object();
    out.member_string("id", hash->to_hex());
    out.member_integer("height", signed_height(chain.height));
    out.member_integer("version", h.version);
    out.member_uint("timestamp", h.time);
    out.member_uint("tx_count", v.transaction_count());
    out.member_uint("size", v.bytes().size());
    out.member_uint("weight", v.weight());
    out.member_string("merkle_root", h.merkle_root.to_hex());
    out.key("previousblockhash");
    if (h.prev_block.is_all_zeros()) {
      out.null();
    } else {
      out.string(h.prev_block.to_hex());
    }
    out.member_uint("mediantime", chain.median_time);
    out.member_uint("nonce", h.nonce);
    out.member_uint("bits", h.bits);
    out.member_raw_number("difficulty", shortest(tables::difficulty(h.bits)));
    out.end_object();
  });
}

// /api/tx/TXID (Esplora's JSON, each input's prevout from the undo data),
// /status, /hex, /raw, /merkle-proof: where the transaction index puts it
// (rest --txindex).
Response Answers::esplora_tx(std::string_view part) const {
  const auto slash = part.find('/');
  const std::string_view what = slash == std::string_view::npos ? std::string_view{} : part.substr(slash + 1);
  const auto txid = parse_hash<Txid>(part.substr(0, slash));
  if (!txid) return said(400, "Invalid hex string");
  const bool outspends = what == "outspends" || what.starts_with("outspend/");
  if (!what.empty() && what != "status" && what != "hex" && what != "raw" && what != "merkle-proof" && !outspends) {
    return said(404, "endpoint does not exist");
  }
  if (outspends && sources.addresses == nullptr) return said(503, "No address index: rest runs without --addresses");
  if (sources.tx_index == nullptr) return said(503, "No transaction index: rest runs without --txindex");
  const auto place = sources.tx_index->find(*txid);
  if (!place) return said(500, "I/O error reading the transaction index");
  const auto b = place.value() ? index.find(place.value()->block) : std::nullopt;
  if (!b || !index.on_best_chain(*b)) {
    // (Esplora's: an unknown transaction is an unconfirmed one to /status)
    if (what == "status")
      return json_of([](tables::JsonWriter& out) {
        out.begin_object();
        out.member_boolean("confirmed", false);
        out.end_object();
      });
    return said(404, what == "merkle-proof" ? "Transaction not found or is unconfirmed" : "Transaction not found");
  }
  if (what == "hex" || what == "raw") {
    auto bytes = sources.tx_index->read(dir, *txid);
    if (!bytes || !bytes.value()) return said(500, "I/O error reading the transaction");
    const std::vector<std::byte>& tx = *bytes.value();
    if (what == "hex") return text(to_hex(tx));
    return {200, "application/octet-stream", std::string(reinterpret_cast<const char*>(tx.data()), tx.size())};
  }
  if (b->pruned) return said(404, "Transaction not found (pruned data)");
  auto bytes = dir.read_block(*b);
  if (!bytes) return said(500, "I/O error reading the block");
  auto view = BlockView::parse(bytes.value());
  if (!view) return said(500, "The block's bytes do not decode");
  const BlockView& v = view.value();
  const Confirmed at{b->height, b->hash, v.header().time};
  if (what == "status") return json_of([&](tables::JsonWriter& out) { write_esplora_status(out, at); });
  // (the index's place of it in the block's bytes: no txid hashed to find it)
  std::size_t pos = 0;
  while (pos < v.transaction_count() &&
         static_cast<std::size_t>(v.transaction(pos).bytes().data() - v.bytes().data()) != place.value()->offset) {
    ++pos;
  }
  if (pos == v.transaction_count() || v.transaction(pos).txid() != *txid) {
    return said(500, "The transaction index names a block without the transaction");
  }
  const TransactionView tx = v.transaction(pos);
  if (outspends) {
    std::vector<std::uint32_t> vouts;
    if (what == "outspends") {
      for (std::uint32_t k = 0; k < tx.output_count(); ++k) vouts.push_back(k);
    } else {
      const auto k = whole<std::uint32_t>(what.substr(std::string_view("outspend/").size()));
      if (!k) return said(400, "Invalid number");
      vouts.push_back(*k);
    }
    std::vector<std::optional<Spender>> found;
    for (const std::uint32_t k : vouts) {
      if (k >= tx.output_count()) {
        found.emplace_back();  // (Esplora's answer for an outpoint nothing spends)
        continue;
      }
      auto spender = spender_of(OutPoint{*txid, k}, tx.output(k).script_pubkey(), b->height);
      if (!spender) return said(500, spender.error().message());
      found.push_back(spender.value());
    }
    return json_of([&](tables::JsonWriter& out) {
      if (what == "outspends") out.begin_array();
      for (const auto& s : found) {
        out.begin_object();
        out.member_boolean("spent", s.has_value());
        if (s) {
          out.member_string("txid", s->txid.to_hex());
          out.member_uint("vin", s->vin);
          out.key("status");
          write_esplora_status(out, s->at);
        }
        out.end_object();
      }
      if (what == "outspends") out.end_array();
    });
  }
  if (what.empty()) {
    BlockUndo undo;
    if (auto failed = read_undo(dir, *b, v, undo)) return *failed;
    return json_of([&](tables::JsonWriter& out) { write_esplora_tx(out, tx, coins_spent_by(undo, pos), at, dir.net()); });
  }
  std::vector<Txid> ids(v.transaction_count(), Txid::all_zeros());
  txids(v, 0, ids);
  const std::vector<Hash256> branch = merkle_branch(std::span<const Txid>(ids), pos);
  return json_of([&](tables::JsonWriter& out) {
    out.begin_object();
    out.member_integer("block_height", b->height.to_wire());
    out.key("merkle");
    out.begin_array();
    for (const Hash256& h : branch) out.string(h.to_hex());
    out.end_array();
    out.member_uint("pos", pos);
    out.end_object();
  });
}

}  // namespace blockwire::rest::detail
