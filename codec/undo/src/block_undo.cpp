// CBlockUndo on the wire, written with the public wire toolkit: one line
// per field, as the formats below it are.
#include <blockwire/io/vector_writer.hpp>
#include <blockwire/undo/block_undo.hpp>
#include <blockwire/undo/connect.hpp>
#include <blockwire/undo/varint.hpp>

#include "compress.hpp"

#include <optional>

namespace blockwire {
namespace {

namespace w = wire;

// A coin's code is height * 2 + coinbase, read as at most 32 bits: its
// height is at most 2^31 - 1, always a Height.
constexpr Height height_of_code(std::uint64_t code) noexcept { return *Height::checked(code >> 1); }

// A coin: VARINT(height * 2 + coinbase), a zero byte when the height is
// not 0 (old versions' transaction version), VARINT(compressed amount), the
// compressed script.
inline constexpr struct {
  void operator()(w::ByteSink auto& out, const SpentCoin& coin) const {
    undo::encode_varint(out, std::uint64_t{coin.height.to_wire()} * 2 + (coin.coinbase ? 1 : 0));
    if (coin.height != Height::genesis()) w::encode_u8(out, 0);
    undo::encode_varint(out, compress_amount(static_cast<std::uint64_t>(coin.value.to_sat())));
    undo::detail::compress_script(out, coin.script_pubkey);
  }
} encode_coin;

inline constexpr struct {
  void operator()(w::ByteSink auto& out, const TxUndo& tx) const { w::encode_range(out, tx.coins, encode_coin); }
} encode_tx_undo;

inline constexpr struct {
  void operator()(w::ByteSink auto& out, const BlockUndo& undo) const { w::encode_range(out, undo.transactions, encode_tx_undo); }
} encode_undo;

inline constexpr struct {
  void operator()(DecodingContext& ctx, SpentCoin& coin) const {
    const std::uint64_t code = undo::decode_varint(ctx, 0xffffffff);
    coin.height = height_of_code(code);
    coin.coinbase = (code & 1) != 0;
    if (coin.height != Height::genesis()) (void)undo::decode_varint(ctx, 0xffffffff);  // the old version field, any value
    coin.value = Amount::from_sat(static_cast<std::int64_t>(decompress_amount(undo::decode_varint(ctx))));
    if (ctx.ok()) undo::detail::decompress_script(ctx, coin.script_pubkey);
  }
} decode_coin;

// The fewest bytes on the wire: a coin is a code, an amount and a script
// code (3); a transaction's undo data a count (1).
constexpr std::uint64_t min_coin_size = 3;

inline constexpr struct {
  void operator()(DecodingContext& ctx, TxUndo& tx) const { w::decode_range(ctx, tx.coins, min_coin_size, decode_coin); }
} decode_tx_undo;

inline constexpr struct {
  void operator()(DecodingContext& ctx, BlockUndo& undo) const { w::decode_range(ctx, undo.transactions, 1, decode_tx_undo); }
} decode_undo;

}  // namespace

result<void> encode_block_undo(const BlockUndo& undo, writer_ref out) {
  StreamWriter sink(out);
  encode_undo(sink, undo);
  return sink.flush();
}

void encode_block_undo(const BlockUndo& undo, std::vector<std::byte>& out) {
  // No size pass first: a reused vector has the room already, and a new
  // one grows geometrically a few times.
  VectorWriter sink(out);
  (void)encode_block_undo(undo, writer_ref(sink));  // a vector cannot fail
}

std::size_t serialized_size(const BlockUndo& undo) {
  w::SizeCounter counter;
  encode_undo(counter, undo);
  return counter.size();
}

result<BlockUndo> decode_block_undo(std::span<const std::byte> bytes) {
  DecodingContext ctx(bytes);
  BlockUndo undo;
  decode_undo(ctx, undo);
  if (auto r = w::finish_exact(ctx, bytes.size()); !r) return r.error();
  return undo;
}

result<SpentCoin> decode_chainstate_coin(std::span<const std::byte> bytes) {
  DecodingContext ctx(bytes);
  SpentCoin coin;
  const std::uint64_t code = undo::decode_varint(ctx, 0xffffffff);
  coin.height = height_of_code(code);
  coin.coinbase = (code & 1) != 0;
  coin.value = Amount::from_sat(static_cast<std::int64_t>(decompress_amount(undo::decode_varint(ctx))));
  if (ctx.ok()) undo::detail::decompress_script(ctx, coin.script_pubkey);
  if (auto r = w::finish_exact(ctx, bytes.size()); !r) return r.error();
  return coin;
}

void encode_chainstate_coin(const SpentCoin& coin, std::vector<std::byte>& out) {
  VectorWriter grows(out);
  BufferedWriter<VectorWriter&, 0> sink(grows);
  undo::encode_varint(sink, std::uint64_t{coin.height.to_wire()} * 2 + (coin.coinbase ? 1 : 0));
  undo::encode_varint(sink, compress_amount(static_cast<std::uint64_t>(coin.value.to_sat())));
  undo::detail::compress_script(sink, coin.script_pubkey);
}

result<BlockUndo> decode_block_undo(StreamReader& in) {
  DecodingContext ctx(in);
  BlockUndo undo;
  decode_undo(ctx, undo);
  if (!ctx.ok()) return ctx.failure();
  return undo;
}

result<void> check_shape(const BlockUndo& undo, const Block& block) {
  if (block.transactions.empty() || undo.transactions.size() != block.transactions.size() - 1) return undo::errc::wrong_shape;
  for (std::size_t i = 0; i < undo.transactions.size(); ++i) {
    if (undo.transactions[i].coins.size() != block.transactions[i + 1].input_count()) return undo::errc::wrong_shape;
  }
  return success();
}

std::optional<Amount> input_total(const TxUndo& undo) noexcept {
  std::optional<Amount> total = Amount();
  for (const SpentCoin& coin : undo.coins) {
    if (!total) break;
    total = checked_add(*total, coin.value);
  }
  return total;
}

namespace {

template <TransactionLike Tx>
std::optional<Amount> fee_of(const Tx& tx, const TxUndo& undo) noexcept {
  const std::optional<Amount> in = input_total(undo);
  const std::optional<Amount> out = tx.output_total();
  if (!in || !out) return std::nullopt;
  return checked_sub(*in, *out);
}

template <class AnyBlock>
std::vector<std::optional<Amount>> fees_of(const BlockUndo& undo, const AnyBlock& block) {
  std::vector<std::optional<Amount>> out;
  const std::size_t count =
      std::min(undo.transactions.size(), block.transaction_count() - std::min<std::size_t>(1, block.transaction_count()));
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) out.push_back(fee_of(block.transaction(i + 1), undo.transactions[i]));
  return out;
}

}  // namespace

std::optional<Amount> fee(const Transaction& tx, const TxUndo& undo) noexcept { return fee_of(tx, undo); }
std::optional<Amount> fee(const TransactionView& tx, const TxUndo& undo) noexcept { return fee_of(tx, undo); }
std::vector<std::optional<Amount>> fees(const BlockUndo& undo, const Block& block) { return fees_of(undo, block); }
std::vector<std::optional<Amount>> fees(const BlockUndo& undo, const BlockView& block) { return fees_of(undo, block); }

result<BlockUndo> CoinSet::apply(const Block& block, Height height) {
  // Every change, so that a failure puts the set back as it was: a coin
  // spent (kept to be put back), or one added (with the coin it replaced,
  // if any).
  struct Change {
    OutPoint point;
    std::optional<SpentCoin> before;  // the coin there before (none: there was none)
  };
  struct View {
    std::map<OutPoint, SpentCoin>& coins;
    std::vector<Change>& journal;
    result<std::optional<SpentCoin>> spend(const OutPoint& p) {
      const auto it = coins.find(p);
      if (it == coins.end()) return std::optional<SpentCoin>{};
      journal.push_back({p, it->second});
      std::optional<SpentCoin> coin(std::move(it->second));
      coins.erase(it);
      return coin;
    }
    void add(const OutPoint& p, SpentCoin coin) {
      auto [it, inserted] = coins.try_emplace(p);
      journal.push_back({p, inserted ? std::nullopt : std::optional<SpentCoin>(std::move(it->second))});
      it->second = std::move(coin);
    }
  };
  std::vector<Change> journal;
  View view{coins_, journal};
  auto undo = undo::connect_block(block, height, view);
  if (!undo) {
    for (auto it = journal.rbegin(); it != journal.rend(); ++it) {
      if (it->before) {
        coins_.insert_or_assign(it->point, std::move(*it->before));
      } else {
        coins_.erase(it->point);
      }
    }
  }
  return undo;
}

}  // namespace blockwire
