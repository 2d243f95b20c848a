// JSON-RPC 2.0 as the Electrum protocol frames it (one request, or a batch,
// a line), and the protocol's methods, each a function of its params.
#include "history.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/codec/merkle_branch.hpp>
#include <blockwire/electrum/service.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/tables/core_json.hpp>
#include <blockwire/tables/json_writer.hpp>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>

#ifndef BLOCKWIRE_VERSION
#define BLOCKWIRE_VERSION "0"
#endif

namespace blockwire::electrum {

namespace {

// The protocol's error codes: JSON-RPC's own, and ElectrumX's for a
// request it understood and cannot answer.
enum code : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  bad_request = 1,   // ElectrumX's BAD_REQUEST: the params name nothing the chain has
  daemon_error = 2,  // ElectrumX's DAEMON_ERROR: the node behind could not do it
};

struct RpcError {
  int code;
  std::string message;
};

// A method's answer: the result's JSON text, or the error.
struct Outcome {
  std::string result;
  std::optional<RpcError> error;
};

Outcome ok(std::string json) { return {std::move(json), std::nullopt}; }
Outcome failed(int c, std::string message) { return {{}, RpcError{c, std::move(message)}}; }

std::string json_string(std::string_view s) {
  return tables::json_value([&](tables::JsonWriter& out) { out.string(s); });
}

// A JSON-RPC error response to the request whose id is `id` (JSON text).
std::string error_response(std::string_view id, int code, std::string_view message) {
  return "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":" + std::to_string(code) + ",\"message\":" + json_string(message) +
         "},\"id\":" + std::string(id) + "}";
}

std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// The params of a request, positional (named ones by their names).
class Params {
 public:
  Params(const rapidjson::Value* params, std::initializer_list<std::string_view> names) : params_(params), names_(names) {}
  const rapidjson::Value* at(std::size_t i) const {
    if (params_ == nullptr) return nullptr;
    if (params_->IsArray()) return i < params_->Size() ? &(*params_)[static_cast<rapidjson::SizeType>(i)] : nullptr;
    if (params_->IsObject() && i < names_.size()) {
      const auto name = *(names_.begin() + i);
      const auto m = params_->FindMember(rapidjson::Value(rapidjson::StringRef(name.data(), name.size())));
      return m != params_->MemberEnd() ? &m->value : nullptr;
    }
    return nullptr;
  }
  std::optional<std::string_view> string(std::size_t i) const {
    const auto* v = at(i);
    if (v == nullptr || !v->IsString()) return std::nullopt;
    return std::string_view(v->GetString(), v->GetStringLength());
  }
  // A non-negative integer (absent: `otherwise`); none when it is something else.
  std::optional<std::uint64_t> count(std::size_t i, std::optional<std::uint64_t> otherwise = std::nullopt) const {
    const auto* v = at(i);
    if (v == nullptr || v->IsNull()) return otherwise;
    if (v->IsUint64()) return v->GetUint64();
    return std::nullopt;
  }
  std::optional<bool> flag(std::size_t i, bool otherwise) const {
    const auto* v = at(i);
    if (v == nullptr || v->IsNull()) return otherwise;
    if (v->IsBool()) return v->GetBool();
    return std::nullopt;
  }

 private:
  const rapidjson::Value* params_;
  std::initializer_list<std::string_view> names_;
};

std::optional<Txid> txid_of(std::string_view hex) {
  auto id = Txid::from_hex(hex);
  if (!id) return std::nullopt;
  return id.value();
}

}  // namespace

struct Service::Statuses {
  struct Entry {
    detail::RunningStatus running;
    BlockHash tip = BlockHash::all_zeros();  // the tip it was made at
  };
  static constexpr std::size_t max_kept = 1'000'000;  // scripts (a few hundred bytes each); past it, all forgotten
  detail::TouchCache blocks;                          // the blocks statuses were last made from
  std::mutex mutex;
  std::map<ScriptHash, Entry, ScriptHashLess> by_script;
};

struct Service::Impl {
  const Service& s;
  Subscriptions& mine;
  // What one line may still cost: checkpoint leaves to hash, and whether
  // its answer has passed ServiceOptions::max_answer.
  std::uint64_t& proof_leaves_left;
  bool& answer_full;

  const BlocksDirectory& dir() const { return s.store_.directory(); }
  const BlockIndex& index() const { return s.store_.index(); }

  // The best chain's block at a height a request named, if there is one.
  std::optional<IndexedBlock> best_at(std::uint64_t height) const {
    const auto h = Height::checked(height);
    if (!h || !dir().chain_size().contains(*h)) return std::nullopt;
    return dir().at_height(*h);
  }

  // The header at `height` in hex, or why not.
  std::optional<std::string> header_hex(std::uint64_t height) const {
    const auto b = best_at(height);
    if (!b) return std::nullopt;
    const auto header = index().header(*b);
    if (!header) return std::nullopt;
    std::vector<std::byte> bytes;
    encode_header(header.value(), bytes);
    return to_hex(bytes);
  }

  // The merkle proof of the header at `height` under the root of every
  // header up to `cp_height` (its "branch" and "root" members, hashes in
  // display order as ElectrumX prints them: Hash256::to_hex's).
  void write_checkpoint(tables::JsonWriter& out, std::uint64_t height, std::uint64_t cp_height) const {
    std::vector<Hash256> leaves;
    leaves.reserve(cp_height + 1);
    for (const Height h : BlockCount(cp_height + 1).heights())
      leaves.push_back(dir().at_height(h).hash.to_raw_hash());  // (checkpoint_ok: on the chain)
    const Hash256 leaf = leaves[height];
    const std::vector<Hash256> branch = merkle_branch(std::move(leaves), height);
    const Hash256 root = merkle_root_from_branch(leaf, height, branch);
    out.key("branch");
    out.begin_array();
    for (const Hash256& h : branch) out.string(h.to_hex());
    out.end_array();
    out.member_string("root", root.to_hex());
  }

  std::optional<RpcError> checkpoint_ok(std::uint64_t last, std::uint64_t cp_height) const {
    if (cp_height == 0) return std::nullopt;
    if (cp_height >= dir().chain_size().value())
      return RpcError{bad_request, "cp_height " + std::to_string(cp_height) + " is past the tip"};
    if (last > cp_height)
      return RpcError{bad_request, "header height " + std::to_string(last) + " is past cp_height " + std::to_string(cp_height)};
    if (cp_height + 1 > proof_leaves_left) {
      return RpcError{bad_request, "checkpoint proofs of more than " + std::to_string(s.options_.max_proof_leaves) +
                                       " headers in one request line: ask in several lines"};
    }
    proof_leaves_left -= cp_height + 1;
    return std::nullopt;
  }

  std::string tip_json() const {
    const std::uint64_t height = index().tip_height().value_or(Height::genesis()).to_wire();  // (asked with a chain alone)
    return tables::json_value([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_uint("height", height);
      out.member_string("hex", header_hex(height).value_or(""));
      out.end_object();
    });
  }

  // ---- server.*
  Outcome version(const Params& p) const {
    if (mine.version_said) return failed(bad_request, "server.version already sent");
    // (protocol_version: a version, or [min, max]; 1.4 must be in it)
    const auto* v = p.at(1);
    std::string min = "1.4", max = "1.4";
    if (v != nullptr && v->IsString()) {
      min = max = v->GetString();
    } else if (v != nullptr && v->IsArray() && v->Size() == 2 && (*v)[0].IsString() && (*v)[1].IsString()) {
      min = (*v)[0].GetString();
      max = (*v)[1].GetString();
    } else if (v != nullptr && !v->IsNull()) {
      return failed(invalid_params, "protocol_version: a version or [min, max]");
    }
    const auto older = [](const std::string& a, const std::string& b) {  // (dotted numbers)
      std::size_t i = 0, j = 0;
      while (i < a.size() || j < b.size()) {
        std::uint64_t x = 0, y = 0;
        for (; i < a.size() && a[i] != '.'; ++i) x = x * 10 + static_cast<std::uint64_t>(a[i] - '0');
        for (; j < b.size() && b[j] != '.'; ++j) y = y * 10 + static_cast<std::uint64_t>(b[j] - '0');
        if (x != y) return x < y;
        ++i, ++j;
      }
      return false;
    };
    for (const std::string& text : {min, max}) {
      if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos)
        return failed(invalid_params, "protocol_version: " + text);
    }
    if (older(std::string(protocol_version), min) || older(max, std::string(protocol_version))) {
      mine.close = true;
      return failed(bad_request,
                    "unsupported protocol version: " + min + " to " + max + " asked, " + std::string(protocol_version) + " spoken");
    }
    mine.version_said = true;
    return ok("[\"blockwire " BLOCKWIRE_VERSION "\"," + json_string(protocol_version) + "]");
  }

  Outcome features() const {
    return ok(tables::json_value([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_string("genesis_hash", genesis_hash(dir().net()).to_hex());
      out.key("hosts");
      out.begin_object();
      out.end_object();
      out.member_string("protocol_max", protocol_version);
      out.member_string("protocol_min", protocol_version);
      out.key("pruning");
      if (dir().pruned()) {
        out.uint(dir().prune_height().to_wire());
      } else {
        out.null();
      }
      out.member_string("server_version", "blockwire " BLOCKWIRE_VERSION);
      out.member_string("hash_function", "sha256");
      out.key("services");
      out.begin_array();
      out.end_array();
      out.end_object();
    }));
  }

  Outcome banner() const {
    if (!s.options_.banner.empty()) return ok(json_string(s.options_.banner));
    if (s.node_.mempool != nullptr) {
      return ok(json_string("blockwire " BLOCKWIRE_VERSION
                            ": the chain of a node's blocks directory, and the node's mempool as it announces it over P2P "
                            "(broadcasts are handed to the node)"));
    }
    return ok(json_string("blockwire " BLOCKWIRE_VERSION
                          ": the confirmed chain of a node's blocks directory (no mempool: unconfirmed transactions are not "
                          "seen, and transactions are not broadcast)"));
  }

  // ---- blockchain.block.* and headers
  Outcome block_header(const Params& p) const {
    const auto height = p.count(0);
    const auto cp = p.count(1, 0);
    if (!height || !cp) return failed(invalid_params, "height and cp_height: non-negative integers");
    if (!best_at(*height)) return failed(bad_request, "height " + std::to_string(*height) + " out of range");
    if (auto e = checkpoint_ok(*height, *cp)) return {{}, e};
    const auto hex = header_hex(*height);
    if (!hex) return failed(daemon_error, "the header at height " + std::to_string(*height) + " could not be read");
    if (*cp == 0) return ok(json_string(*hex));
    return ok(tables::json_value([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_string("header", *hex);
      write_checkpoint(out, *height, *cp);
      out.end_object();
    }));
  }

  Outcome block_headers(const Params& p) const {
    constexpr std::uint64_t max_headers = 2016;
    const auto start = p.count(0);
    const auto asked = p.count(1);
    const auto cp = p.count(2, 0);
    if (!start || !asked || !cp) return failed(invalid_params, "start_height, count and cp_height: non-negative integers");
    const std::uint64_t end = std::min<std::uint64_t>(dir().chain_size().value(), *start + std::min(*asked, max_headers));
    const std::uint64_t n = end > *start ? end - *start : 0;
    if (n != 0) {
      if (auto e = checkpoint_ok(end - 1, *cp)) return {{}, e};
    }
    std::string hex;
    hex.reserve(n * 160);
    for (std::uint64_t h = *start; h < end; ++h) {
      const auto one = header_hex(h);
      if (!one) return failed(daemon_error, "the header at height " + std::to_string(h) + " could not be read");
      hex += *one;
    }
    return ok(tables::json_value([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_uint("count", n);
      out.member_string("hex", hex);
      out.member_uint("max", max_headers);
      if (*cp != 0 && n != 0) write_checkpoint(out, end - 1, *cp);
      out.end_object();
    }));
  }

  // ---- statuses
  // The height of the highest block of `old_tip`'s chain that is on the
  // best chain now (-1: none).
  std::optional<Height> fork_below(const BlockHash& old_tip) const { return detail::fork_height(index(), old_tip); }

  struct Status {
    detail::RunningStatus running;
    bool too_large = false;
    std::optional<error> failure;
  };
  // The script's status at the tip: the one worked out for every connection
  // at this tip, or that of an earlier tip extended by the blocks since
  // (when none of its blocks left the chain), or made from the start.
  // The status at the tip with the script's unconfirmed transactions
  // after its confirmed ones (what is kept across tips is the confirmed part).
  Status status_now(const ScriptHash& script) const {
    Status out = confirmed_status_now(script);
    if (out.failure || out.too_large || s.node_.mempool == nullptr) return out;
    const auto pending = s.node_.mempool->history(script);
    if (pending.empty()) return out;
    Sha256 hasher = out.running.hasher;
    for (const Mempool::Entry& e : pending) detail::hash_status_item(hasher, e.txid, e.height);
    out.running.status = to_hex(hasher.finish().bytes());
    return out;
  }

  Status confirmed_status_now(const ScriptHash& script) const {
    const BlockHash tip = index().empty() ? BlockHash::all_zeros() : index().tip();
    // (an index still being brought to the tip: its status now, neither kept nor taken from what is kept)
    const bool current = s.addresses_.best() == tip;
    Statuses& kept = *s.statuses_;
    std::optional<Statuses::Entry> known;
    if (current) {
      const std::lock_guard lock(kept.mutex);
      if (const auto at = kept.by_script.find(script); at != kept.by_script.end()) known = at->second;
    }
    Status out;
    if (known && known->tip == tip) {
      out.running = std::move(known->running);
      return out;
    }
    if (known && known->running.top <= fork_below(known->tip)) out.running = std::move(known->running);
    // (read outside the lock: other connections' scripts are not kept waiting)
    const auto made = detail::extend_status(dir(), s.addresses_, kept.blocks, script, s.options_.max_history, out.running);
    if (!made) {
      out.failure = made.error();
    } else if (!made.value()) {
      out.too_large = true;
    } else if (current && out.running.top.has_value()) {  // (an empty history costs nothing to make again: not kept)
      const std::lock_guard lock(kept.mutex);
      if (kept.by_script.size() >= Statuses::max_kept) kept.by_script.clear();
      kept.by_script.insert_or_assign(script, Statuses::Entry{out.running, tip});
    }
    return out;
  }

  // ---- blockchain.scripthash.*
  Outcome scripthash_call(std::string_view what, const Params& p) const {
    static constexpr std::string_view known[] = {"subscribe", "unsubscribe", "get_balance", "get_history", "get_mempool", "listunspent"};
    if (std::find(std::begin(known), std::end(known), what) == std::end(known)) return failed(method_not_found, "unknown method");
    const auto hex = p.string(0);
    const auto script = hex ? parse_scripthash(*hex) : std::nullopt;
    if (!script) return failed(invalid_params, "scripthash: 64 hex digits");
    if (what == "unsubscribe") return ok(mine.scripts.erase(*script) != 0 ? "true" : "false");
    const Mempool* pool = s.node_.mempool;
    const std::vector<Mempool::Entry> pending = pool != nullptr ? pool->history(*script) : std::vector<Mempool::Entry>{};
    const auto write_pending = [&](tables::JsonWriter& out) {
      for (const Mempool::Entry& e : pending) {
        out.begin_object();
        out.member_integer("height", e.height);
        out.member_string("tx_hash", e.txid.to_hex());
        out.member_integer("fee", e.fee.to_sat());
        out.end_object();
      }
    };
    if (what == "get_mempool") {
      return ok(tables::json_value([&](tables::JsonWriter& out) {
        out.begin_array();
        write_pending(out);
        out.end_array();
      }));
    }
    if (what == "get_balance") {
      const auto totals = s.addresses_.totals(*script);
      if (!totals) return failed(daemon_error, "the address index: " + totals.error().message());
      const auto& t = totals.value();
      return ok("{\"confirmed\":" + std::to_string(t.funded_txo_sum.to_sat() - t.spent_txo_sum.to_sat()) +
                ",\"unconfirmed\":" + std::to_string(pool != nullptr ? pool->balance(*script) : 0) + "}");
    }
    if (what == "subscribe" && !mine.scripts.contains(*script) && mine.scripts.size() >= s.options_.max_subscriptions) {
      return failed(bad_request,
                    "too many scripthashes subscribed (at most " + std::to_string(s.options_.max_subscriptions) + " a connection)");
    }
    if (what == "subscribe") {
      const Status now = status_now(*script);
      if (now.too_large) return failed(bad_request, "history too large (over " + std::to_string(s.options_.max_history) + " transactions)");
      if (now.failure) return failed(daemon_error, now.failure->message());
      mine.scripts[*script] = Subscriptions::Followed{now.running.status, now.running.top};
      return ok(now.running.status ? json_string(*now.running.status) : "null");
    }
    const detail::History h = what == "listunspent"
                                  ? detail::unspent_of(dir(), s.addresses_, *script, s.options_.max_history)
                                  : detail::history_of(dir(), s.addresses_, s.statuses_->blocks, *script, s.options_.max_history);
    if (h.too_large) return failed(bad_request, "history too large (over " + std::to_string(s.options_.max_history) + " transactions)");
    if (h.failure) return failed(daemon_error, h.failure->message());
    return ok(tables::json_value([&](tables::JsonWriter& out) {
      out.begin_array();
      if (what == "get_history") {
        for (const auto& item : h.items) {
          out.begin_object();
          out.member_uint("height", item.height.to_wire());
          out.member_string("tx_hash", item.txid.to_hex());
          out.end_object();
        }
        write_pending(out);
      } else {
        for (const auto& u : h.unspent) {
          if (pool != nullptr && pool->spends(u.outpoint)) continue;  // (spent by an unconfirmed transaction)
          out.begin_object();
          out.member_uint("tx_pos", u.outpoint.index);
          out.member_uint("value", static_cast<std::uint64_t>(u.value.to_sat()));
          out.member_string("tx_hash", u.outpoint.txid.to_hex());
          out.member_uint("height", u.height.to_wire());
          out.end_object();
        }
        for (const Mempool::Output& u : pool != nullptr ? pool->unspent(*script) : std::vector<Mempool::Output>{}) {
          out.begin_object();
          out.member_uint("tx_pos", u.outpoint.index);
          out.member_uint("value", static_cast<std::uint64_t>(u.value.to_sat()));
          out.member_string("tx_hash", u.outpoint.txid.to_hex());
          out.member_uint("height", 0);
          out.end_object();
        }
      }
      out.end_array();
    }));
  }

  // ---- blockchain.transaction.*
  // The block at `height` and its txids.
  struct BlockTxids {
    std::vector<std::byte> bytes;
    std::vector<Txid> ids;
  };
  std::optional<RpcError> read_txids(std::uint64_t height, BlockTxids& out) const {
    const auto at = best_at(height);
    if (!at) return RpcError{bad_request, "height " + std::to_string(height) + " out of range"};
    const IndexedBlock& b = *at;
    if (b.pruned) return RpcError{daemon_error, "block " + std::to_string(height) + " was pruned"};
    if (auto r = dir().read_block(b, out.bytes); !r)
      return RpcError{daemon_error, "block " + std::to_string(height) + ": " + r.error().message()};
    auto view = BlockView::parse(out.bytes);
    if (!view) return RpcError{daemon_error, "block " + std::to_string(height) + ": " + view.error().message()};
    out.ids.assign(view.value().transaction_count(), Txid::all_zeros());
    txids(view.value(), 0, out.ids);
    return std::nullopt;
  }

  static void write_branch(tables::JsonWriter& out, const std::vector<Txid>& ids, std::size_t pos) {
    out.begin_array();
    for (const Hash256& h : merkle_branch(std::span<const Txid>(ids), pos)) out.string(h.to_hex());
    out.end_array();
  }

  Outcome get_merkle(const Params& p) const {
    const auto txid_hex = p.string(0);
    const auto height = p.count(1);
    const auto txid = txid_hex ? txid_of(*txid_hex) : std::nullopt;
    if (!txid || !height) return failed(invalid_params, "tx_hash (64 hex digits) and height");
    BlockTxids block;
    if (auto e = read_txids(*height, block)) return {{}, e};
    const auto at = std::find(block.ids.begin(), block.ids.end(), *txid);
    if (at == block.ids.end()) return failed(bad_request, "tx " + txid->to_hex() + " not in block at height " + std::to_string(*height));
    const auto pos = static_cast<std::size_t>(at - block.ids.begin());
    return ok(tables::json_value([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_uint("block_height", *height);
      out.key("merkle");
      write_branch(out, block.ids, pos);
      out.member_uint("pos", pos);
      out.end_object();
    }));
  }

  Outcome id_from_pos(const Params& p) const {
    const auto height = p.count(0);
    const auto pos = p.count(1);
    const auto merkle = p.flag(2, false);
    if (!height || !pos || !merkle) return failed(invalid_params, "height, tx_pos (non-negative integers) and merkle (a boolean)");
    BlockTxids block;
    if (auto e = read_txids(*height, block)) return {{}, e};
    if (*pos >= block.ids.size())
      return failed(bad_request, "no tx at position " + std::to_string(*pos) + " in block at height " + std::to_string(*height));
    if (!*merkle) return ok(json_string(block.ids[*pos].to_hex()));
    return ok(tables::json_value([&](tables::JsonWriter& out) {
      out.begin_object();
      out.member_string("tx_hash", block.ids[*pos].to_hex());
      out.key("merkle");
      write_branch(out, block.ids, *pos);
      out.end_object();
    }));
  }

  Outcome transaction_get(const Params& p) const {
    const auto txid_hex = p.string(0);
    const auto txid = txid_hex ? txid_of(*txid_hex) : std::nullopt;
    const auto verbose = p.flag(1, false);
    if (!txid || !verbose) return failed(invalid_params, "tx_hash (64 hex digits) and verbose (a boolean)");
    const auto not_found = [&] { return failed(bad_request, "No such mempool or blockchain transaction: " + txid->to_hex()); };
    if (s.node_.mempool != nullptr) {
      if (const auto pending = s.node_.mempool->transaction(*txid)) {
        if (!*verbose) return ok(json_string(to_hex(pending->bytes())));
        // (getrawtransaction's object of an unconfirmed transaction: no block, no confirmations)
        return ok(tables::json_value(
            [&](tables::JsonWriter& out) { tables::write_transaction_json(out, *pending, dir().net(), true, nullptr, false, nullptr); }));
      }
    }
    if (s.transactions_ == nullptr) return not_found();
    const auto place = s.transactions_->find(*txid);
    if (!place) return failed(daemon_error, "the transaction index: " + place.error().message());
    if (!place.value()) return not_found();
    const auto b = index().find(place.value()->block);
    if (!b || !index().on_best_chain(*b)) return not_found();
    std::vector<std::byte> block;
    if (auto r = dir().read_block(*b, block); !r) return failed(daemon_error, "block " + to_string(b->height) + ": " + r.error().message());
    const std::size_t offset = place.value()->offset, size = place.value()->size;
    if (offset + size > block.size())
      return failed(daemon_error, "the transaction index places " + txid->to_hex() + " past its block's end");
    const std::span<const std::byte> raw(block.data() + offset, size);
    if (!*verbose) return ok(json_string(to_hex(raw)));
    auto tx = decode_transaction(raw);
    if (!tx) return failed(daemon_error, "transaction " + txid->to_hex() + ": " + tx.error().message());
    const auto header = index().header(*b);
    const std::uint32_t time = header ? header.value().time : 0;
    // getrawtransaction's verbose object: the transaction with its block,
    // then its confirmations and times, as Core appends them.
    std::string json = tables::json_value(
        [&](tables::JsonWriter& out) { tables::write_transaction_json(out, tx.value(), dir().net(), true, nullptr, false, &b->hash); });
    while (!json.empty() && json.back() != '}') json.pop_back();
    json.pop_back();
    json += ",\"confirmations\":" + std::to_string(*index().tip_height() - b->height + 1) + ",\"time\":" + std::to_string(time) +
            ",\"blocktime\":" + std::to_string(time) + "}";
    return ok(std::move(json));
  }

  // BTC/kvB: the node's feefilter, else Core's default -minrelaytxfee (100 sat/kvB, Core 30's).
  double relay_fee_btc() const {
    const auto said = s.node_.relay_fee ? s.node_.relay_fee() : std::nullopt;
    return static_cast<double>(said.value_or(100)) / 1e8;
  }

  Outcome broadcast(const Params& p) const {
    const auto hex = p.string(0);
    if (!hex) return failed(invalid_params, "raw_tx: the transaction in hex");
    if (!s.node_.broadcast) {
      return failed(daemon_error, "this server reads a node's directory and has no peer to broadcast to (blockwire electrum --peer)");
    }
    const auto raw = from_hex(*hex);
    if (!raw) return failed(bad_request, "raw_tx: not hex");
    const auto sent = s.node_.broadcast(raw.value());
    if (const auto* why = std::get_if<std::string>(&sent)) return failed(bad_request, "the transaction was not broadcast: " + *why);
    return ok(json_string(std::get<Txid>(sent).to_hex()));
  }

  Outcome call(std::string_view method, const rapidjson::Value* params) const {
    using namespace std::string_view_literals;
    const auto named = [&](std::initializer_list<std::string_view> names) { return Params(params, names); };
    if (answer_full) {
      return failed(bad_request,
                    "the batch's answer passed " + std::to_string(s.options_.max_answer) + " bytes: this request was not answered");
    }
    if (params != nullptr && !params->IsArray() && !params->IsObject()) return failed(invalid_params, "params: an array or an object");
    if (method == "server.version") return version(named({"client_name", "protocol_version"}));
    if (method == "server.ping") return ok("null");
    if (method == "server.features") return features();
    if (method == "server.banner") return banner();
    if (method == "server.donation_address") return ok(json_string(s.options_.donation_address));
    if (method == "server.peers.subscribe") return ok("[]");
    if (method == "server.add_peer") return ok("false");
    if (method == "blockchain.headers.subscribe") {
      if (index().empty()) return failed(daemon_error, "no block yet: the directory has no chain to follow");
      mine.headers = true;
      mine.header_sent = index().tip_height();
      return ok(tip_json());
    }
    if (method == "blockchain.block.header") return block_header(named({"height", "cp_height"}));
    if (method == "blockchain.block.headers") return block_headers(named({"start_height", "count", "cp_height"}));
    if (method == "blockchain.estimatefee") {
      const auto blocks = named({"number"}).count(0);
      if (!blocks) return failed(invalid_params, "number: a non-negative integer");
      if (s.node_.mempool == nullptr) return ok("-1");  // (no mempool here to estimate from, as a node without estimates answers)
      // BTC/kvB: the rate that would make the next `number` blocks, or the relay fee when the mempool fills none
      const auto rate = s.node_.mempool->fee_rate_for(std::max<std::uint64_t>(1, *blocks));
      const double relay = relay_fee_btc();
      return ok(tables::json_value([&](tables::JsonWriter& out) { out.number(rate ? std::max(relay, *rate * 1000 / 1e8) : relay); }));
    }
    if (method == "blockchain.relayfee") {
      return ok(tables::json_value([&](tables::JsonWriter& out) { out.number(relay_fee_btc()); }));
    }
    if (method == "mempool.get_fee_histogram") {
      if (s.node_.mempool == nullptr) return ok("[]");
      return ok(tables::json_value([&](tables::JsonWriter& out) {
        out.begin_array();
        for (const auto& [rate, vsize] : s.node_.mempool->fee_histogram()) {
          out.begin_array();
          out.uint(rate);
          out.uint(vsize);
          out.end_array();
        }
        out.end_array();
      }));
    }
    if (method.starts_with("blockchain.scripthash."))
      return scripthash_call(method.substr("blockchain.scripthash."sv.size()), named({"scripthash"}));
    if (method == "blockchain.transaction.get") return transaction_get(named({"tx_hash", "verbose"}));
    if (method == "blockchain.transaction.get_merkle") return get_merkle(named({"tx_hash", "height"}));
    if (method == "blockchain.transaction.id_from_pos") return id_from_pos(named({"height", "tx_pos", "merkle"}));
    if (method == "blockchain.transaction.broadcast") return broadcast(named({"raw_tx"}));
    return failed(method_not_found, "unknown method \"" + std::string(method) + "\"");
  }

  // One request object: its response, or nothing for a notification.
  std::optional<std::string> one(const rapidjson::Value& request) const {
    const auto respond = [](const std::string& id, const Outcome& o) {
      if (o.error) return error_response(id, o.error->code, o.error->message);
      return "{\"jsonrpc\":\"2.0\",\"result\":" + o.result + ",\"id\":" + id + "}";
    };
    if (!request.IsObject()) return respond("null", failed(invalid_request, "a request is an object"));
    const auto id_at = request.FindMember("id");
    const bool notification = id_at == request.MemberEnd();
    std::string id = "null";
    if (!notification) {
      if (!id_at->value.IsString() && !id_at->value.IsNumber() && !id_at->value.IsNull()) {
        return respond("null", failed(invalid_request, "id: a string, a number or null"));
      }
      id = compact(id_at->value);
    }
    const auto method = request.FindMember("method");
    if (method == request.MemberEnd() || !method->value.IsString()) return respond(id, failed(invalid_request, "method: a string"));
    const auto params = request.FindMember("params");
    const std::string_view name(method->value.GetString(), method->value.GetStringLength());
    // The directory's lock a request at a time (a writer gets in between a
    // batch's requests); not while a broadcast waits for the node.
    std::shared_lock<std::shared_mutex> reading;
    if (name != "blockchain.transaction.broadcast") reading = s.store_.lock();
    const Outcome o = call(name, params == request.MemberEnd() ? nullptr : &params->value);
    if (notification) return std::nullopt;
    return respond(id, o);
  }
};

Service::Service(BlockStore& store, const TxIndex* transactions, const AddressIndex& addresses, ServiceOptions options, NodeSide node)
    : store_(store),
      transactions_(transactions),
      addresses_(addresses),
      options_(std::move(options)),
      node_(std::move(node)),
      statuses_(std::make_shared<Statuses>()) {}

std::optional<ScriptHash> Service::parse_scripthash(std::string_view hex) {
  auto h = ScriptHash::from_hex(hex);
  if (!h) return std::nullopt;
  std::array<std::byte, 32> bytes;
  std::copy(h->bytes().rbegin(), h->bytes().rend(), bytes.begin());
  return ScriptHash::from_bytes(bytes);
}

std::string Service::scripthash_hex(const ScriptHash& script) {
  std::array<std::byte, 32> bytes;
  std::copy(script.bytes().rbegin(), script.bytes().rend(), bytes.begin());
  return to_hex(bytes);
}

std::string Service::answer(std::string_view line, Subscriptions& mine) const {
  std::uint64_t proof_leaves_left = options_.max_proof_leaves;
  bool answer_full = false;
  const Impl impl{*this, mine, proof_leaves_left, answer_full};
  rapidjson::Document doc;
  // (iterative: a line of ten thousand brackets costs no stack)
  doc.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  if (doc.HasParseError()) {
    return error_response("null", parse_error,
                          std::string("invalid JSON at byte ") + std::to_string(doc.GetErrorOffset()) + ": " +
                              rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsArray()) return impl.one(doc).value_or("");
  if (doc.Empty() || doc.Size() > options_.max_batch) {
    return error_response("null", invalid_request,
                          doc.Empty() ? "an empty batch" : "a batch of more than " + std::to_string(options_.max_batch) + " requests");
  }
  std::string out = "[";
  for (const auto& request : doc.GetArray()) {
    if (auto r = impl.one(request)) {
      if (out.size() > 1) out += ',';
      out += *r;
      answer_full = answer_full || out.size() > options_.max_answer;
    }
  }
  return out.size() == 1 ? std::string() : out + "]";
}

std::vector<std::string> Service::changes(const BlockHash& old_tip, Subscriptions& mine, const ScriptSet* touched) const {
  std::vector<std::string> lines;
  const auto reading = store_.lock();
  std::uint64_t proof_leaves_left = 0;
  bool answer_full = false;
  const Impl impl{*this, mine, proof_leaves_left, answer_full};
  if (mine.headers && store_.index().tip_height() != mine.header_sent) {
    mine.header_sent = store_.index().tip_height();
    lines.push_back("{\"jsonrpc\":\"2.0\",\"method\":\"blockchain.headers.subscribe\",\"params\":[" + impl.tip_json() + "]}");
  }
  // Where the old chain left the best one: a history with a block above
  // it, or whose last block is no longer its last, may have changed.
  const std::optional<Height> fork = impl.fork_below(old_tip);
  // (the tip where it was: only what the mempool touched can have changed)
  const bool same_tip = touched != nullptr && !store_.index().empty() && old_tip == store_.index().tip();
  for (auto& [script, followed] : mine.scripts) {
    if (same_tip && !touched->contains(script)) continue;
    std::optional<Height> top;
    const auto r = addresses_.each_block(script, true, *Height::checked(Height::max_value), [&](const AddressIndex::BlockRow& row) {
      top = row.height;
      return false;
    });
    if (!r || (top <= fork && top == followed.top && (touched == nullptr || !touched->contains(script)))) continue;
    const Impl::Status now = impl.status_now(script);
    if (now.failure || now.too_large) continue;
    followed.top = now.running.top;
    if (now.running.status == followed.status) continue;
    followed.status = now.running.status;
    lines.push_back("{\"jsonrpc\":\"2.0\",\"method\":\"blockchain.scripthash.subscribe\",\"params\":[" +
                    json_string(scripthash_hex(script)) + "," + (followed.status ? json_string(*followed.status) : "null") + "]}");
  }
  return lines;
}

}  // namespace blockwire::electrum
