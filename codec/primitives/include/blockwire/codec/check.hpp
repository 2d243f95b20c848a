// What the bytes of a block alone can prove about it: no chain, no UTXO set.
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/codec/network.hpp>
#include <blockwire/codec/view.hpp>
#include <blockwire/codec/work.hpp>
#include <blockwire/io/error.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

namespace blockwire {

namespace check {

enum class errc : int {
  bad_bits = 1,       // `bits` is negative, zero or overflows 256 bits
  bad_proof_of_work,  // the header's hash is above its own target
  no_transactions,
  first_not_coinbase,
  extra_coinbase,          // a coinbase after the first transaction
  bad_merkle_root,         // the transactions do not hash to the header's root
  mutated_merkle_root,     // duplicated adjacent hashes (CVE-2012-2459)
  bad_witness_nonce,       // the coinbase witness is not one 32-byte item
  bad_witness_commitment,  // the commitment does not match the wtxids
  unexpected_witness,      // witness data, and no commitment to it
};

const std::error_category& category() noexcept;
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

}  // namespace check

// A header's proof of work as a node checks it before it trusts the
// header: `bits` valid, its target no easier than `net` allows (Core's
// powLimit), and the header's hash `hash` at most that target.
bool proof_of_work_ok(const BlockHash& hash, std::uint32_t bits, network net) noexcept;

// What a header shows of being another network's than `net`: a genesis
// block not `net`'s (another network's, or none's), or bits easier than
// `net` allows (for regtest, other
// bits than regtest's: it does not retarget, every block has its genesis
// block's bits). `could_be`: the networks it can be of, when its work
// meets its bits (else none: it may be damage); `why`, for a person ("its
// bits 207fffff are easier than mainnet allows"). Nothing when it can be
// `net`'s.
struct OtherNetwork {
  std::vector<network> could_be;
  std::string why;
  bool genesis = false;  // a genesis block (could_be: the network whose it is, if any)
};
std::optional<OtherNetwork> other_network(const BlockHeader& h, network net);

// Proof of work, merkle root, no mutation, one coinbase and first, and
// (BIP141) the witness commitment when any transaction has witness data.
// The error says which check failed.
result<void> check_block(const Block& block);
// The same with the ids already known (from decode_block(bytes, ids)).
result<void> check_block(const Block& block, std::span<const TxIds> ids);
// The same on a view: the ids are hashed from the bytes, and streamed into
// the merkle roots (memory does not grow with the transaction count).
result<void> check_block(const BlockView& view);

}  // namespace blockwire

template <>
struct std::is_error_code_enum<blockwire::check::errc> : std::true_type {};
