#include <blockwire/codec/check.hpp>
#include <blockwire/io/sha256.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

namespace blockwire {
namespace {

const char* describe(int value) noexcept {
  switch (static_cast<check::errc>(value)) {
    case check::errc::bad_bits: return "bits is not a valid target (negative, zero or overflowing)";
    case check::errc::bad_proof_of_work: return "the block hash is above the header's own target";
    case check::errc::no_transactions: return "the block has no transactions";
    case check::errc::first_not_coinbase: return "the first transaction is not a coinbase";
    case check::errc::extra_coinbase: return "a coinbase after the first transaction";
    case check::errc::bad_merkle_root: return "merkle root mismatch";
    case check::errc::mutated_merkle_root: return "duplicate transactions give the same merkle root (mutated, CVE-2012-2459)";
    case check::errc::bad_witness_nonce: return "the coinbase witness is not one 32-byte reserved value";
    case check::errc::bad_witness_commitment: return "witness commitment mismatch";
    case check::errc::unexpected_witness: return "witness data without a witness commitment";
  }
  return nullptr;
}

}  // namespace

bool proof_of_work_ok(const BlockHash& hash, std::uint32_t bits, network net) noexcept {
  const auto target = Target::from_bits(bits);
  const auto limit = Target::from_bits(pow_limit_bits(net));
  return target && limit && *target <= *limit && target->met_by(hash);
}

std::optional<OtherNetwork> other_network(const BlockHeader& h, network net) {
  constexpr network every[] = {network::mainnet, network::testnet3, network::testnet4, network::signet, network::regtest};
  const BlockHash hash = block_hash(h);
  if (h.prev_block.is_all_zeros()) {
    if (hash == genesis_hash(net)) return std::nullopt;
    for (const network n : every) {
      if (hash == genesis_hash(n)) return OtherNetwork{{n}, "the genesis block of " + std::string(name(n)), true};
    }
    return OtherNetwork{{}, "a genesis block, but not " + std::string(name(net)) + "'s", true};
  }
  const auto target = Target::from_bits(h.bits);
  if (!target) return std::nullopt;
  const auto allows = [&](network n) {
    if (n == network::regtest) return h.bits == pow_limit_bits(network::regtest);
    const auto limit = Target::from_bits(pow_limit_bits(n));
    return limit && *target <= *limit;
  };
  if (allows(net)) return std::nullopt;
  OtherNetwork other;
  if (target->met_by(hash)) {  // (else damage, maybe: it shows no network it is of)
    for (const network n : every) {
      if (allows(n)) other.could_be.push_back(n);
    }
  }
  char bits[9];
  std::snprintf(bits, sizeof bits, "%08x", h.bits);
  char regtest_bits[9];
  std::snprintf(regtest_bits, sizeof regtest_bits, "%08x", pow_limit_bits(network::regtest));
  other.why = net == network::regtest ? std::string("its bits ") + bits + " are not regtest's: its blocks all have " + regtest_bits +
                                            " (regtest does not retarget)"
                                      : std::string("its bits ") + bits + " are easier than " + std::string(name(net)) + " allows";
  return other;
}

namespace {

// The checks, once, for a decoded Block and for a BlockView: `Source`
// gives the header, the transaction count, each transaction (read the same
// way, owned or viewed) and the ids. The ids are streamed into merkle builders: no list of hashes.
template <class Source>
result<void> run_checks(const Source& b) {
  const auto target = Target::from_bits(b.header().bits);
  if (!target) return check::errc::bad_bits;
  if (!target->met_by(block_hash(b.header()))) return check::errc::bad_proof_of_work;
  const std::size_t n = b.count();
  if (n == 0) return check::errc::no_transactions;
  if (!b.transaction(0).is_coinbase()) return check::errc::first_not_coinbase;
  for (std::size_t i = 1; i < n; ++i) {
    if (b.transaction(i).is_coinbase()) return check::errc::extra_coinbase;
  }

  MerkleBuilder txids;
  MerkleBuilder wtxids;
  bool any_witness = false;
  std::array<TxIds, 256> batch;  // ids a chunk at a time: a view hashes a chunk's side by side (lanes drain at its end)
  for (std::size_t first = 0; first < n; first += batch.size()) {
    const std::size_t k = std::min(batch.size(), n - first);
    b.ids(first, std::span(batch).first(k));
    for (std::size_t j = 0; j < k; ++j) {
      txids.add(batch[j].txid.to_raw_hash());
      wtxids.add(first + j == 0 ? Hash256{} : batch[j].wtxid.to_raw_hash());  // BIP141: the coinbase's wtxid counts as zero
      any_witness = any_witness || b.transaction(first + j).has_witness();
    }
  }
  bool mutated = false;
  if (txids.root(&mutated) != b.header().merkle_root) return check::errc::bad_merkle_root;
  if (mutated) return check::errc::mutated_merkle_root;

  // BIP141: the last coinbase output whose script is OP_RETURN, push 36,
  // aa21a9ed, then the 32-byte commitment.
  static constexpr std::array<std::byte, 6> prefix{std::byte{0x6a}, std::byte{0x24}, std::byte{0xaa},
                                                   std::byte{0x21}, std::byte{0xa9}, std::byte{0xed}};
  const auto& coinbase = b.transaction(0);  // a Transaction's reference, or a view kept alive
  std::span<const std::byte> commitment;
  for (std::size_t k = coinbase.output_count(); k-- > 0;) {
    const auto script = coinbase.output(k).script_pubkey();
    if (script.size() >= 38 && std::equal(prefix.begin(), prefix.end(), script.begin())) {
      commitment = script.subspan(6, 32);
      break;
    }
  }
  if (commitment.empty()) {
    if (any_witness) return check::errc::unexpected_witness;
    return success();
  }
  const WitnessView stack = coinbase.input(0).witness();  // one item of 32 bytes: the nonce
  if (stack.size() != 1 || stack[0].size() != 32) return check::errc::bad_witness_nonce;
  const auto nonce = stack[0];
  std::array<std::byte, 64> preimage;
  const Hash256 root = wtxids.root();
  std::copy(root.bytes().begin(), root.bytes().end(), preimage.begin());
  std::copy(nonce.begin(), nonce.end(), preimage.begin() + 32);
  const Hash256 expected = sha256d(preimage);
  if (!std::equal(expected.bytes().begin(), expected.bytes().end(), commitment.begin())) return check::errc::bad_witness_commitment;
  return success();
}

// What run_checks() reads of a block, owned or viewed.
struct DecodedSource {
  const Block& block;
  std::span<const TxIds> given;
  const BlockHeader& header() const { return block.header; }
  std::size_t count() const { return block.transactions.size(); }
  const Transaction& transaction(std::size_t i) const { return block.transactions[i]; }
  void ids(std::size_t first, std::span<TxIds> out) const {
    std::copy_n(given.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
  }
};

struct ViewSource {
  const BlockView& view;
  const BlockHeader& header() const { return view.header(); }
  std::size_t count() const { return view.transaction_count(); }
  TransactionView transaction(std::size_t i) const { return view.transaction(i); }
  void ids(std::size_t first, std::span<TxIds> out) const { tx_ids(view, first, out); }
};

}  // namespace

namespace {
// Every failure here is the data's.
condition classify(int) noexcept { return condition::bad_data; }
}  // namespace

const std::error_category& check::category() noexcept {
  static const enum_category instance("blockwire.check", describe, classify);
  return instance;
}

result<void> check_block(const Block& block, std::span<const TxIds> ids) { return run_checks(DecodedSource{block, ids}); }

result<void> check_block(const Block& block) {
  std::vector<TxIds> ids(block.transactions.size());
  tx_ids(block.transactions, ids);
  return check_block(block, ids);
}

result<void> check_block(const BlockView& view) { return run_checks(ViewSource{view}); }

}  // namespace blockwire
