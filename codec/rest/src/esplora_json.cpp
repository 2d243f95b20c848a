#include "esplora_json.hpp"

#include <blockwire/codec/address.hpp>
#include <blockwire/codec/script.hpp>
#include <blockwire/io/hex.hpp>

#include <optional>

namespace blockwire::rest::detail {

std::string_view esplora_script_type(std::span<const std::byte> script) {
  if (script.empty()) return "empty";
  if (script[0] == std::byte{op::return_}) return "op_return";
  switch (solve(script).type) {
    case script_type::pubkey: return "p2pk";
    case script_type::pubkeyhash: return "p2pkh";
    case script_type::scripthash: return "p2sh";
    case script_type::witness_v0_keyhash: return "v0_p2wpkh";
    case script_type::witness_v0_scripthash: return "v0_p2wsh";
    case script_type::witness_v1_taproot: return "v1_p2tr";
    case script_type::multisig: return "multisig";
    case script_type::anchor: return "anchor";
    default: break;
  }
  return unspendable(script) ? "provably_unspendable" : "unknown";
}

std::string esplora_asm(std::span<const std::byte> script) {
  std::string out;
  ScriptReader reader(script);
  while (!reader.done()) {
    if (!out.empty()) out += ' ';
    const auto o = reader.next();
    if (!o) return out += "<push past end>";
    const std::uint8_t c = o->opcode;
    if (c == op::zero) {
      out += "OP_0";
    } else if (o->is_push()) {
      out += c < op::pushdata1 ? "OP_PUSHBYTES_" + std::to_string(c) : std::string(opcode_name(c));
      out += ' ';
      out += to_hex(o->data);
    } else if (c == op::one_negate) {
      out += "OP_PUSHNUM_NEG1";
    } else if (c >= op::one && c <= op::sixteen) {
      out += "OP_PUSHNUM_" + std::to_string(c - op::one + 1);
    } else if (c == 0xb1) {
      out += "OP_CLTV";
    } else if (c == 0xb2) {
      out += "OP_CSV";
    } else if (c >= 0xbb && c <= 0xfe) {
      out += "OP_RETURN_" + std::to_string(c);
    } else {
      out += opcode_name(c);
    }
  }
  return out;
}

namespace {

void write_output(tables::JsonWriter& out, std::span<const std::byte> script, std::string_view type, Amount value, network net) {
  out.begin_object();
  out.member_string("scriptpubkey", to_hex(script));
  out.member_string("scriptpubkey_asm", esplora_asm(script));
  out.member_string("scriptpubkey_type", type);
  if (const auto address = encode_address(script, net)) out.member_string("scriptpubkey_address", *address);
  out.member_integer("value", value.to_sat());
  out.end_object();
}

// The script a P2SH input's scriptSig reveals: its last push.
std::optional<std::span<const std::byte>> last_push(std::span<const std::byte> script_sig) {
  std::optional<std::span<const std::byte>> last;
  ScriptReader reader(script_sig);
  while (!reader.done()) {
    const auto o = reader.next();
    if (!o || !o->is_push()) return std::nullopt;
    last = o->data;
  }
  return last;
}

}  // namespace

std::optional<Response> read_undo(const BlocksDirectory& dir, const IndexedBlock& b, const BlockView& v, BlockUndo& out) {
  out = BlockUndo{};
  if (v.transaction_count() <= 1) return std::nullopt;
  auto undo = dir.undo_of(b, v);
  if (!undo) return Response{500, "text/plain", "Undo data of block " + to_string(b.height) + ": " + undo.error().message()};
  out = std::move(undo).value();
  return std::nullopt;
}

void write_esplora_status(tables::JsonWriter& out, const Confirmed& at) {
  out.begin_object();
  out.member_boolean("confirmed", true);
  out.member_integer("block_height", signed_height(at.height));
  out.member_string("block_hash", at.block.to_hex());
  out.member_uint("block_time", at.time);
  out.end_object();
}

void write_esplora_tx(tables::JsonWriter& out, const TransactionView& tx, const TxUndo* undo, const Confirmed& at, network net) {
  const bool coinbase = tx.is_coinbase();
  out.begin_object();
  out.member_string("txid", tx.txid().to_hex());
  out.member_uint("version", tx.version());
  out.member_uint("locktime", tx.lock_time());
  out.key("vin");
  out.begin_array();
  for (std::size_t i = 0; i < tx.input_count(); ++i) {
    const InputView in = tx.input(i);
    const SpentCoin* coin = !coinbase && undo != nullptr && i < undo->coins.size() ? &undo->coins[i] : nullptr;
    const std::string_view type = coin != nullptr ? esplora_script_type(coin->script_pubkey) : std::string_view{};
    out.begin_object();
    out.member_string("txid", in.prevout().txid.to_hex());
    out.member_uint("vout", in.prevout().index);
    out.key("prevout");
    if (coin != nullptr) {
      write_output(out, coin->script_pubkey, type, coin->value, net);
    } else {
      out.null();
    }
    out.member_string("scriptsig", to_hex(in.script_sig()));
    out.member_string("scriptsig_asm", esplora_asm(in.script_sig()));
    const WitnessView witness = in.witness();
    if (witness.size() != 0) {
      out.key("witness");
      out.begin_array();
      for (const auto item : witness) out.string(to_hex(item));
      out.end_array();
    }
    out.member_boolean("is_coinbase", coinbase);
    out.member_uint("sequence", in.sequence());
    if (coin != nullptr) {
      const auto redeem = type == "p2sh" ? last_push(in.script_sig()) : std::nullopt;
      if (redeem) out.member_string("inner_redeemscript_asm", esplora_asm(*redeem));
      const bool wsh = type == "v0_p2wsh" || (redeem && esplora_script_type(*redeem) == "v0_p2wsh");
      if (wsh && witness.size() != 0) {
        std::span<const std::byte> last;
        for (const auto item : witness) last = item;
        out.member_string("inner_witnessscript_asm", esplora_asm(last));
      }
    }
    out.end_object();
  }
  out.end_array();
  out.key("vout");
  out.begin_array();
  for (const OutputView o : tx.outputs()) write_output(out, o.script_pubkey(), esplora_script_type(o.script_pubkey()), o.value(), net);
  out.end_array();
  out.member_uint("size", tx.bytes().size());
  out.member_uint("weight", tx.weight());
  const std::optional<Amount> fee = coinbase ? std::optional<Amount>(Amount()) : undo != nullptr ? blockwire::fee(tx, *undo) : std::nullopt;
  if (fee) out.member_integer("fee", fee->to_sat());
  out.key("status");
  write_esplora_status(out, at);
  out.end_object();
}

}  // namespace blockwire::rest::detail
