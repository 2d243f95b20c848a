// Esplora's address routes: /api/address/A and /api/scripthash/H, with
// /utxo, /txs, /txs/chain and /txs/chain/LAST_SEEN_TXID. The totals come
// from the address index alone; transactions from the blocks its rows
// name, read again (and each script hashed) to find the script's.
#include "answers.hpp"
#include "esplora_json.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/codec/address.hpp>
#include <blockwire/blockfiles/error.hpp>
#include <blockwire/directory/address_index.hpp>
#include <blockwire/directory/script_history.hpp>
#include <blockwire/directory/tx_index.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire::rest::detail {

namespace {

Response said(unsigned status, std::string words) { return {status, "text/plain", std::move(words)}; }

constexpr std::size_t page_size = 25;        // Esplora's confirmed transactions a page
constexpr std::size_t max_unspent = 10'000;  // outputs /utxo lists at most

// The block at `height` with the script's transactions, or the answer
// that says why it could not be read.
std::optional<Response> read_touching(const BlocksDirectory& dir, Height height, const ScriptHash& script, ScriptInBlock& out) {
  const auto r = read_script_in_block(dir, height, script, out);
  if (r) return std::nullopt;
  if (r.error().code() == blockfiles::errc::pruned)
    return said(410, "Block " + to_string(height) + " was pruned: its transactions are gone");
  return said(500, "Reading " + r.error().message());
}

Confirmed confirmed_in(const ScriptInBlock& b) { return Confirmed{b.block.height, b.block.hash, b.view.header().time}; }

}  // namespace

result<std::optional<Answers::Spender>> Answers::spender_of(const OutPoint& outpoint, std::span<const std::byte> script,
                                                            Height height) const {
  std::optional<Spender> found;
  if (unspendable(script)) return found;
  const ScriptHash hash = ScriptHash::of(script);
  ScriptInBlock block;
  std::optional<Response> failed;
  auto r = sources.addresses->each_block(hash, false, height, [&](const AddressIndex::BlockRow& row) {
    if (row.totals.spent_txo_count == 0) return true;
    failed = read_touching(dir, row.height, hash, block);
    if (failed) return false;
    for (const auto& touch : block.touching) {
      const TransactionView tx = block.view.transaction(touch.tx);
      for (const std::uint32_t k : touch.spends) {
        if (tx.input(k).prevout() == outpoint) {
          found = Spender{tx.txid(), k, confirmed_in(block)};
          return false;
        }
      }
    }
    return true;
  });
  if (!r) return r.error();
  if (failed) return blockwire::error(std::make_error_code(std::errc::io_error)).in(failed->body);
  return found;
}

}  // namespace blockwire::rest::detail

namespace blockwire::rest {

void write_chain_stats(tables::JsonWriter& out, const AddressIndex::Totals& t) {
  out.begin_object();
  out.member_uint("funded_txo_count", t.funded_txo_count);
  out.member_integer("funded_txo_sum", t.funded_txo_sum.to_sat());
  out.member_uint("spent_txo_count", t.spent_txo_count);
  out.member_integer("spent_txo_sum", t.spent_txo_sum.to_sat());
  out.member_uint("tx_count", t.tx_count);
  out.end_object();
}

}  // namespace blockwire::rest

namespace blockwire::rest::detail {

Response Answers::esplora_address(std::string_view part, std::string_view query, bool by_scripthash) const {
  const auto slash = part.find('/');
  const std::string_view id = part.substr(0, slash);
  const std::string_view what = slash == std::string_view::npos ? std::string_view{} : part.substr(slash + 1);
  std::optional<ScriptHash> script;
  if (by_scripthash) {
    script = ScriptHash::from_hex(id);
    if (!script) return said(400, "Invalid scripthash");
  } else {
    auto decoded = decode_address(id, dir.net());
    if (!decoded) {
      for (const network other : {network::mainnet, network::testnet3, network::testnet4, network::signet, network::regtest}) {
        if (other != dir.net() && decode_address(id, other)) return said(400, "Address on invalid network");
      }
      return said(400, "Invalid Bitcoin address: " + decoded.error().message());
    }
    script = ScriptHash::of(decoded.value());
  }
  const bool stats = what.empty(), utxo = what == "utxo", first_page = what == "txs" || what == "txs/chain";
  const bool after = what.starts_with("txs/chain/");
  if (what == "txs/mempool") return {200, "application/json", "[]\n"};  // (no mempool here)
  if (!stats && !utxo && !first_page && !after) return said(404, "endpoint does not exist");
  const AddressIndex* addresses = sources.addresses;
  if (addresses == nullptr) return said(503, "No address index: rest runs without --addresses");

  if (stats) {
    const auto totals = addresses->totals(*script);
    if (!totals) return said(500, "The address index: " + totals.error().message());
    return json_of([&](tables::JsonWriter& out) {
      out.begin_object();
      if (by_scripthash) {
        out.member_string("scripthash", script->to_hex());
      } else {
        out.member_string("address", std::string(id));
      }
      out.key("chain_stats");
      write_chain_stats(out, totals.value());
      out.key("mempool_stats");
      write_chain_stats(out, AddressIndex::Totals{});
      out.end_object();
    });
  }

  ScriptInBlock block;
  std::optional<Response> failed;
  if (utxo) {
    // Oldest block first: an output in once funded, out once spent.
    struct Unspent {
      Amount value;
      Confirmed at;
    };
    std::map<OutPoint, Unspent> unspent;
    const auto r = addresses->each_block(*script, false, Height::genesis(), [&](const AddressIndex::BlockRow& row) {
      failed = read_touching(dir, row.height, *script, block);
      if (failed) return false;
      for (const auto& touch : block.touching) {
        const TransactionView tx = block.view.transaction(touch.tx);
        for (const std::uint32_t k : touch.spends) unspent.erase(tx.input(k).prevout());
        if (touch.funds.empty()) continue;
        const Txid txid = tx.txid();
        for (const std::uint32_t k : touch.funds)
          unspent.insert_or_assign(OutPoint{txid, k}, Unspent{tx.output(k).value(), confirmed_in(block)});
      }
      return unspent.size() <= max_unspent;
    });
    if (!r) return said(500, "The address index: " + r.error().message());
    if (failed) return *failed;
    if (unspent.size() > max_unspent) return said(400, "Too many unspent transaction outputs (>" + std::to_string(max_unspent) + ")");
    std::vector<std::pair<OutPoint, Unspent>> listed(unspent.begin(), unspent.end());
    std::stable_sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) { return a.second.at.height > b.second.at.height; });
    return json_of([&](tables::JsonWriter& out) {
      out.begin_array();
      for (const auto& [outpoint, u] : listed) {
        out.begin_object();
        out.member_string("txid", outpoint.txid.to_hex());
        out.member_uint("vout", outpoint.index);
        out.key("status");
        write_esplora_status(out, u.at);
        out.member_integer("value", u.value.to_sat());
        out.end_object();
      }
      out.end_array();
    });
  }

  // A page of transactions, newest first: after `last_seen` when given
  // (/txs/chain/TXID, or mempool.space's ?after_txid=); a txid that is not
  // hex gives the first page, as Esplora's does; one the chain has not, none.
  std::optional<Txid> last_seen;
  std::string_view seen_text = after ? what.substr(std::string_view("txs/chain/").size()) : std::string_view{};
  if (!after) {
    for (std::string_view q = query; !q.empty();) {
      const auto amp = q.find('&');
      const std::string_view pair = q.substr(0, amp);
      if (pair.starts_with("after_txid=")) seen_text = pair.substr(11);
      q = amp == std::string_view::npos ? std::string_view{} : q.substr(amp + 1);
    }
  }
  if (!seen_text.empty()) last_seen = parse_hash<Txid>(seen_text);
  Height start = *Height::checked(Height::max_value);  // (newest first: from the top)
  if (last_seen && sources.tx_index != nullptr) {
    // Where the transaction index puts it: the page begins in its block.
    const auto place = sources.tx_index->find(*last_seen);
    if (!place) return said(500, "I/O error reading the transaction index");
    const auto b = place.value() ? index.find(place.value()->block) : std::nullopt;
    if (!b || !index.on_best_chain(*b)) return {200, "application/json", "[]\n"};
    start = b->height;
  }
  bool passed = !last_seen;  // (the last seen transaction is behind)
  std::vector<std::string> page;
  const auto r = addresses->each_block(*script, true, start, [&](const AddressIndex::BlockRow& row) {
    // (a last seen transaction the index placed is in the first block
    // read, or it is none of this script's: then no page, not every block)
    if (!passed && sources.tx_index != nullptr && row.height != start) return false;
    failed = read_touching(dir, row.height, *script, block);
    if (failed) return false;
    for (auto i = block.touching.rbegin(); i != block.touching.rend() && page.size() < page_size; ++i) {
      const TransactionView tx = block.view.transaction(i->tx);
      if (!passed) {
        passed = tx.txid() == *last_seen;
        continue;
      }
      page.push_back(tables::json_value(
          [&](tables::JsonWriter& out) { write_esplora_tx(out, tx, coins_spent_by(block.undo, i->tx), confirmed_in(block), dir.net()); }));
    }
    return page.size() < page_size && (passed || sources.tx_index == nullptr);
  });
  if (!r) return said(500, "The address index: " + r.error().message());
  if (failed) return *failed;
  std::string body = "[";
  for (std::size_t i = 0; i < page.size(); ++i) {
    if (i != 0) body += ',';
    body += page[i];
  }
  body += "]\n";
  return {200, "application/json", std::move(body)};
}

}  // namespace blockwire::rest::detail
