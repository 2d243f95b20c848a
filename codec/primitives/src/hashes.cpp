// Hashes: of a header as the encoder writes it into a buffer on the stack;
// of a transaction, from its own bytes.
#include "detail/encoders.hpp"

#include <blockwire/codec/hashes.hpp>
#include <blockwire/codec/view.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/span_writer.hpp>
#include <blockwire/io/sha256.hpp>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>
#include <type_traits>

namespace blockwire {
namespace {

// Leaves: one allocation, with room for the copy of the last hash that an
// odd count needs; every later level fits in the same storage.
std::vector<Hash256> leaves_for(std::size_t n) {
  std::vector<Hash256> leaves;
  leaves.reserve(n + (n & 1));
  return leaves;
}

// Two equal siblings at a merkle level (CVE-2012-2459's mark); an odd
// last hash has none.
bool has_equal_siblings(std::span<const Hash256> level) noexcept {
  for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
    if (level[i] == level[i + 1]) return true;
  }
  return false;
}

// The parents of a level of an even size, into its first half.
void hash_pairs(std::span<Hash256> level) noexcept {
  const auto bytes = std::as_writable_bytes(level);
  sha256d64(bytes.first(bytes.size() / 2), bytes);
}

Hash256 root_in_place(std::vector<Hash256>& hashes, bool* mutated) {
  if (hashes.empty()) return Hash256{};
  bool mutation = false;
  while (hashes.size() > 1) {
    if (mutated != nullptr && has_equal_siblings(hashes)) mutation = true;
    if (hashes.size() & 1) hashes.push_back(hashes.back());  // within the reserved room
    hash_pairs(hashes);
    hashes.resize(hashes.size() / 2);
  }
  if (mutated != nullptr) *mutated = mutation;
  return hashes[0];
}

}  // namespace

BlockHash block_hash(const BlockHeader& header) {
  std::array<std::byte, header_size> bytes;
  SpanWriter out(bytes);
  BufferedWriter<SpanWriter&, 0> w(out);
  detail::encode_header(w, header);
  return BlockHash::from_raw_hash(sha256d(bytes));
}

Hash256 detail::hash_txid(const std::array<std::span<const std::byte>, 3>& parts) {
  Sha256 sha;
  for (const auto& part : parts) sha.update(part);
  return sha256d_of(sha);
}

Hash256 detail::hash_wtxid(std::span<const std::byte> bytes) { return sha256d(bytes); }

TxIds tx_ids(const Transaction& tx) {
  const Txid id = tx.txid();
  return {id, tx.has_witness() ? tx.wtxid() : Wtxid::from_raw_hash(id.to_raw_hash())};
}

namespace {

Hash256 combine(const Hash256& left, const Hash256& right) noexcept {
  std::array<std::byte, 64> pair;
  std::copy(left.bytes().begin(), left.bytes().end(), pair.begin());
  std::copy(right.bytes().begin(), right.bytes().end(), pair.begin() + 32);
  Hash256 out;
  sha256d64(out.bytes(), pair);
  return out;
}

}  // namespace

void MerkleBuilder::add_node(Hash256 node, std::size_t level) noexcept {
  // Each low 1 bit of the count (in units of the node's size) is a left
  // node waiting at that level: the new node is its right sibling, and
  // their parent climbs on.
  const std::uint64_t leaves = std::uint64_t{1} << level;
  for (std::uint64_t n = count_ >> level; (n & 1) != 0; n >>= 1, ++level) {
    if (pending_[level] == node) mutated_ = true;
    node = combine(pending_[level], node);
  }
  pending_[level] = node;
  count_ += leaves;
}

void MerkleBuilder::add_subtree(std::span<Hash256> leaves, std::size_t height) noexcept {
  // Every level pairs real siblings, halving in place.
  for (std::size_t n = leaves.size(); n > 1; n /= 2) {
    const auto level = leaves.first(n);
    if (has_equal_siblings(level)) mutated_ = true;
    hash_pairs(level);
  }
  add_node(leaves[0], height);
}

void MerkleBuilder::add_batch() noexcept {
  batched_ = 0;
  add_subtree(batch_, batch_height);
}

Hash256 MerkleBuilder::root(bool* mutated) const noexcept {
  // A part batch joins a copy as complete subtrees, largest first (32, 16,
  // ... leaves): each is hashed a level at a time like a whole batch, and
  // the count stays a multiple of the next one's size.
  MerkleBuilder whole = *this;
  whole.batched_ = 0;
  for (std::size_t height = batch_height, at = 0; height-- > 0;) {
    const std::size_t size = std::size_t{1} << height;
    if (batched_ - at < size) continue;
    whole.add_subtree(std::span(whole.batch_).subspan(at, size), height);
    at += size;
  }
  if (whole.count_ == 0) {
    if (mutated != nullptr) *mutated = false;
    return Hash256{};
  }
  // From the lowest pending node up the right edge of the tree: a node
  // without a sibling pairs with itself (Core's rule for an odd level), and
  // each carry meets the pending left node of the level above.
  std::size_t level = static_cast<std::size_t>(__builtin_ctzll(whole.count_));
  Hash256 h = whole.pending_[level];
  std::uint64_t n = whole.count_;
  bool mutation = whole.mutated_;
  while (n != std::uint64_t{1} << level) {
    h = combine(h, h);
    n += std::uint64_t{1} << level;
    ++level;
    while ((n & (std::uint64_t{1} << level)) == 0) {
      if (whole.pending_[level] == h) mutation = true;
      h = combine(whole.pending_[level], h);
      ++level;
    }
  }
  if (mutated != nullptr) *mutated = mutation;
  return h;
}

namespace {

// Leaves that are hashes or ids of a kind (a Txid is the hash it holds).
template <class Leaf>
Hash256 root_of(std::span<const Leaf> leaves, bool* mutated) {
  std::vector<Hash256> hashes = leaves_for(leaves.size());
  for (const Leaf& leaf : leaves) {
    if constexpr (std::is_same_v<Leaf, Hash256>) {
      hashes.push_back(leaf);
    } else {
      hashes.push_back(leaf.to_raw_hash());
    }
  }
  return root_in_place(hashes, mutated);
}

template <class AnyBlock>
Hash256 txid_root(const AnyBlock& block, bool* mutated) {
  std::vector<Hash256> hashes = leaves_for(block.transaction_count());
  for (std::size_t i = 0; i < block.transaction_count(); ++i) hashes.push_back(block.transaction(i).txid().to_raw_hash());
  return root_in_place(hashes, mutated);
}

template <class AnyBlock>
Hash256 wtxid_root(const AnyBlock& block) {
  std::vector<Hash256> hashes = leaves_for(block.transaction_count());
  for (std::size_t i = 0; i < block.transaction_count(); ++i)
    hashes.push_back(i == 0 ? Hash256{} : block.transaction(i).wtxid().to_raw_hash());
  return root_in_place(hashes, nullptr);
}

}  // namespace

Hash256 merkle_root(std::span<const Hash256> leaves, bool* mutated) { return root_of(leaves, mutated); }
Hash256 merkle_root(std::span<const Txid> txids, bool* mutated) { return root_of(txids, mutated); }
Hash256 merkle_root(const Block& block, bool* mutated) { return txid_root(block, mutated); }
Hash256 merkle_root(const BlockView& block, bool* mutated) { return txid_root(block, mutated); }
Hash256 witness_merkle_root(const Block& block) { return wtxid_root(block); }
Hash256 witness_merkle_root(const BlockView& block) { return wtxid_root(block); }

namespace {

constexpr std::size_t ids_chunk = 4096;  // transactions hashed side by side at a time

// The ids of n transactions into out[0..n), a chunk at a time through
// sha256d_each, which schedules a chunk's messages over its lanes (longest
// first): the more it sees at once, the less its lanes idle at the end. A
// chunk of 256 on the stack left 28% of AVX-512's lanes idle on block
// 413567 and took 1.15x the time of 1,024. `message(i, whole)` gives the
// i-th transaction's txid message and, when it has witness data, sets
// `whole` to its bytes (the wtxid's); otherwise the wtxid is the txid.
template <class Message>
void ids_side_by_side(std::size_t n, TxIds* out, Message message) {
  const std::size_t chunk = std::min(ids_chunk, n);
  std::vector<SplitMessage> messages(2 * chunk);
  std::vector<Hash256> hashes(2 * chunk);
  std::vector<bool> witness(chunk);
  for (std::size_t first = 0; first < n; first += chunk) {
    const std::size_t k = std::min(chunk, n - first);
    std::size_t m = 0;
    for (std::size_t j = 0; j < k; ++j) {
      std::span<const std::byte> whole;
      messages[m++] = message(first + j, whole);
      witness[j] = whole.data() != nullptr;
      if (witness[j]) messages[m++] = SplitMessage{{whole}};
    }
    sha256d_each(std::span(messages).first(m), std::span(hashes).first(m));
    m = 0;
    for (std::size_t j = 0; j < k; ++j) {
      out[first + j].txid = Txid::from_raw_hash(hashes[m]);
      out[first + j].wtxid = Wtxid::from_raw_hash(hashes[witness[j] ? m + 1 : m]);
      m += witness[j] ? 2 : 1;
    }
  }
}

}  // namespace

result<Block> decode_block(std::span<const std::byte> bytes, std::vector<TxIds>& ids, witness mode) {
  Block block;
  if (auto r = decode_block(bytes, block, ids, mode); !r) return r.error();
  return block;
}

result<void> decode_block(std::span<const std::byte> bytes, Block& block, std::vector<TxIds>& ids, witness mode) {
  if (auto r = decode_block(bytes, block, mode); !r) {
    ids.clear();
    return r.error();
  }
  ids.resize(block.transactions.size());
  tx_ids(block.transactions, ids);
  return success();
}

namespace {

// A transaction's txid message, and its bytes in `whole` when it has
// witness data (else the wtxid is the txid).
template <TransactionLike Tx>
SplitMessage id_message(const Tx& tx, std::span<const std::byte>& whole) {
  if (!tx.has_witness()) return SplitMessage{{tx.bytes()}};
  whole = tx.bytes();
  return SplitMessage{tx.txid_parts()};
}

}  // namespace

void tx_ids(std::span<const Transaction> txs, std::span<TxIds> out) {
  assert(out.size() == txs.size());
  ids_side_by_side(txs.size(), out.data(), [&](std::size_t i, std::span<const std::byte>& whole) { return id_message(txs[i], whole); });
}

void tx_ids(const BlockView& block, std::size_t first, std::span<TxIds> out) {
  ids_side_by_side(out.size(), out.data(),
                   [&](std::size_t i, std::span<const std::byte>& whole) { return id_message(block.transaction(first + i), whole); });
}

void txids(const BlockView& block, std::size_t first, std::span<Txid> out) {
  const std::size_t chunk = std::min(ids_chunk, out.size());
  std::vector<SplitMessage> messages(chunk);
  std::vector<Hash256> hashes(chunk);
  for (std::size_t done = 0; done < out.size(); done += chunk) {
    const std::size_t k = std::min(chunk, out.size() - done);
    for (std::size_t j = 0; j < k; ++j) messages[j] = SplitMessage{block.transaction(first + done + j).txid_parts()};
    sha256d_each(std::span(messages).first(k), std::span(hashes).first(k));
    for (std::size_t j = 0; j < k; ++j) out[done + j] = Txid::from_raw_hash(hashes[j]);
  }
}

}  // namespace blockwire
