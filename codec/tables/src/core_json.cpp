#include <blockwire/tables/core_json.hpp>

#include <blockwire/codec/address.hpp>
#include <blockwire/codec/descriptor.hpp>
#include <blockwire/codec/script.hpp>
#include <blockwire/io/hex.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace blockwire::tables {

namespace {

std::string hex32(std::uint32_t v) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", v);
  return text;
}

// Hex of one script or witness item at a time: the only text held in
// memory is the item being written.
void write_hex(JsonWriter& out, std::span<const std::byte> bytes) { out.string(to_hex(bytes)); }

// Core's UniValue writes a double with 16 significant digits: 1 and
// 14484.1623612254, not 1.0 and 14484.162361225399.
std::string double_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.16g", v);
  return text;
}

// ScriptToUniv: asm, desc, hex, address (when there is one), type.
void write_script_pubkey(JsonWriter& out, std::span<const std::byte> script, network net) {
  out.begin_object();
  out.member_string("asm", to_asm(script));
  out.member_string("desc", infer_descriptor(script, net));
  out.key("hex");
  write_hex(out, script);
  if (const auto address = encode_address(script, net)) {
    out.member_string("address", *address);
  }
  out.member_string("type", name(solve(script).type));
  out.end_object();
}

}  // namespace

std::string amount_text(Amount amount) {
  const std::int64_t satoshis = amount.to_sat();
  const bool negative = satoshis < 0;
  const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(satoshis) : static_cast<std::uint64_t>(satoshis);
  char text[32];
  std::snprintf(text, sizeof text, "%s%llu.%08llu", negative ? "-" : "", static_cast<unsigned long long>(magnitude / 100'000'000),
                static_cast<unsigned long long>(magnitude % 100'000'000));
  return text;
}

double difficulty(std::uint32_t bits) {
  const int exponent = static_cast<int>(bits >> 24);
  const double mantissa = static_cast<double>(bits & 0x00ffffff);
  if (mantissa == 0) return 0;
  // The difficulty-1 target is 0xffff * 256^(0x1d - 3).
  return 65535.0 / mantissa * std::pow(256.0, 0x1d - exponent);
}

template <TransactionLike Tx>
void write_transaction_json(JsonWriter& out, const Tx& tx, network net, bool hex, const TxUndo* undo, bool prevouts,
                            const BlockHash* block) {
  // Undo data of another shape is not this transaction's: left out.
  if (undo != nullptr && undo->coins.size() != tx.input_count()) undo = nullptr;
  // Unsigned: hostile values wrap instead of overflowing (Core rejects such
  // a block; here the sum is only printed).
  out.begin_object();
  out.member_string("txid", tx.txid().to_hex());
  out.member_string("hash", tx.wtxid().to_hex());
  out.member_uint("version", tx.version());
  out.member_uint("size", tx.size());
  out.member_uint("vsize", tx.vsize());
  out.member_uint("weight", tx.weight());
  out.member_uint("locktime", tx.lock_time());
  out.key("vin");
  out.begin_array();
  const bool coinbase = tx.is_coinbase();
  for (std::size_t i = 0; i < tx.input_count(); ++i) {
    const InputView in = tx.input(i);
    out.begin_object();
    if (coinbase) {
      out.key("coinbase");
      write_hex(out, in.script_sig());
    } else {
      out.member_string("txid", in.prevout().txid.to_hex());
      out.member_uint("vout", in.prevout().index);
      out.key("scriptSig");
      out.begin_object();
      out.member_string("asm", to_asm(in.script_sig(), true));
      out.key("hex");
      write_hex(out, in.script_sig());
      out.end_object();
    }
    if (!in.witness().empty()) {
      out.key("txinwitness");
      out.begin_array();
      for (const auto item : in.witness()) write_hex(out, item);
      out.end_array();
    }
    if (undo != nullptr) {
      const SpentCoin& coin = undo->coins[i];
      if (prevouts) {
        out.key("prevout");
        out.begin_object();
        out.member_boolean("generated", coin.coinbase);
        out.member_uint("height", coin.height.to_wire());
        out.member_raw_number("value", amount_text(coin.value));
        out.key("scriptPubKey");
        write_script_pubkey(out, coin.script_pubkey, net);
        out.end_object();
      }
    }
    out.member_uint("sequence", in.sequence());
    out.end_object();
  }
  out.end_array();
  out.key("vout");
  out.begin_array();
  for (std::size_t n = 0; n < tx.output_count(); ++n) {
    const OutputView o = tx.output(n);
    out.begin_object();
    out.member_raw_number("value", amount_text(o.value()));
    out.member_uint("n", n);
    out.key("scriptPubKey");
    write_script_pubkey(out, o.script_pubkey(), net);
    out.end_object();
  }
  out.end_array();
  // (Out of the money range, a hostile directory's: no fee, as none is known.)
  if (undo != nullptr) {
    if (const std::optional<Amount> paid = fee(tx, *undo)) out.member_raw_number("fee", amount_text(*paid));
  }
  if (block != nullptr) out.member_string("blockhash", block->to_hex());
  if (hex) {
    out.key("hex");
    write_hex(out, tx.bytes());
  }
  out.end_object();
}

template void write_transaction_json(JsonWriter&, const Transaction&, network, bool, const TxUndo*, bool, const BlockHash*);
template void write_transaction_json(JsonWriter&, const TransactionView&, network, bool, const TxUndo*, bool, const BlockHash*);

namespace {

// blockheaderToJSON's members.
void header_members(JsonWriter& out, const BlockHeader& h, const ChainInfo* chain, std::uint64_t tx_count) {
  out.member_string("hash", block_hash(h).to_hex());
  if (chain != nullptr) {
    out.member_integer("confirmations", chain->confirmations);
    out.member_integer("height", signed_height(chain->height));
  }
  out.member_integer("version", h.version);
  out.member_string("versionHex", hex32(static_cast<std::uint32_t>(h.version)));
  out.member_string("merkleroot", h.merkle_root.to_hex());
  out.member_uint("time", h.time);
  if (chain != nullptr) {
    out.member_uint("mediantime", chain->median_time);
  }
  out.member_uint("nonce", h.nonce);
  write_target_members(out, h.bits);
  if (chain != nullptr) {
    out.member_string("chainwork", chain->chainwork.to_hex());
  }
  out.member_uint("nTx", tx_count);
  if (!h.prev_block.is_all_zeros()) {
    out.member_string("previousblockhash", h.prev_block.to_hex());
  }
  if (chain != nullptr && chain->next) {
    out.member_string("nextblockhash", chain->next->to_hex());
  }
}

}  // namespace

void write_target_members(JsonWriter& out, std::uint32_t bits) {
  out.member_string("bits", hex32(bits));
  if (const auto target = Target::from_bits(bits)) {
    out.member_string("target", target->to_hex());
  }
  out.member_raw_number("difficulty", double_text(difficulty(bits)));
}

void write_block_header_json(JsonWriter& out, const BlockHeader& header, const ChainInfo* chain, std::uint64_t tx_count) {
  out.begin_object();
  header_members(out, header, chain, tx_count);
  out.end_object();
}

void write_script_pubkey_json(JsonWriter& out, std::span<const std::byte> script, network net) { write_script_pubkey(out, script, net); }

void write_block_json(JsonWriter& out, const BlockView& block, network net, const ChainInfo* chain, int verbosity, const BlockUndo* undo) {
  if (undo != nullptr && undo->transactions.size() + 1 != block.transaction_count()) undo = nullptr;
  out.begin_object();
  header_members(out, block.header(), chain, block.transaction_count());
  out.member_uint("strippedsize", block.stripped_size());
  out.member_uint("size", block.size());
  out.member_uint("weight", block.weight());
  out.key("tx");
  out.begin_array();
  for (std::size_t i = 0; i < block.transaction_count(); ++i) {
    if (verbosity >= 2) {
      const TxUndo* tx_undo = undo != nullptr && i > 0 ? &undo->transactions[i - 1] : nullptr;
      write_transaction_json(out, block.transaction(i), net, true, tx_undo, verbosity >= 3);
    } else {
      out.string(block.transaction(i).txid().to_hex());
    }
  }
  out.end_array();
  out.end_object();
}

}  // namespace blockwire::tables
