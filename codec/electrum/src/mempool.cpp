#include <blockwire/electrum/mempool.hpp>

#include <algorithm>
#include <cmath>

namespace blockwire::electrum {

result<Mempool::Added> Mempool::add(const Transaction& tx, const ChainCoins& chain) {
  const Txid txid = tx.txid();
  Added out;
  if (tx.is_coinbase()) {  // (only a block has one)
    out.what = outcome::missing_inputs;
    return out;
  }
  // The coins: from the kept transactions first (under the lock), the
  // chain's for the others (outside it: a lookup reads a block).
  Kept kept{tx, Amount{}, tx.vsize(), {}, {}, {}, {}};
  std::vector<std::optional<SpentOutput>> coins(tx.input_count());
  std::vector<bool> from_pool(tx.input_count(), false);
  {
    const std::lock_guard lock(mutex_);
    if (txs_.contains(txid)) {
      out.what = outcome::known;
      return out;
    }
    for (std::size_t i = 0; i < tx.input_count(); ++i) {
      const OutPoint& prevout = tx.input(i).prevout();
      const auto parent = txs_.find(prevout.txid);
      if (parent == txs_.end()) continue;
      if (prevout.index >= parent->second.tx.output_count()) {
        out.what = outcome::missing_inputs;
        return out;
      }
      coins[i] = SpentOutput{parent->second.outputs[prevout.index], parent->second.tx.output(prevout.index).value()};
      from_pool[i] = true;
    }
  }
  for (std::size_t i = 0; i < tx.input_count(); ++i) {
    if (from_pool[i]) continue;
    auto coin = chain(tx.input(i).prevout());
    if (!coin) return coin.error();
    if (!coin.value()) {
      out.what = outcome::missing_inputs;
      return out;
    }
    coins[i] = *coin.value();
  }
  for (const auto& c : coins) kept.coins.push_back(*c);
  std::int64_t in = 0, paid = 0;
  for (const SpentOutput& c : kept.coins) {
    in += c.value.to_sat();
    kept.scripts.insert(c.script);
  }
  for (std::size_t i = 0; i < tx.output_count(); ++i) {
    paid += tx.output(i).value().to_sat();
    kept.outputs.push_back(ScriptHash::of(tx.output(i).script_pubkey()));
    kept.scripts.insert(kept.outputs.back());
  }
  if (paid > in) {
    out.what = outcome::overspends;
    return out;
  }
  kept.fee = Amount::from_sat(in - paid);
  const std::lock_guard lock(mutex_);
  if (txs_.contains(txid)) {  // (added while the chain was read)
    out.what = outcome::known;
    return out;
  }
  if (bytes_ + tx.size() > max_bytes_) {  // (before any conflict leaves: a refused replacement keeps the first)
    out.what = outcome::full;
    return out;
  }
  // What it spends alike leaves: the node kept this one instead.
  for (std::size_t i = 0; i < tx.input_count(); ++i) {
    if (const auto other = spenders_.find(tx.input(i).prevout()); other != spenders_.end()) {
      remove(Txid(other->second), true, &out.removed, out.touched);
    }
  }
  // (a parent gone since its coin was read, or replaced just now: this one spends what is not there)
  for (std::size_t i = 0; i < tx.input_count(); ++i) {
    if (from_pool[i] && !txs_.contains(tx.input(i).prevout().txid)) {
      out.what = outcome::missing_inputs;
      return out;
    }
  }
  for (std::size_t i = 0; i < tx.input_count(); ++i) spenders_.insert_or_assign(tx.input(i).prevout(), txid);
  for (const ScriptHash& s : kept.scripts) {
    by_script_[s].insert(txid);
    out.touched.insert(s);
  }
  bytes_ += tx.size();
  kept.since = std::chrono::steady_clock::now();
  txs_.emplace(txid, std::move(kept));
  added_.notify_all();
  return out;
}

void Mempool::remove(const Txid& txid, bool descendants, std::vector<Txid>* removed, ScriptSet& touched) {
  std::vector<Txid> pending{txid};
  while (!pending.empty()) {
    const Txid id = pending.back();
    pending.pop_back();
    const auto at = txs_.find(id);
    if (at == txs_.end()) continue;
    const Kept& k = at->second;
    for (std::size_t i = 0; i < k.tx.input_count(); ++i) {
      const auto s = spenders_.find(k.tx.input(i).prevout());
      if (s != spenders_.end() && s->second == id) spenders_.erase(s);
    }
    for (std::uint32_t o = 0; descendants && o < k.tx.output_count(); ++o) {
      if (const auto child = spenders_.find(OutPoint{id, o}); child != spenders_.end()) pending.push_back(child->second);
    }
    for (const ScriptHash& s : k.scripts) {
      touched.insert(s);
      if (const auto b = by_script_.find(s); b != by_script_.end()) {
        b->second.erase(id);
        if (b->second.empty()) by_script_.erase(b);
      }
    }
    bytes_ -= k.tx.size();
    if (removed != nullptr) removed->push_back(id);
    txs_.erase(at);
  }
}

ScriptSet Mempool::confirmed(const Block& block) {
  ScriptSet touched;
  const std::lock_guard lock(mutex_);
  for (const Transaction& tx : block.transactions) {
    if (txs_.empty()) break;
    remove(tx.txid(), false, nullptr, touched);  // (its children stay: their coins are confirmed now)
    if (tx.is_coinbase()) continue;
    for (std::size_t i = 0; i < tx.input_count(); ++i) {
      if (const auto other = spenders_.find(tx.input(i).prevout()); other != spenders_.end())
        remove(Txid(other->second), true, nullptr, touched);
    }
  }
  return touched;
}

ScriptSet Mempool::expire(std::chrono::steady_clock::time_point before) {
  ScriptSet touched;
  const std::lock_guard lock(mutex_);
  std::vector<Txid> old;
  for (const auto& [id, k] : txs_) {
    if (k.since < before) old.push_back(id);
  }
  for (const Txid& id : old) remove(id, true, nullptr, touched);
  return touched;
}

ScriptSet Mempool::clear() {
  const std::lock_guard lock(mutex_);
  ScriptSet touched;
  for (const auto& [script, ids] : by_script_) touched.insert(script);
  txs_.clear();
  spenders_.clear();
  by_script_.clear();
  bytes_ = 0;
  return touched;
}

bool Mempool::has_unconfirmed_coin(const Kept& k) const {
  for (std::size_t i = 0; i < k.tx.input_count(); ++i) {
    if (txs_.contains(k.tx.input(i).prevout().txid)) return true;
  }
  return false;
}

std::vector<Mempool::Entry> Mempool::history(const ScriptHash& script) const {
  std::vector<Entry> out;
  const std::lock_guard lock(mutex_);
  const auto ids = by_script_.find(script);
  if (ids == by_script_.end()) return out;
  for (const Txid& id : ids->second) {
    const Kept& k = txs_.at(id);
    out.push_back({id, has_unconfirmed_coin(k) ? -1 : 0, k.fee});
  }
  // (txid order within each height as the protocol shows txids: their bytes reversed)
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    if (a.height != b.height) return a.height > b.height;
    const auto x = a.txid.bytes(), y = b.txid.bytes();
    return std::lexicographical_compare(x.rbegin(), x.rend(), y.rbegin(), y.rend());
  });
  return out;
}

std::int64_t Mempool::balance(const ScriptHash& script) const {
  std::int64_t sum = 0;
  const std::lock_guard lock(mutex_);
  const auto ids = by_script_.find(script);
  if (ids == by_script_.end()) return 0;
  for (const Txid& id : ids->second) {
    const Kept& k = txs_.at(id);
    for (const SpentOutput& c : k.coins) {
      if (c.script == script) sum -= c.value.to_sat();
    }
    for (std::size_t i = 0; i < k.tx.output_count(); ++i) {
      if (k.outputs[i] == script) sum += k.tx.output(i).value().to_sat();
    }
  }
  return sum;
}

std::vector<Mempool::Output> Mempool::unspent(const ScriptHash& script) const {
  std::vector<Output> out;
  const std::lock_guard lock(mutex_);
  const auto ids = by_script_.find(script);
  if (ids == by_script_.end()) return out;
  for (const Txid& id : ids->second) {
    const Kept& k = txs_.at(id);
    for (std::uint32_t i = 0; i < k.tx.output_count(); ++i) {
      const OutPoint at{id, i};
      if (k.outputs[i] == script && !spenders_.contains(at)) out.push_back({at, k.tx.output(i).value()});
    }
  }
  return out;
}

bool Mempool::spends(const OutPoint& outpoint) const {
  const std::lock_guard lock(mutex_);
  return spenders_.contains(outpoint);
}

std::optional<Transaction> Mempool::transaction(const Txid& txid) const {
  const std::lock_guard lock(mutex_);
  const auto at = txs_.find(txid);
  if (at == txs_.end()) return std::nullopt;
  return at->second.tx;
}

bool Mempool::contains(const Txid& txid) const {
  const std::lock_guard lock(mutex_);
  return txs_.contains(txid);
}

bool Mempool::wait_for(const Txid& txid, std::chrono::steady_clock::time_point until) const {
  std::unique_lock lock(mutex_);
  return added_.wait_until(lock, until, [&] { return txs_.contains(txid); });
}

namespace {

struct Rated {
  double rate;  // sat/vB
  std::uint64_t vsize;
};

}  // namespace

std::vector<std::pair<std::uint64_t, std::uint64_t>> Mempool::fee_histogram() const {
  // vbytes by whole fee rate, the highest first
  std::map<std::uint64_t, std::uint64_t, std::greater<>> by_rate;
  {
    const std::lock_guard lock(mutex_);
    for (const auto& [id, k] : txs_) by_rate[static_cast<std::uint64_t>(k.fee.to_sat()) / std::max<std::uint64_t>(k.vsize, 1)] += k.vsize;
  }
  // Bins of 30,000 vbytes and more, each 10% larger than the last; a rate
  // holding more than two bins' worth closes the bin before it first, so
  // that it stands alone. What is left under a bin at the end is not shown.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> bins;
  double bin_size = 30'000;
  std::uint64_t in_bin = 0;
  std::optional<std::uint64_t> previous;
  for (const auto& [rate, vbytes] : by_rate) {
    if (static_cast<double>(vbytes) > 2 * bin_size && previous && in_bin > 0) {
      bins.emplace_back(*previous, in_bin);
      in_bin = 0;
      bin_size *= 1.1;
    }
    in_bin += vbytes;
    if (static_cast<double>(in_bin) > bin_size) {
      bins.emplace_back(rate, in_bin);
      in_bin = 0;
      bin_size *= 1.1;
    }
    previous = rate;
  }
  return bins;
}

std::optional<double> Mempool::fee_rate_for(std::uint64_t blocks) const {
  std::vector<Rated> all;
  {
    const std::lock_guard lock(mutex_);
    for (const auto& [id, k] : txs_) all.push_back({static_cast<double>(k.fee.to_sat()) / static_cast<double>(k.vsize), k.vsize});
  }
  std::sort(all.begin(), all.end(), [](const Rated& a, const Rated& b) { return a.rate > b.rate; });
  const std::uint64_t room = std::min<std::uint64_t>(blocks, 10'000) * 1'000'000;
  std::uint64_t filled = 0;
  for (const Rated& r : all) {
    filled += r.vsize;
    if (filled > room) return r.rate;
  }
  return std::nullopt;
}

std::size_t Mempool::size() const {
  const std::lock_guard lock(mutex_);
  return txs_.size();
}

std::uint64_t Mempool::bytes() const {
  const std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace blockwire::electrum
