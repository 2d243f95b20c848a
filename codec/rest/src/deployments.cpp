#include "deployments.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace blockwire::rest::detail {

namespace {

constexpr std::int64_t always_active = -1;  // BIP9Deployment::ALWAYS_ACTIVE
constexpr std::int64_t never_active = -2;   // BIP9Deployment::NEVER_ACTIVE
constexpr std::int64_t no_timeout = std::numeric_limits<std::int64_t>::max();

struct Bip9 {
  std::string_view name;
  int bit;
  std::int64_t start, timeout;
  std::int64_t min_activation_height;
  int threshold, period;
};

struct Params {
  std::array<std::int64_t, 5> buried;                              // bip34, bip66, bip65, csv, segwit
  std::array<Bip9, 2> bip9;                                        // testdummy, taproot
  std::vector<std::pair<std::string_view, bool>> flag_exceptions;  // block hash, and whether P2SH and WITNESS stay
};

// Core v30's chain parameters (kernel/chainparams.cpp).
const Params& params_of(network net) {
  static const Params main{
      {227931, 363725, 388381, 419328, 481824},
      {{{"testdummy", 28, never_active, no_timeout, 0, 1815, 2016}, {"taproot", 2, 1619222400, 1628640000, 709632, 1815, 2016}}},
      {{"00000000000002dc756eebf4f49723ed8d30cc28a5f108eb94b1ba88ac4f9c22", false},
       {"0000000000000000000f14c35b2d841e986ab5441de8c585d5ffe55ea1e395ad", true}}};
  static const Params test{
      {21111, 330776, 581885, 770112, 834624},
      {{{"testdummy", 28, never_active, no_timeout, 0, 1512, 2016}, {"taproot", 2, 1619222400, 1628640000, 0, 1512, 2016}}},
      {{"00000000dd30457c001f4095d208cc1296b0eed002427aa599874af7a432b105", false}}};
  static const Params test4{
      {1, 1, 1, 1, 1},
      {{{"testdummy", 28, never_active, no_timeout, 0, 1512, 2016}, {"taproot", 2, always_active, no_timeout, 0, 1512, 2016}}},
      {}};
  static const Params signet{
      {1, 1, 1, 1, 1},
      {{{"testdummy", 28, never_active, no_timeout, 0, 1815, 2016}, {"taproot", 2, always_active, no_timeout, 0, 1815, 2016}}},
      {}};
  static const Params regtest{
      {1, 1, 1, 1, 0}, {{{"testdummy", 28, 0, no_timeout, 0, 108, 144}, {"taproot", 2, always_active, no_timeout, 0, 108, 144}}}, {}};
  switch (net) {
    case network::mainnet: return main;
    case network::testnet3: return test;
    case network::testnet4: return test4;
    case network::signet: return signet;
    case network::regtest: break;
  }
  return regtest;
}

enum class State : unsigned char { defined, started, locked_in, active, failed };

std::string_view name(State s) {
  switch (s) {
    case State::defined: return "defined";
    case State::started: return "started";
    case State::locked_in: return "locked_in";
    case State::active: return "active";
    case State::failed: return "failed";
  }
  return "invalid";
}

// One deployment's BIP9 state machine along one block's ancestors.
// A linked block's height, for the BIP9 arithmetic (signed: -1 is "before
// the genesis block").
std::int64_t height_of(const IndexedBlock& b) noexcept { return b.height.to_wire(); }

class Machine {
 public:
  Machine(const BlockIndex& chain, const Bip9& d, const VersionOf& version_of) : chain_(chain), d_(d), version_of_(version_of) {}

  bool failed() const noexcept { return failed_; }

  // The ancestor of `b` at height `h` (nothing below 0).
  std::optional<IndexedBlock> ancestor(std::optional<IndexedBlock> b, std::int64_t h) const {
    if (!b || h < 0) return std::nullopt;
    while (b && height_of(*b) > h && !chain_.on_best_chain(*b)) b = chain_.parent(*b);
    if (!b) return std::nullopt;
    if (height_of(*b) == h) return b;
    return chain_.at_height(*Height::checked(h));
  }

  bool signals(const IndexedBlock& b) {
    const auto v = version_of_(b);
    if (!v) {
      failed_ = true;
      return false;
    }
    const auto version = static_cast<std::uint32_t>(*v);
    return (version & 0xe0000000u) == 0x20000000u && (version & (1u << d_.bit)) != 0;
  }

  // The state of the block after `prev` (nothing: the genesis block's).
  State state_after(std::optional<IndexedBlock> prev) {
    if (d_.start == always_active) return State::active;
    if (d_.start == never_active) return State::failed;
    // A period's blocks share the state of its first.
    if (prev) prev = ancestor(prev, height_of(*prev) - ((height_of(*prev) + 1) % d_.period));
    std::vector<IndexedBlock> to_compute;
    for (;;) {
      const std::int64_t key = prev ? height_of(*prev) : -1;
      if (cache_.contains(key)) break;
      if (!prev) {
        cache_[key] = State::defined;
        break;
      }
      if (mtp(*prev) < d_.start) {
        cache_[key] = State::defined;
        break;
      }
      to_compute.push_back(*prev);
      prev = ancestor(prev, height_of(*prev) - d_.period);
    }
    State state = cache_[prev ? height_of(*prev) : -1];
    while (!to_compute.empty()) {
      const IndexedBlock p = to_compute.back();
      to_compute.pop_back();
      State next = state;
      if (state == State::defined) {
        if (mtp(p) >= d_.start) next = State::started;
      } else if (state == State::started) {
        int count = 0;
        std::optional<IndexedBlock> at = p;
        for (int i = 0; i < d_.period && at; ++i, at = chain_.parent(*at)) count += signals(*at) ? 1 : 0;
        if (count >= d_.threshold) {
          next = State::locked_in;
        } else if (mtp(p) >= d_.timeout) {
          next = State::failed;
        }
      } else if (state == State::locked_in) {
        if (height_of(p) + 1 >= d_.min_activation_height) next = State::active;
      }
      cache_[height_of(p)] = state = next;
    }
    return state;
  }

  // The height from which the state after `prev` has held.
  std::int64_t since_after(std::optional<IndexedBlock> prev) {
    if (d_.start == always_active || d_.start == never_active) return 0;
    const State initial = state_after(prev);
    if (initial == State::defined || !prev) return 0;
    prev = ancestor(prev, height_of(*prev) - ((height_of(*prev) + 1) % d_.period));
    auto earlier = ancestor(prev, height_of(*prev) - d_.period);
    while (earlier && state_after(earlier) == initial) {
      prev = earlier;
      earlier = ancestor(prev, height_of(*prev) - d_.period);
    }
    return height_of(*prev) + 1;
  }

 private:
  std::uint32_t mtp(const IndexedBlock& b) const { return chain_.chain_info(b).median_time; }

  const BlockIndex& chain_;
  const Bip9& d_;
  const VersionOf& version_of_;
  std::map<std::int64_t, State> cache_;  // by the height of the period's last block (-1: before the genesis block)
  bool failed_ = false;
};

}  // namespace

bool write_deployment_info(tables::JsonWriter& out, const BlockIndex& chain, const IndexedBlock& block, network net,
                           const VersionOf& version_of) {
  const Params& p = params_of(net);
  const std::int64_t h = height_of(block);
  out.begin_object();
  out.member_string("hash", block.hash.to_hex());
  out.member_integer("height", h);
  // GetBlockScriptFlags: P2SH, WITNESS and TAPROOT but on the blocks that
  // broke them; each buried rule from its height.
  std::set<std::string_view> flags{"P2SH", "WITNESS", "TAPROOT"};
  for (const auto& [hash, keeps] : p.flag_exceptions) {
    if (block.hash.to_hex() == hash) flags = keeps ? std::set<std::string_view>{"P2SH", "WITNESS"} : std::set<std::string_view>{};
  }
  if (h >= p.buried[1]) flags.insert("DERSIG");
  if (h >= p.buried[2]) flags.insert("CHECKLOCKTIMEVERIFY");
  if (h >= p.buried[3]) flags.insert("CHECKSEQUENCEVERIFY");
  if (h >= p.buried[4]) flags.insert("NULLDUMMY");
  out.key("script_flags");
  out.begin_array();
  for (const std::string_view f : flags) out.string(f);
  out.end_array();

  out.key("deployments");
  out.begin_object();
  constexpr std::array<std::string_view, 5> buried_names{"bip34", "bip66", "bip65", "csv", "segwit"};
  for (std::size_t i = 0; i < buried_names.size(); ++i) {
    out.key(buried_names[i]);
    out.begin_object();
    out.member_string("type", "buried");
    out.member_boolean("active", h + 1 >= p.buried[i]);
    out.member_integer("height", p.buried[i]);
    out.end_object();
  }
  bool whole = true;
  for (const Bip9& d : p.bip9) {
    if (d.start == never_active) continue;  // not enabled on this network
    Machine m(chain, d, version_of);
    const auto parent = chain.parent(block);
    const State current = m.state_after(parent);
    const State next = m.state_after(block);
    const std::int64_t since = m.since_after(parent);
    std::optional<std::int64_t> active_since;
    if (current == State::active) {
      active_since = since;
    } else if (next == State::active) {
      active_since = h + 1;
    }
    const bool counting = current == State::started || current == State::locked_in;
    out.key(d.name);
    out.begin_object();
    out.member_string("type", "bip9");
    if (active_since) out.member_integer("height", *active_since);
    out.member_boolean("active", active_since && *active_since <= h + 1);
    out.key("bip9");
    out.begin_object();
    if (counting) out.member_integer("bit", d.bit);
    out.member_integer("start_time", d.start);
    out.member_integer("timeout", d.timeout);
    out.member_integer("min_activation_height", d.min_activation_height);
    out.member_string("status", name(current));
    out.member_integer("since", since);
    out.member_string("status_next", name(next));
    if (counting) {
      // This period's blocks so far, up to this one: which signal.
      const std::int64_t in_period = 1 + h % d.period;
      std::string signalling(static_cast<std::size_t>(in_period), '-');
      int count = 0;
      std::optional<IndexedBlock> at = block;
      for (std::int64_t i = in_period - 1; i >= 0 && at; --i, at = chain.parent(*at)) {
        if (m.signals(*at)) {
          ++count;
          signalling[static_cast<std::size_t>(i)] = '#';
        }
      }
      const int threshold = current == State::locked_in ? 0 : d.threshold;
      const bool possible = current == State::locked_in ? false : (d.period - d.threshold) >= (in_period - count);
      out.key("statistics");
      out.begin_object();
      out.member_integer("period", d.period);
      out.member_integer("elapsed", in_period);
      out.member_integer("count", count);
      if (threshold > 0 || possible) {
        out.member_integer("threshold", threshold);
        out.member_boolean("possible", possible);
      }
      out.end_object();
      out.member_string("signalling", signalling);
    }
    out.end_object();
    out.end_object();
    whole = whole && !m.failed();
  }
  out.end_object();
  out.end_object();
  return whole;
}

}  // namespace blockwire::rest::detail
