// /rest/getutxos: the outpoints asked, looked up in the UTXO set at the tip
// (Service::Coins, opened again when the tip moved).
#include "answers.hpp"

#include <blockwire/codec/wire.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/tables/core_json.hpp>
#include <blockwire/tables/json_writer.hpp>
#include <blockwire/undo.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blockwire::rest::detail {

void Answers::encode_coin(Sink& out, const SpentCoin& coin) {
  wire::encode_u32(out, 0);
  wire::encode_u32(out, coin.height.to_wire());
  wire::encode_amount(out, coin.value);
  wire::encode_bytes(out, coin.script_pubkey);
}

Response Answers::utxos(const std::string& part, std::string_view body) const {
  std::string param;
  const format f = split_format(part, param);
  std::vector<std::string> parts;
  if (param.size() > 1) parts = split(param.substr(1), '/');
  if (body.empty() && parts.empty()) return error(400, "Error: empty request");
  bool check_mempool = false;
  std::vector<OutPoint> points;
  if (!parts.empty()) {
    check_mempool = parts[0] == "checkmempool";
    for (std::size_t i = check_mempool ? 1 : 0; i < parts.size(); ++i) {
      const std::vector<std::string> txid_n = split(parts[i], '-');
      if (txid_n.size() != 2) return error(400, "Parse error");
      const auto txid = parse_hash<Txid>(txid_n[0]);
      const auto n = whole<std::uint32_t>(txid_n[1]);
      if (!txid || !n) return error(400, "Parse error");
      points.push_back({*txid, *n});
    }
    if (points.empty()) return error(400, "Error: empty request");
  }
  const bool from_uri = !points.empty();
  if (f == format::binary || f == format::hex) {
    std::vector<std::byte> posted;
    if (f == format::hex) {
      auto decoded = from_hex(body);  // (Core's ParseHex stops at what is not hex)
      if (decoded) posted = std::move(decoded).value();
    } else {
      posted.assign(reinterpret_cast<const std::byte*>(body.data()), reinterpret_cast<const std::byte*>(body.data() + body.size()));
    }
    if (!posted.empty()) {
      if (from_uri) return error(400, "Combination of URI scheme inputs and raw post data is not allowed");
      // A bool, then a vector of outpoints.
      DecodingContext ctx(posted);
      check_mempool = wire::decode_u8(ctx) != 0;
      const std::uint64_t n = wire::decode_compact_size(ctx);
      for (std::uint64_t i = 0; i < n && ctx.ok() && points.size() <= 15; ++i) {
        OutPoint p;
        wire::decode_hash(ctx, p.txid);
        p.index = wire::decode_u32(ctx);
        points.push_back(p);
      }
      if (!ctx.ok()) return error(400, "Parse error");
      if (n > 15) return error(400, "Error: max outpoints exceeded (max: 15, tried: " + std::to_string(n) + ")");
    }
  } else if (f == format::json) {
    if (!from_uri) return error(400, "Error: empty request");
  } else {
    return no_format();
  }
  (void)check_mempool;  // the mempool is empty: nothing in it spends, nothing in it is a coin
  if (points.size() > 15) return error(400, "Error: max outpoints exceeded (max: 15, tried: " + std::to_string(points.size()) + ")");
  if (sources.utxo_set.empty() || index.empty()) return error(503, "Service temporarily unavailable: no UTXO set beside the directory");
  const IndexedBlock tip = index.tip_block();
  std::vector<std::optional<SpentCoin>> found;
  {
    const std::lock_guard lock(coins.mutex);
    const auto now = std::chrono::steady_clock::now();
    if ((!coins.set || coins.set->best_block() != tip.hash) && now - coins.opened >= std::chrono::seconds(1)) {
      coins.opened = now;
      coins.set.reset();
      auto opened = ChainstateSnapshot::open(sources.utxo_set);
      if (!opened) return error(503, "Service temporarily unavailable: " + sources.utxo_set + ": " + opened.error().message());
      coins.set.emplace(std::move(opened).value());
    }
    if (!coins.set || coins.set->best_block() != tip.hash) {
      return error(503, "Service temporarily unavailable: the UTXO set in " + sources.utxo_set + " is not at the tip");
    }
    for (const OutPoint& p : points) {
      auto coin = coins.set->find(p);
      if (!coin) return error(500, "I/O error reading the UTXO set");
      found.push_back(std::move(coin).value());
    }
  }
  std::string bitmap_text;
  std::vector<std::byte> bitmap((found.size() + 7) / 8);
  for (std::size_t i = 0; i < found.size(); ++i) {
    bitmap_text.push_back(found[i] ? '1' : '0');
    if (found[i]) bitmap[i / 8] |= static_cast<std::byte>(1u << (i % 8));
  }
  std::size_t hits = 0;
  for (const auto& c : found) hits += c ? 1 : 0;
  if (f == format::binary || f == format::hex) {
    return encoded_in(f, [&](Sink& out) {
      wire::encode_u32(out, tip.height.to_wire());
      wire::encode_hash(out, tip.hash);
      wire::encode_bytes(out, bitmap);
      wire::encode_compact_size(out, hits);
      for (const auto& c : found) {
        if (c) encode_coin(out, *c);
      }
    });
  }
  return json_of([&](tables::JsonWriter& out) {
    out.begin_object();
    out.member_integer("chainHeight", tip.height.to_wire());
    out.member_string("chaintipHash", tip.hash.to_hex());
    out.member_string("bitmap", bitmap_text);
    out.key("utxos");
    out.begin_array();
    for (const auto& c : found) {
      if (!c) continue;
      out.begin_object();
      out.member_uint("height", c->height.to_wire());
      out.member_raw_number("value", tables::amount_text(c->value));
      out.key("scriptPubKey");
      tables::write_script_pubkey_json(out, c->script_pubkey, dir.net());
      out.end_object();
    }
    out.end_array();
    out.end_object();
  });
}

}  // namespace blockwire::rest::detail
