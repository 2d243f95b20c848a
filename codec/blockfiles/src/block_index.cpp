// The index in memory: blocks by hash, linked into a tree by their parents,
// the best chain (the most work) and its heights, chain work, locators.
// Reading the blk files into it is block_index_files.cpp's.
#include "batch_record.hpp"

#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/block_file_reader.hpp>
#include <blockwire/blockfiles/block_index.hpp>
#include <blockwire/codec/check.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/xor.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <unistd.h>
#include <map>
#include <set>
#include <tuple>

namespace blockwire {

std::string IndexProblem::message() const {
  std::string text = block_file_name(file) + ":" + std::to_string(offset) + ": ";
  switch (what) {
    case kind::damaged_record: return text + reason + ", " + std::to_string(bytes) + " bytes skipped";
    case kind::bad_proof_of_work:
      return text + "the header's proof of work fails (its hash is above its target, or the target is easier than the network allows)";
    case kind::unlinked: return text + "the block links to no block of the chain (its parent is missing or was left out)";
    case kind::unfinished_batch:
      return text + std::to_string(bytes) +
             " records of an append that did not finish (its writer died) left out; the next fetch or pack removes them";
    case kind::unreadable_file: return block_file_name(file) + ": cannot be read: " + reason;
    case kind::torn_record:
      return text + "the file ends inside a record (" + std::to_string(bytes) +
             " bytes): a write interrupted by a crash; the next fetch or pack cuts it off";
  }
  return text;
}

namespace {

constexpr std::uint32_t duplicate = ~std::uint32_t{0} - 1;  // (as a parent, in a build: the block is there already)
constexpr double max_load = 0.85;
__extension__ using wide = unsigned __int128;  // (GCC and Clang)

std::uint64_t random_seed() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device();
}

// The work of each bits value, the last one kept (a chain's bits change
// once in 2016 blocks on mainnet).
class WorkOfBits {
 public:
  const Work& operator()(std::uint32_t bits) {
    if (bits != bits_ || !valid_) {
      work_ = Work::of_bits(bits).value_or(Work{});  // bits that are no target: no work (Core refuses the header)
      bits_ = bits;
      valid_ = true;
    }
    return work_;
  }

 private:
  std::uint32_t bits_ = 0;
  bool valid_ = false;
  Work work_;
};

// What is under a block, for walk_heights.
struct Under {
  enum kind_t : unsigned char { genesis, block, height, nothing } kind;
  std::size_t block_index = 0;  // (block) another of the blocks walked
  std::int64_t known = 0;       // (height) the height of a block linked already
};

// The heights of blocks that come in any order: from each, up through the
// ones not placed yet to a genesis block, a height known, or nothing (the
// whole path linked to nothing: -1). `unknown` marks a height not made
// yet (a negative value other than -1 and -4); `under(i)` says what is
// under block i; `placed(i)` is called for each block given a height >= 0,
// parents first.
template <class T, class UnderOf, class Placed>
void walk_heights(std::vector<T>& height, T unknown, const UnderOf& under, const Placed& placed) {
  constexpr T on_path = -4;
  std::vector<std::size_t> path;
  for (std::size_t i = 0; i < height.size(); ++i) {
    std::size_t at = i;
    std::int64_t below = -1;  // the height under the path's top
    bool linked = true;
    for (;;) {
      if (height[at] != unknown) {
        below = height[at];
        linked = below >= 0;
        break;
      }
      path.push_back(at);
      height[at] = on_path;  // met again: a cycle of parents (a damaged kept index), linked to nothing
      const Under u = under(at);
      if (u.kind == Under::genesis) break;
      if (u.kind == Under::nothing || (u.kind == Under::height && u.known < 0)) {
        linked = false;
        break;
      }
      if (u.kind == Under::height) {
        below = u.known;
        break;
      }
      at = u.block_index;
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      height[*it] = static_cast<T>(linked ? ++below : -1);
      if (linked) placed(*it);
    }
    path.clear();
  }
}

}  // namespace

BlockIndex::BlockIndex(std::string dir, network net, const XorKey& key)
    : dir_(std::move(dir)), slot_seed_(random_seed()), key_(key), net_(net) {}

std::uint32_t BlockIndex::ChainRuns::operator[](std::size_t height) const noexcept {
  const auto it = std::upper_bound(runs_.begin(), runs_.end(), height, [](std::size_t h, const Run& r) { return h < r.height; });
  const Run& r = *(it - 1);
  return r.id + static_cast<std::uint32_t>(height - r.height);
}

void BlockIndex::ChainRuns::push_back(std::uint32_t id) {
  if (!runs_.empty() && runs_.back().id + runs_.back().length == id) {
    ++runs_.back().length;
  } else {
    runs_.push_back({static_cast<std::uint32_t>(size_), id, 1});
  }
  ++size_;
}

void BlockIndex::ChainRuns::truncate(std::size_t size) {
  while (!runs_.empty() && runs_.back().height >= size) runs_.pop_back();
  if (!runs_.empty())
    runs_.back().length = std::min<std::uint32_t>(runs_.back().length, static_cast<std::uint32_t>(size - runs_.back().height));
  size_ = std::min(size_, size);
}

std::int64_t BlockIndex::ChainRuns::height_of(std::uint32_t id) const noexcept {
  for (auto it = runs_.rbegin(); it != runs_.rend(); ++it) {
    if (id >= it->id && id - it->id < it->length) return std::int64_t{it->height} + (id - it->id);
  }
  return -1;
}

void BlockIndex::add_record_problem(IndexProblem p) {
  ++record_problem_count_;
  if (record_problems_.size() < max_listed) record_problems_.push_back(std::move(p));
}

std::size_t BlockIndex::slot_of(const BlockHash& hash) const noexcept {
  std::uint64_t x = 0;
  std::memcpy(&x, hash.bytes().data(), 8);
  x = (x ^ slot_seed_) * 0x9e3779b97f4a7c15ULL;
  x ^= x >> 29;
  return static_cast<std::size_t>((static_cast<wide>(x) * slots_.size()) >> 64);
}

std::optional<std::uint32_t> BlockIndex::find_id(const BlockHash& hash) const noexcept {
  if (slots_.empty()) return std::nullopt;
  for (std::size_t at = slot_of(hash);; at = at + 1 == slots_.size() ? 0 : at + 1) {
    const std::uint32_t id = slots_[at];
    if (id == no_id) return std::nullopt;
    if (entries_[id].hash == hash) return id;
  }
}

void BlockIndex::index_slots() {
  slots_.assign(std::max<std::size_t>(64, static_cast<std::size_t>(static_cast<double>(entries_.size()) * 1.25 / max_load)), no_id);
  for (std::uint32_t id = 0; id < entries_.size(); ++id) {
    std::size_t at = slot_of(entries_[id].hash);
    while (slots_[at] != no_id) at = at + 1 == slots_.size() ? 0 : at + 1;
    slots_[at] = id;
  }
}

void BlockIndex::add_slot(std::uint32_t id) {
  if (static_cast<double>(entries_.size()) > static_cast<double>(slots_.size()) * max_load) return index_slots();
  std::size_t at = slot_of(entries_[id].hash);
  while (slots_[at] != no_id) at = at + 1 == slots_.size() ? 0 : at + 1;
  slots_[at] = id;
}

void BlockIndex::push(const BlockHash& hash, const BlockHash& prev, BlockPosition at, std::uint32_t time, std::uint32_t bits, bool failed,
                      std::optional<std::uint32_t> undo_offset, bool may_be_tip, bool pruned) {
  if (!bulk_ && find_id(hash)) return;  // a duplicate: the first stays (in a build: found when linked)
  const auto id = static_cast<std::uint32_t>(entries_.size());
  Entry e;
  e.hash = hash;
  e.file_word = (at.file & ((1u << Entry::file_bits) - 1)) | static_cast<std::uint32_t>((at.offset >> 32) & 0xff) << Entry::file_bits |
                (failed ? Entry::failed : 0) | (undo_offset ? Entry::undo_known : 0) | (may_be_tip ? 0 : Entry::not_tip) |
                (pruned ? Entry::no_data : 0);
  if (pruned) ++pruned_entries_;
  if (!pruned_headers_.empty()) pruned_headers_.emplace_back();  // (beside entries_, by id)
  e.offset = static_cast<std::uint32_t>(at.offset);
  e.undo_offset = undo_offset.value_or(0);
  e.time = time;
  e.bits = bits;
  entries_.push_back(e);
  if (bulk_) {
    bulk_prev_.push_back(prev);
    return;
  }
  add_slot(id);
  fresh_.push_back({id, prev});
}

IndexedBlock BlockIndex::block(std::size_t id) const {
  const Entry& e = entries_[id];
  IndexedBlock b;
  b.hash = e.hash;
  b.file = e.file_word & ((1u << Entry::file_bits) - 1);
  b.offset = (std::uint64_t{(e.file_word >> Entry::file_bits) & 0xff} << 32) | e.offset;
  if (const auto h = Height::checked(height_of_id(static_cast<std::uint32_t>(id)))) {
    b.linked = true;
    b.height = *h;
  }
  b.time = e.time;
  b.bits = e.bits;
  b.failed = (e.file_word & Entry::failed) != 0;
  b.pruned = (e.file_word & Entry::no_data) != 0;
  if ((e.file_word & Entry::undo_known) != 0) b.undo_offset = e.undo_offset;
  b.id = id;
  return b;
}

void BlockIndex::set_undo_offset(const BlockHash& hash, std::uint32_t undo_offset) {
  const auto id = find_id(hash);
  if (!id) return;
  entries_[*id].undo_offset = undo_offset;
  entries_[*id].file_word |= Entry::undo_known;
}

std::optional<IndexedBlock> BlockIndex::find(const BlockHash& hash) const {
  const auto id = find_id(hash);
  if (!id) return std::nullopt;
  return block(*id);
}

std::int64_t BlockIndex::height_of_id(std::uint32_t id) const noexcept {
  if (const std::int64_t h = best_.height_of(id); h >= 0) return h;
  const auto side = side_.find(id);
  return side == side_.end() ? -1 : side->second.height;
}

std::optional<std::uint32_t> BlockIndex::parent_of(std::uint32_t id) const noexcept {
  if (const std::int64_t h = best_.height_of(id); h >= 0) {
    if (h == 0) return std::nullopt;
    return best_[static_cast<std::size_t>(h) - 1];
  }
  const auto side = side_.find(id);
  if (side == side_.end() || side->second.parent == no_id) return std::nullopt;
  return side->second.parent;
}

std::optional<IndexedBlock> BlockIndex::parent(const IndexedBlock& b) const {
  const auto p = parent_of(static_cast<std::uint32_t>(b.id));
  if (!p) return std::nullopt;
  return block(*p);
}

bool BlockIndex::on_best_chain(const IndexedBlock& b) const noexcept { return best_.height_of(static_cast<std::uint32_t>(b.id)) >= 0; }

Work BlockIndex::chain_work(std::uint32_t id) const {
  // Off the best chain: down to where the branch meets it.
  Work side_work;
  WorkOfBits work;
  std::int64_t h = best_.height_of(id);
  while (h < 0) {
    const auto side = side_.find(id);
    if (side == side_.end()) return Work{};  // linked to nothing
    side_work += work(entries_[id].bits);
    if (side->second.parent == no_id) return side_work;
    id = side->second.parent;
    h = best_.height_of(id);
  }
  const auto height = static_cast<std::size_t>(h);
  Work w = work_marks_[height / 256];
  for (std::size_t at = height / 256 * 256 + 1; at <= height; ++at) w += work(entries_[best_[at]].bits);
  return w + side_work;
}

void BlockIndex::mark_work_from(std::size_t height) {
  // Marks at heights below `height` stay; the rest are made again.
  const std::size_t keep = std::min(work_marks_.size(), (height + 255) / 256);
  work_marks_.resize(keep);
  if (keep * 256 >= best_.size()) return;
  Work w = keep == 0 ? Work{} : work_marks_.back();
  WorkOfBits work;
  for (std::size_t at = keep == 0 ? 0 : (keep - 1) * 256 + 1; at < best_.size(); ++at) {
    w += work(entries_[best_[at]].bits);
    if (at % 256 == 0) work_marks_.push_back(w);
  }
}

void BlockIndex::move_tip(std::uint32_t tip) {
  // Down the new branch to where it meets the best chain.
  std::vector<std::uint32_t> path;
  std::optional<std::uint32_t> fork;
  for (std::uint32_t at = tip;;) {
    if (best_.height_of(at) >= 0) {
      fork = at;
      break;
    }
    path.push_back(at);
    const auto side = side_.find(at);
    if (side == side_.end() || side->second.parent == no_id) break;  // a branch from another genesis block
    at = side->second.parent;
  }
  const std::size_t keep = fork ? static_cast<std::size_t>(best_.height_of(*fork)) + 1 : 0;
  for (std::size_t h = keep; h < best_.size(); ++h) side_[best_[h]] = {static_cast<std::int64_t>(h), h == 0 ? no_id : best_[h - 1]};
  best_.truncate(keep);
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    side_.erase(*it);
    best_.push_back(*it);
  }
  mark_work_from(keep);
}

void BlockIndex::link_bulk(const std::optional<BlockHash>& tip) {
  // Every block pushed at once: the table made once (the second of a hash
  // is a duplicate, dropped), then each parent found by hash.
  const std::size_t n = entries_.size();
  std::vector<std::uint32_t> parent(n, no_id);
  slots_.assign(std::max<std::size_t>(64, static_cast<std::size_t>(static_cast<double>(n) * 1.25 / max_load)), no_id);
  // Hashes land anywhere in the table (a cache miss each): the slots a few
  // blocks ahead are asked for early, so that the misses overlap.
  constexpr std::uint32_t ahead = 16;
  for (std::uint32_t id = 0; id < n; ++id) {
    if (id + ahead < n) __builtin_prefetch(&slots_[slot_of(entries_[id + ahead].hash)], 1);
    std::size_t at = slot_of(entries_[id].hash);
    for (;; at = at + 1 == slots_.size() ? 0 : at + 1) {
      if (slots_[at] == no_id) {
        slots_[at] = id;
        break;
      }
      if (entries_[slots_[at]].hash == entries_[id].hash) {
        // (an index's later entry of a block is newer: it replaces the
        // earlier; a blk file's later record is a copy: dropped)
        if (bulk_newest_wins_) {
          parent[slots_[at]] = duplicate;
          slots_[at] = id;
        } else {
          parent[id] = duplicate;
        }
        break;
      }
    }
  }
  // A deletion that is still the newest of its hash: dropped too (and the
  // table made again below, without the hole it leaves).
  bool erased = false;
  for (const std::uint32_t id : bulk_erased_) {
    if (parent[id] != duplicate) {
      parent[id] = duplicate;
      erased = true;
    }
  }
  bulk_erased_ = {};
  std::vector<bool> genesis(n, false);
  for (std::uint32_t id = 0; id < n; ++id) {
    // (two misses a lookup, its slot then its entry: each asked for early)
    if (id + ahead < n) __builtin_prefetch(&slots_[slot_of(bulk_prev_[id + ahead])]);
    if (id + ahead / 2 < n) {
      if (const std::uint32_t there = slots_[slot_of(bulk_prev_[id + ahead / 2])]; there != no_id) __builtin_prefetch(&entries_[there]);
    }
    if (parent[id] == duplicate) continue;
    genesis[id] = bulk_prev_[id].is_all_zeros();
    if (genesis[id]) continue;
    const auto p = find_id(bulk_prev_[id]);
    parent[id] = p && parent[*p] != duplicate ? *p : no_id;  // (a deleted entry's slot: no parent)
  }
  // The parents' hashes go (32 bytes a block) before the heights are
  // walked: only those of blocks whose parent is not there are kept (the
  // others' are their parents' own hashes).
  std::unordered_map<std::uint32_t, BlockHash> unfound;
  for (std::uint32_t id = 0; id < n; ++id) {
    if (parent[id] == no_id && !genesis[id]) unfound.emplace(id, bulk_prev_[id]);
  }
  std::vector<BlockHash>().swap(bulk_prev_);
  bulk_ = false;
  bulk_newest_wins_ = false;
  link_all(std::move(parent), std::move(genesis), tip, [&](std::uint32_t id) {
    const auto it = unfound.find(id);
    return it == unfound.end() ? BlockHash::all_zeros() : it->second;
  });
  if (erased) index_slots();
}

bool BlockIndex::link_all(std::vector<std::uint32_t> parent, std::vector<bool> genesis, const std::optional<BlockHash>& tip,
                          const std::function<BlockHash(std::uint32_t)>& prev_of) {
  // (`prev_of`: the parent's hash of a block whose parent is not among them)
  // Heights by walking up (blocks come in any order), the tip, then the
  // best chain laid out by height first (ids 0..height: one run), the rest
  // after, duplicates dropped. The slots are the entries' (link_bulk).
  const std::size_t n = entries_.size();
  constexpr std::int32_t unknown = -2;
  std::vector<std::int32_t> height(n, unknown);  // -1: linked to nothing
  for (std::uint32_t i = 0; i < n; ++i) {
    if (parent[i] == duplicate) height[i] = -3;  // (not walked)
  }
  walk_heights(
      height, unknown,
      [&](std::size_t i) -> Under {
        if (genesis[i]) return {Under::genesis};
        if (parent[i] == no_id) return {Under::nothing};
        return {Under::block, parent[i]};
      },
      [&](std::size_t i) {  // a failed block's descendants are failed
        if (!genesis[i] && (entries_[parent[i]].file_word & Entry::failed) != 0) entries_[i].file_word |= Entry::failed;
      });
  for (std::uint32_t i = 0; i < n; ++i) {
    if (height[i] == -1) orphans_.push_back({i, parent[i] != no_id && !genesis[i] ? entries_[parent[i]].hash : prev_of(i)});
  }
  // The tip: the node's, else the most work (among equals the first found:
  // Core keeps the block it received first), never a failed block.
  std::uint32_t best = no_id;
  if (tip) {
    const auto t = find_id(*tip);
    if (t && height[*t] >= 0 && (entries_[*t].file_word & (Entry::failed | Entry::no_data)) == 0) best = *t;
  }
  if (best == no_id) {
    // Parents before children: by height (a counting sort).
    std::int32_t top = -1;
    for (std::uint32_t i = 0; i < n; ++i) top = std::max(top, height[i]);
    std::vector<std::uint32_t> start(static_cast<std::size_t>(top) + 2, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (height[i] >= 0) ++start[static_cast<std::size_t>(height[i]) + 1];
    }
    for (std::size_t h = 1; h < start.size(); ++h) start[h] += start[h - 1];
    std::vector<std::uint32_t> order(start.back());
    for (std::uint32_t i = 0; i < n; ++i) {
      if (height[i] >= 0) order[start[static_cast<std::size_t>(height[i])]++] = i;
    }
    // In 128 bits (16 bytes a block, not 32): a chain's work stays far
    // below 2^128 (mainnet's is about 2^95); past it, it saturates.
    std::vector<wide> work(n);
    WorkOfBits work_of;
    std::uint32_t last_bits = 0;
    wide last_work = 0;
    wide best_work = 0;
    for (const std::uint32_t i : order) {
      if (entries_[i].bits != last_bits || last_work == 0) {
        last_bits = entries_[i].bits;
        const Work& w = work_of(last_bits);
        const auto& limbs = w.limbs();
        last_work = limbs[2] != 0 || limbs[3] != 0 ? ~wide{0} : (wide{limbs[1]} << 64 | limbs[0]);
      }
      const wide below = height[i] == 0 ? 0 : work[parent[i]];
      work[i] = below + last_work < below ? ~wide{0} : below + last_work;
      if ((entries_[i].file_word & (Entry::failed | Entry::not_tip | Entry::no_data)) != 0) continue;
      if (best == no_id || work[i] > best_work || (work[i] == best_work && i < best)) {
        best = i;
        best_work = work[i];
      }
    }
  }
  // The new order: the best chain by height, then every other block as it
  // was, then the duplicates (dropped).
  std::vector<std::uint32_t> new_id(n, no_id);
  const std::uint32_t chain_length = best == no_id ? 0 : static_cast<std::uint32_t>(height[best]) + 1;
  for (std::uint32_t at = best, h = chain_length; h != 0; at = parent[at]) new_id[at] = --h;
  std::uint32_t next = chain_length;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (new_id[i] == no_id && parent[i] != duplicate) new_id[i] = next++;
  }
  const std::uint32_t kept = next;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (new_id[i] == no_id) new_id[i] = next++;
  }
  bool moved = false;
  for (std::uint32_t i = 0; i < n && !moved; ++i) moved = new_id[i] != i;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (new_id[i] >= chain_length && new_id[i] < kept && height[i] >= 0)
      side_[new_id[i]] = {height[i], genesis[i] ? no_id : new_id[parent[i]]};
  }
  for (Pending& o : orphans_) o.id = new_id[o.id];
  std::sort(orphans_.begin(), orphans_.end(), [](const Pending& a, const Pending& b) { return a.id < b.id; });
  parent = {};
  height = {};
  // The slots follow the ids; the entries moved into place, cycle by cycle.
  for (std::uint32_t& slot : slots_) {
    if (slot != no_id) slot = new_id[slot] < kept ? new_id[slot] : no_id;
  }
  const bool headers = !pruned_headers_.empty();
  if (headers) pruned_headers_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    while (new_id[i] != i) {
      const std::uint32_t j = new_id[i];
      std::swap(entries_[i], entries_[j]);
      if (headers) std::swap(pruned_headers_[i], pruned_headers_[j]);
      std::swap(new_id[i], new_id[j]);
    }
  }
  new_id = {};
  entries_.resize(kept);
  if (headers) pruned_headers_.resize(kept);
  best_ = ChainRuns();
  for (std::uint32_t h = 0; h < chain_length; ++h) best_.push_back(h);
  work_marks_.clear();
  mark_work_from(0);
  return moved;
}

void BlockIndex::link_fresh() {
  // The blocks to place: the new ones, and those that linked to nothing so
  // far (their parent may have come). A block's parent is linked already,
  // or is one of them: placed first (blocks come in any order).
  std::vector<Pending> candidates = std::move(orphans_);
  orphans_.clear();
  candidates.insert(candidates.end(), fresh_.begin(), fresh_.end());
  fresh_.clear();
  std::unordered_map<std::uint32_t, std::size_t> candidate;  // id -> into candidates
  for (std::size_t i = 0; i < candidates.size(); ++i) candidate.emplace(candidates[i].id, i);
  constexpr std::int64_t unknown = -2;
  std::vector<std::int64_t> height(candidates.size(), unknown);  // -1: linked to nothing
  std::vector<std::uint32_t> parent(candidates.size(), no_id);
  walk_heights(
      height, unknown,
      [&](std::size_t i) -> Under {
        if (candidates[i].prev.is_all_zeros()) return {Under::genesis};
        const auto p = find_id(candidates[i].prev);
        if (!p) return {Under::nothing};
        parent[i] = *p;
        const auto waiting = candidate.find(*p);
        if (waiting != candidate.end()) return {Under::block, waiting->second};
        return {Under::height, 0, height_of_id(*p)};
      },
      [&](std::size_t i) {  // a failed block's descendants are failed
        if (parent[i] != no_id && (entries_[parent[i]].file_word & Entry::failed) != 0)
          entries_[candidates[i].id].file_word |= Entry::failed;
      });
  // What stays linked to nothing; the rest off the best chain for now,
  // parents first, failed where a parent is.
  std::vector<std::size_t> linked;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (height[i] < 0) {
      orphans_.push_back(candidates[i]);
      continue;
    }
    side_[candidates[i].id] = {height[i], parent[i]};
    linked.push_back(i);
  }
  std::sort(orphans_.begin(), orphans_.end(), [](const Pending& a, const Pending& b) { return a.id < b.id; });
  std::sort(linked.begin(), linked.end(), [&](std::size_t a, std::size_t b) { return height[a] < height[b]; });
  // The tip: the most work; among equals, the one there first. Each one's
  // work from its parent's (parents first: one step each).
  std::uint32_t tip = best_.size() == 0 ? no_id : best_[best_.size() - 1];
  Work tip_work = tip == no_id ? Work{} : chain_work(tip);
  std::vector<Work> work(candidates.size());
  WorkOfBits work_of;
  for (const std::size_t i : linked) {
    const std::uint32_t id = candidates[i].id;
    const std::uint32_t p = parent[i];
    const auto waiting = p == no_id ? candidate.end() : candidate.find(p);
    const Work below = p == no_id ? Work{} : waiting != candidate.end() ? work[waiting->second] : chain_work(p);
    work[i] = below + work_of(entries_[id].bits);
    if ((entries_[id].file_word & (Entry::failed | Entry::no_data)) != 0) continue;
    const Work& w = work[i];
    if (tip == no_id || w > tip_work || (w == tip_work && id < tip)) {
      tip = id;
      tip_work = w;
    }
  }
  if (tip != no_id && (best_.size() == 0 || tip != best_[best_.size() - 1])) move_tip(tip);
}

void BlockIndex::gather_problems() {
  // What reading found, then the blocks linked to nothing.
  problems_ = record_problems_;
  problem_count_ = record_problem_count_;
  for (const Pending& o : orphans_) {
    ++problem_count_;
    if (problems_.size() < max_listed) {
      const IndexedBlock b = block(o.id);
      problems_.push_back({IndexProblem::kind::unlinked, b.file, b.offset, 0, {}});
    }
  }
  std::sort(problems_.begin(), problems_.end(),
            [](const IndexProblem& a, const IndexProblem& b) { return std::tie(a.file, a.offset) < std::tie(b.file, b.offset); });
}

void BlockIndex::add(const BlockHeader& header, const BlockHash& hash, BlockPosition at, std::optional<std::uint32_t> undo_offset) {
  if (find_id(hash)) return;
  push(hash, header.prev_block, at, header.time, header.bits, false, undo_offset);
  // The usual case, in constant time: on top of the tip, and no block
  // waits for a parent.
  if (best_.size() != 0 && orphans_.empty() && header.prev_block == tip()) {
    best_.push_back(fresh_.back().id);
    fresh_.clear();
    mark_work_from(best_.size() - 1);
    return;
  }
  link_fresh();
  gather_problems();
}

std::optional<Height> BlockIndex::height_of(const BlockHash& hash) const {
  const auto id = find_id(hash);
  return id ? Height::checked(best_.height_of(*id)) : std::nullopt;
}

std::vector<BlockHash> BlockIndex::locator() const {
  std::vector<BlockHash> hashes;
  if (empty()) return hashes;
  std::int64_t step = 1;
  for (auto h = static_cast<std::int64_t>(best_.size()) - 1; h > 0; h -= step) {
    hashes.push_back(entries_[best_[static_cast<std::size_t>(h)]].hash);
    if (hashes.size() > 10) step *= 2;  // as Core: eleven one apart, then doubling
  }
  hashes.push_back(entries_[best_[0]].hash);
  return hashes;
}

ChainInfo BlockIndex::chain_info(const IndexedBlock& b) const {
  ChainInfo info{b.linked_height(), -1, b.time, chain_work(static_cast<std::uint32_t>(b.id)), std::nullopt};
  if (on_best_chain(b)) {
    info.confirmations = static_cast<std::int64_t>(best_.size() - b.height.to_wire());
    if (chain_size().contains(b.height.next())) info.next = at_height(b.height.next()).hash;
  }
  // Core's GetMedianTimePast: the middle of the sorted times of the block
  // and up to ten ancestors.
  std::vector<std::uint32_t> times;
  for (std::optional<std::uint32_t> at = static_cast<std::uint32_t>(b.id); at && times.size() < 11; at = parent_of(*at))
    times.push_back(entries_[*at].time);
  std::sort(times.begin(), times.end());
  info.median_time = times[times.size() / 2];
  return info;
}

Height BlockIndex::prune_height() const noexcept {
  if (pruned_entries_ == 0) return Height::genesis();
  for (std::size_t h = best_.size(); h-- > 0;) {
    if ((entries_[best_[h]].file_word & Entry::no_data) != 0) return *Height::checked(h + 1);
  }
  return Height::genesis();
}

std::optional<std::uint32_t> BlockIndex::pruned_tx_count(const IndexedBlock& b) const {
  if (!b.pruned || b.id >= pruned_headers_.size()) return std::nullopt;
  return pruned_headers_[b.id].tx_count;
}

std::size_t BlockIndex::memory_bytes() const noexcept {
  // (an unordered_map node: the pair, a next pointer, the cached hash; a bucket pointer)
  constexpr std::size_t side_node = sizeof(std::pair<const std::uint32_t, SideLink>) + 2 * sizeof(void*) + sizeof(void*);
  return entries_.capacity() * sizeof(Entry) + slots_.capacity() * sizeof(std::uint32_t) + best_.memory_bytes() + side_.size() * side_node +
         orphans_.capacity() * sizeof(Pending) + work_marks_.capacity() * sizeof(Work) + pruned_headers_.capacity() * sizeof(PrunedHeader);
}

std::string BlockIndex::file_path(unsigned file) const { return (std::filesystem::path(dir_) / block_file_name(file)).string(); }

}  // namespace blockwire
