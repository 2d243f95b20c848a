// Undo data: the coins a block's transactions spent, as Bitcoin Core keeps
// them beside its blocks (undo.h). A CBlockUndo holds one CTxUndo for each
// transaction but the coinbase, each one coin for each input, in order; a
// coin is VARINT(height * 2 + coinbase), a zero byte when the height is not
// 0 (a version field of old), VARINT(CompressAmount(value)) and the
// compressed script (compressor.h).
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/codec/height.hpp>
#include <blockwire/codec/script.hpp>
#include <blockwire/io/buffered_reader.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/writer.hpp>
#include <blockwire/undo/error.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace blockwire {

// An output as it was when spent.
struct SpentCoin {
  Height height = Height::genesis();  // of the block that created it
  bool coinbase = false;              // created by a coinbase
  Amount value;
  std::vector<std::byte> script_pubkey;
  friend bool operator==(const SpentCoin&, const SpentCoin&) = default;
};

struct TxUndo {
  std::vector<SpentCoin> coins;  // one per input
  friend bool operator==(const TxUndo&, const TxUndo&) = default;
};

struct BlockUndo {
  std::vector<TxUndo> transactions;  // one per transaction but the coinbase
  friend bool operator==(const BlockUndo&, const BlockUndo&) = default;
};

// A script longer than Core's MAX_SCRIPT_SIZE (max_script_size, in
// <blockwire/codec/script.hpp>) in undo data is read as Core reads it: its
// bytes skipped, a lone OP_RETURN in its place.

// Entry points, as for blocks.
result<void> encode_block_undo(const BlockUndo& undo, writer_ref out);
void encode_block_undo(const BlockUndo& undo, std::vector<std::byte>& out);
std::size_t serialized_size(const BlockUndo& undo);
// Errors carry the byte offset: truncated input, trailing bytes, a
// non-canonical or too large count, varint_overflow,
// invalid_compressed_key. Allocation follows the bytes present.
// A coin as Bitcoin Core's chainstate holds it (a Coin: VARINT(height * 2 +
// coinbase), the compressed amount and script; the value of a "C" key, once
// un-obfuscated). Errors: the decoding's, with the offset.
result<SpentCoin> decode_chainstate_coin(std::span<const std::byte> bytes);
// The same coin written so (appended to `out`).
void encode_chainstate_coin(const SpentCoin& coin, std::vector<std::byte>& out);
result<BlockUndo> decode_block_undo(std::span<const std::byte> bytes);
result<BlockUndo> decode_block_undo(StreamReader& in);

// Core's amount compression (compressor.cpp): 0 stays 0; otherwise the
// trailing zeros of the decimal value, then its last non-zero digit, packed.
std::uint64_t compress_amount(std::uint64_t amount) noexcept;
std::uint64_t decompress_amount(std::uint64_t compressed) noexcept;

// Script compression: the short forms of P2PKH (0 and 20 bytes), P2SH (1),
// P2PK with a compressed key (2 or 3 and x) and with an uncompressed key
// that is on the curve (4 or 5 and x; restored with libsecp256k1); anything
// else VARINT(size + 6) and the bytes. The wire form, appended to `out`.
void compress_script(std::span<const std::byte> script, std::vector<std::byte>& out);

// Does the undo data have the block's shape: one entry a transaction but
// the coinbase, one coin an input? (wrong_shape otherwise, no offset.)
result<void> check_shape(const BlockUndo& undo, const Block& block);

// What a transaction's spent coins bring: their checked sum, or nothing
// when a value or the sum is out of the money range.
std::optional<Amount> input_total(const TxUndo& undo) noexcept;
// A transaction's fee (Core's CheckTxInputs): what its spent coins bring
// less what its outputs take, or nothing when a value or a sum is out of
// the money range or the outputs take more (no node accepts such a block:
// hostile data). The one fee computation, for every output format.
std::optional<Amount> fee(const Transaction& tx, const TxUndo& undo) noexcept;
std::optional<Amount> fee(const TransactionView& tx, const TxUndo& undo) noexcept;
// The fee of each transaction but the coinbase, in block order, of a block
// owned or viewed.
std::vector<std::optional<Amount>> fees(const BlockUndo& undo, const Block& block);
std::vector<std::optional<Amount>> fees(const BlockUndo& undo, const BlockView& block);

// The unspent outputs of a chain read from its start: what a node's coin
// database holds, in memory. apply() spends a block's inputs (its undo
// data, returned) and adds its spendable outputs (not OP_RETURN ones, not
// scripts over max_script_size: Core's AddCoin leaves them out), as
// ConnectBlock does; an input of an output it does not hold is
// missing_coin (the chain did not start at its genesis block, or spends
// what does not exist).
class CoinSet {
 public:
  result<BlockUndo> apply(const Block& block, Height height);
  std::size_t size() const noexcept { return coins_.size(); }
  // A coin from elsewhere (a snapshot of the set, a test's funding), over
  // any at the same point.
  void add(const OutPoint& point, SpentCoin coin) { coins_.insert_or_assign(point, std::move(coin)); }
  bool contains(const OutPoint& point) const { return coins_.find(point) != coins_.end(); }

 private:
  std::map<OutPoint, SpentCoin> coins_;
};

}  // namespace blockwire
