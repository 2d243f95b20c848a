#include <blockwire/codec/check.hpp>
#include <blockwire/io/sha256.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace blockwire {
namespace {

const char* describe(int value) noexcept {
  switch (static_cast<check_errc>(value)) {
    case check_errc::bad_bits: return "bits is not a valid target (negative, zero or overflowing)";
    case check_errc::bad_proof_of_work: return "the block hash is above the header's own target";
    case check_errc::no_transactions: return "the block has no transactions";
    case check_errc::first_not_coinbase: return "the first transaction is not a coinbase";
    case check_errc::extra_coinbase: return "a coinbase after the first transaction";
    case check_errc::bad_merkle_root: return "merkle root mismatch";
    case check_errc::mutated_merkle_root: return "duplicate transactions give the same merkle root (mutated, CVE-2012-2459)";
    case check_errc::bad_witness_nonce: return "the coinbase witness is not one 32-byte reserved value";
    case check_errc::bad_witness_commitment: return "witness commitment mismatch";
    case check_errc::unexpected_witness: return "witness data without a witness commitment";
  }
  return nullptr;
}

}  // namespace

std::optional<Hash256> target_from_bits(std::uint32_t bits) noexcept {
  const unsigned exponent = bits >> 24;
  std::uint32_t mantissa = bits & 0x007fffff;
  const bool negative = mantissa != 0 && (bits & 0x00800000) != 0;
  const bool overflow = mantissa != 0 && (exponent > 34 || (mantissa > 0xff && exponent > 33) || (mantissa > 0xffff && exponent > 32));
  if (negative || overflow || mantissa == 0) return std::nullopt;
  Hash256 target;
  const auto bytes = target.bytes();
  if (exponent <= 3) {
    mantissa >>= 8 * (3 - exponent);
    for (unsigned i = 0; i < 3; ++i) bytes[i] = static_cast<std::byte>(mantissa >> (8 * i));
  } else {
    for (unsigned i = 0; i < 3; ++i) {
      const unsigned at = exponent - 3 + i;
      if (at < 32) bytes[at] = static_cast<std::byte>(mantissa >> (8 * i));
    }
  }
  if (target.is_zero()) return std::nullopt;
  return target;
}

bool at_most(const Hash256& a, const Hash256& b) noexcept {
  for (std::size_t i = 32; i-- > 0;) {
    if (a.bytes()[i] != b.bytes()[i]) return a.bytes()[i] < b.bytes()[i];
  }
  return true;
}

namespace {

// BIP141: the last coinbase output whose script is OP_RETURN, push 36, aa21a9ed, 32 bytes.
const TxOut* witness_commitment(const Transaction& coinbase) {
  static constexpr std::array<std::byte, 6> prefix{std::byte{0x6a}, std::byte{0x24}, std::byte{0xaa},
                                                   std::byte{0x21}, std::byte{0xa9}, std::byte{0xed}};
  for (auto out = coinbase.outputs.rbegin(); out != coinbase.outputs.rend(); ++out) {
    const auto script = coinbase.script_pubkey(*out);
    if (script.size() >= 38 && std::equal(prefix.begin(), prefix.end(), script.begin())) return &*out;
  }
  return nullptr;
}

result<void> check_witness(const Block& block, std::span<const TxIds> ids) {
  const Transaction& coinbase = block.transactions.front();
  const TxOut* commitment = witness_commitment(coinbase);
  if (commitment == nullptr) {
    const bool any_witness = std::any_of(block.transactions.begin(), block.transactions.end(),
                                         [](const Transaction& tx) { return tx.has_witness(); });
    if (any_witness) return check_errc::unexpected_witness;
    return success();
  }
  const auto stack = coinbase.witness(coinbase.inputs.front());
  if (stack.size() != 1 || stack[0].size != 32) return check_errc::bad_witness_nonce;

  std::vector<Hash256> leaves;
  leaves.reserve(ids.size() + (ids.size() & 1));
  leaves.emplace_back();  // the coinbase's wtxid counts as zero
  for (std::size_t i = 1; i < ids.size(); ++i) leaves.push_back(ids[i].wtxid);
  const Hash256 root = merkle_root(leaves);

  std::array<std::byte, 64> preimage;
  std::copy(root.bytes().begin(), root.bytes().end(), preimage.begin());
  const auto nonce = coinbase.bytes(stack[0]);
  std::copy(nonce.begin(), nonce.end(), preimage.begin() + 32);
  const Hash256 expected = sha256d(preimage);
  const auto committed = coinbase.script_pubkey(*commitment).subspan(6, 32);
  if (!std::equal(expected.bytes().begin(), expected.bytes().end(), committed.begin())) return check_errc::bad_witness_commitment;
  return success();
}

}  // namespace

const std::error_category& check_category() noexcept {
  static const enum_category instance("blockwire.check", describe);
  return instance;
}

result<void> check_block(const Block& block, std::span<const TxIds> ids) {
  const auto target = target_from_bits(block.header.bits);
  if (!target) return check_errc::bad_bits;
  if (!at_most(block_hash(block.header), *target)) return check_errc::bad_proof_of_work;

  if (block.transactions.empty()) return check_errc::no_transactions;
  if (!block.transactions.front().is_coinbase()) return check_errc::first_not_coinbase;
  if (std::any_of(block.transactions.begin() + 1, block.transactions.end(), [](const Transaction& tx) { return tx.is_coinbase(); })) {
    return check_errc::extra_coinbase;
  }

  std::vector<Hash256> txids;
  txids.reserve(ids.size() + (ids.size() & 1));
  for (const TxIds& id : ids) txids.push_back(id.txid);
  bool mutated = false;
  if (merkle_root(txids, &mutated) != block.header.merkle_root) return check_errc::bad_merkle_root;
  if (mutated) return check_errc::mutated_merkle_root;

  return check_witness(block, ids);
}

result<void> check_block(const Block& block) {
  std::vector<TxIds> ids;
  ids.reserve(block.transactions.size());
  for (const Transaction& tx : block.transactions) {
    const Hash256 id = txid(tx);
    ids.push_back({id, tx.has_witness() ? wtxid(tx) : id});  // the same bytes: hash them once
  }
  return check_block(block, ids);
}

}  // namespace blockwire
