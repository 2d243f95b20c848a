// BIP152: short ids, building a cmpctblock, rebuilding a block from one.
#include <blockwire/codec/wire.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/io/siphash.hpp>
#include <blockwire/p2p/compact_blocks.hpp>

#include <algorithm>

namespace blockwire::p2p {

namespace {

constexpr std::uint64_t low_48_bits = 0xffff'ffff'ffffULL;

// Short id -> slot, open addressing in one allocation: short ids are SipHash
// output, uniform already, so their low bits index the table directly. An
// entry is one word: the 48-bit id, the slot in the top 16 bits.
class ShortIdTable {
 public:
  explicit ShortIdTable(std::size_t n) {
    std::size_t capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    entries_.assign(capacity, empty);
    mask_ = capacity - 1;
  }
  // False if the id is there already.
  bool insert(std::uint64_t id, std::uint16_t slot) {
    for (std::size_t i = id & mask_;; i = (i + 1) & mask_) {
      if (entries_[i] == empty) {
        entries_[i] = id | std::uint64_t{slot} << 48;
        return true;
      }
      if ((entries_[i] & low_48_bits) == id) return false;
    }
  }
  // The slot of `id`, or -1.
  int find(std::uint64_t id) const noexcept {
    for (std::size_t i = id & mask_;; i = (i + 1) & mask_) {
      if (entries_[i] == empty) return -1;
      if ((entries_[i] & low_48_bits) == id) return static_cast<int>(entries_[i] >> 48);
    }
  }

 private:
  // Slots stop at 65,534 (a block has at most 65,535 transactions): all
  // ones is no entry.
  static constexpr std::uint64_t empty = ~std::uint64_t{0};
  std::vector<std::uint64_t> entries_;
  std::size_t mask_ = 0;
};

const Hash256& id_for(const TxIds& ids, std::uint64_t version) {
  return version == compact_version_txid ? ids.txid.to_raw_hash() : ids.wtxid.to_raw_hash();
}

}  // namespace

ShortIdKey short_id_key(const BlockHeader& header, std::uint64_t nonce) {
  Sha256 sha;                                    // a Writer: the header is encoded straight into it
  (void)encode_header(header, writer_ref(sha));  // hashing cannot fail
  sha.update(wire::to_le(nonce));
  const Hash256 digest = sha.finish();
  std::array<std::byte, 8> k0, k1;
  std::copy_n(digest.bytes().begin(), 8, k0.begin());
  std::copy_n(digest.bytes().begin() + 8, 8, k1.begin());
  return {wire::from_le<std::uint64_t>(k0), wire::from_le<std::uint64_t>(k1)};
}

std::uint64_t short_id(const ShortIdKey& key, const Hash256& id) noexcept { return siphash(key.k0, key.k1, id) & low_48_bits; }

CmpctBlock make_cmpctblock(const Block& block, std::span<const TxIds> ids, std::uint64_t nonce, std::uint64_t version) {
  CmpctBlock c;
  c.header = block.header;
  c.nonce = nonce;
  if (block.transactions.empty()) return c;
  c.prefilled.push_back({0, block.transactions[0]});
  const ShortIdKey key = short_id_key(block.header, nonce);
  c.short_ids.reserve(ids.size() - 1);
  for (std::size_t i = 1; i < ids.size(); ++i) c.short_ids.push_back(short_id(key, id_for(ids[i], version)));
  return c;
}

CmpctBlock make_cmpctblock(const Block& block, std::uint64_t nonce, std::uint64_t version) {
  std::vector<TxIds> ids;
  ids.reserve(block.transactions.size());
  for (const Transaction& tx : block.transactions) ids.push_back(tx_ids(tx));
  return make_cmpctblock(block, ids, nonce, version);
}

result<PartialBlock> PartialBlock::start(const CmpctBlock& cmpct, std::span<const PoolTransaction> pool, std::uint64_t version) {
  const std::size_t count = cmpct.short_ids.size() + cmpct.prefilled.size();
  if (count == 0 || count > max_block_transactions) return error(errc::bad_compact_block);
  PartialBlock p;
  p.header_ = cmpct.header;
  p.block_hash_ = block_hash(cmpct.header);
  p.slots_.assign(count, nullptr);
  p.ids_.resize(count);
  // Prefilled first, ascending; each must leave room for the short ids
  // before it (Core: no place without either a transaction or a short id).
  p.prefilled_.reserve(cmpct.prefilled.size());  // stable: slots point into it
  std::size_t next = 0;
  for (std::size_t i = 0; i < cmpct.prefilled.size(); ++i) {
    const PrefilledTransaction& pf = cmpct.prefilled[i];
    if (pf.index < next || pf.index > cmpct.short_ids.size() + i) return error(errc::bad_compact_block);
    const Transaction& tx = p.prefilled_.emplace_back(pf.tx);
    p.slots_[pf.index] = &tx;
    p.ids_[pf.index] = tx_ids(tx);
    next = pf.index + std::size_t{1};
  }
  // The short ids fill the other places in order; two alike cannot be told
  // apart.
  ShortIdTable table(cmpct.short_ids.size());
  std::size_t k = 0;
  for (std::size_t s = 0; s < count; ++s) {
    if (p.slots_[s] != nullptr) continue;
    if (!table.insert(cmpct.short_ids[k++], static_cast<std::uint16_t>(s))) return error(errc::short_id_collision);
  }
  // The pool: a second transaction behind a short id empties its place
  // again, and that place stays empty (ask for it), as in Core.
  const ShortIdKey key = short_id_key(cmpct.header, cmpct.nonce);
  std::vector<bool> seen(count);
  std::size_t found = 0;
  for (const PoolTransaction& candidate : pool) {
    const int slot = table.find(short_id(key, id_for(candidate.ids, version)));
    if (slot < 0) continue;
    if (!seen[slot]) {
      seen[slot] = true;
      p.slots_[slot] = candidate.tx;
      p.ids_[slot] = candidate.ids;
      if (++found == cmpct.short_ids.size()) break;
    } else if (p.slots_[slot] != nullptr) {
      p.slots_[slot] = nullptr;
      --found;
    }
  }
  return p;
}

std::vector<std::uint16_t> PartialBlock::missing() const {
  std::vector<std::uint16_t> out;
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i] == nullptr) out.push_back(static_cast<std::uint16_t>(i));
  return out;
}

result<Block> PartialBlock::finish(const BlockTxn& txn) const {
  if (txn.block_hash != block_hash_) return error(errc::wrong_block);
  return finish(txn.transactions);
}

result<Block> PartialBlock::finish(std::span<const Transaction> missing_transactions) const {
  Block block;
  block.header = header_;
  block.transactions.reserve(slots_.size());
  // The ids of the missing places are filled into a copy; with none
  // missing (a pool that had everything) the slots' own ids serve.
  std::vector<TxIds> filled_ids;
  if (!missing_transactions.empty()) filled_ids = ids_;
  std::size_t used = 0;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i] != nullptr) {
      block.transactions.push_back(*slots_[i]);
    } else {
      if (used == missing_transactions.size()) return error(errc::wrong_transaction_count);
      const Transaction& tx = missing_transactions[used++];
      block.transactions.push_back(tx);
      filled_ids[i] = tx_ids(tx);
    }
  }
  if (used != missing_transactions.size()) return error(errc::wrong_transaction_count);
  const std::span<const TxIds> ids = missing_transactions.empty() ? std::span<const TxIds>(ids_) : std::span<const TxIds>(filled_ids);
  if (auto checked = check_block(block, ids); !checked) {
    const std::error_code code = checked.error().code();
    // What a wrong transaction behind a short id does (Core: BLOCK_MUTATED).
    if (code == check::errc::bad_merkle_root || code == check::errc::mutated_merkle_root || code == check::errc::bad_witness_commitment)
      return error(errc::short_id_collision);
    return checked.error();
  }
  return block;
}

}  // namespace blockwire::p2p
