#include <blockwire/tables/etl_rows.hpp>

#include <blockwire/codec/address.hpp>
#include <blockwire/codec/script.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/sha256.hpp>

#include <array>
#include <concepts>
#include <optional>
#include <string>

namespace blockwire::tables {

namespace {

constexpr std::string_view ndjson_tables[] = {"blocks", "transactions"};
constexpr std::string_view csv_tables[] = {"blocks", "transactions", "inputs", "outputs"};

// What bitcoin-etl says of a script: Core's type name, reqSigs (m of a
// multisig, 1 for the types that pay keys or programs, else none), and its
// address; a script with none gets bitcoin-etl's name for it,
// "nonstandard" and the first 20 bytes of its SHA-256 in hex.
struct ScriptFacts {
  std::string_view type;
  std::optional<std::uint64_t> required;
  std::string address;
};

ScriptFacts script_facts(std::span<const std::byte> script, network net) {
  const Solution s = solve(script);
  ScriptFacts f{name(s.type), std::nullopt, {}};
  switch (s.type) {
    case script_type::multisig: f.required = s.required; break;
    case script_type::pubkey:
    case script_type::pubkeyhash:
    case script_type::scripthash:
    case script_type::witness_v0_keyhash:
    case script_type::witness_v0_scripthash:
    case script_type::witness_v1_taproot:
    case script_type::witness_unknown: f.required = 1; break;
    default: break;
  }
  if (auto address = encode_address(script, net)) {
    f.address = std::move(*address);
  } else {
    const Hash256 digest = sha256(script);
    f.address = "nonstandard" + to_hex(digest.bytes().first<20>());
  }
  return f;
}

// The values a field can hold, made into text by the row (a CSV header
// row makes nothing of them).
struct Hex {
  std::span<const std::byte> bytes;
};
struct Asm {
  std::span<const std::byte> script;
  bool sighash;  // a scriptSig: signatures' sighash types decoded, as Core's asm does
};
struct HexNumber {
  std::uint32_t value;
  bool padded;  // eight digits (bits); else as few as it takes (nonce, as bitcoin-etl)
};
struct Addresses {
  const std::string* address;  // null: unknown (no undo data)
};
template <class T>
struct Maybe {
  bool present;
  T value;
};
template <class T>
Maybe<T> maybe(const std::optional<T>& v) {
  return {v.has_value(), v.value_or(T{})};
}

// Numbers and booleans: the same text in JSON and in CSV.
template <std::integral T>
void plain(TextOut& t, T v) {
  if constexpr (std::same_as<T, bool>) {
    if (v) {
      t.literal("true");
    } else {
      t.literal("false");
    }
  } else if constexpr (std::unsigned_integral<T>) {
    t.uint(v);
  } else {
    t.integer(v);
  }
}

// NDJSON: an object, "name":value, arrays of objects nested.
class JsonRow {
 public:
  explicit JsonRow(TextOut& t) : t_(t) {}
  void begin() {
    t_.put('{');
    first_ = true;
  }
  void end() { t_.put('}'); }
  template <std::size_t N, class T>
  void field(const char (&name)[N], const T& v) {
    key(name);
    value(v);
  }
  template <std::size_t N, class Each>
  void array(const char (&name)[N], std::size_t n, Each each) {
    key(name);
    t_.put('[');
    for (std::size_t i = 0; i < n; ++i) {
      if (i != 0) t_.put(',');
      JsonRow item(t_);
      item.begin();
      each(item, i);
      item.end();
    }
    t_.put(']');
  }

 private:
  template <std::size_t N>
  void key(const char (&name)[N]) {
    if (!first_) t_.put(',');
    first_ = false;
    t_.put('"');
    t_.literal(name);
    t_.literal("\":");
  }
  template <std::integral T>
  void value(T v) {
    plain(t_, v);
  }
  void value(Amount a) { plain(t_, a.to_sat()); }  // in satoshis
  void value(std::string_view s) { t_.json_string(s); }
  template <class Kind>
  void value(const HashId<Kind>& id) {
    value(id.to_raw_hash());
  }
  void value(const Hash256& h) {
    t_.put('"');
    t_.hash(h);
    t_.put('"');
  }
  void value(const Hex& h) {
    t_.put('"');
    t_.hex(h.bytes);
    t_.put('"');
  }
  // Core's asm is opcode names, numbers, hex and bracketed sighash names,
  // and an address is Base58 or Bech32: nothing in them JSON escapes.
  void value(const Asm& a) { quoted(to_asm(a.script, a.sighash)); }
  void quoted(std::string_view plain) {
    t_.put('"');
    t_.raw(plain);
    t_.put('"');
  }
  void value(const HexNumber& n);
  void value(const Addresses& a) {
    if (a.address == nullptr) return t_.literal("null");
    t_.put('[');
    quoted(*a.address);
    t_.put(']');
  }
  template <class T>
  void value(const Maybe<T>& m) {
    if (m.present) {
      value(m.value);
    } else {
      t_.literal("null");
    }
  }

  TextOut& t_;
  bool first_ = true;
};

void hex_number(TextOut& t, const HexNumber& n) {
  char text[8];
  const int length = 8;
  const std::array<std::byte, 4> big_endian{std::byte(n.value >> 24), std::byte(n.value >> 16), std::byte(n.value >> 8),
                                            std::byte(n.value)};
  to_hex(big_endian, text);
  int skip = 0;
  if (!n.padded)
    while (skip < 7 && text[skip] == '0') ++skip;
  t.raw({text + skip, static_cast<std::size_t>(length - skip)});
}

void JsonRow::value(const HexNumber& n) {
  t_.put('"');
  hex_number(t_, n);
  t_.put('"');
}

// A CSV line: fields separated by commas; arrays are tables of their own.
class CsvLine {
 public:
  explicit CsvLine(TextOut& t) : t_(t) {}
  void begin() { first_ = true; }
  void end() { t_.put('\n'); }
  template <class Each>
  void array(std::string_view, std::size_t, Each) {}

 protected:
  void separate() {
    if (!first_) t_.put(',');
    first_ = false;
  }
  TextOut& t_;

 private:
  bool first_ = true;
};

// CSV: the values in order, empty for null.
class CsvRow : public CsvLine {
 public:
  using CsvLine::CsvLine;
  template <class T>
  void field(std::string_view, const T& v) {
    separate();
    value(v);
  }

 private:
  template <std::integral T>
  void value(T v) {
    plain(t_, v);
  }
  // An empty string is "", where an empty field is null: a segwit input's
  // empty script_sig is not a missing one.
  void value(std::string_view s) {
    if (s.empty()) return t_.literal("\"\"");
    t_.csv_text(s);
  }
  void value(Amount a) { plain(t_, a.to_sat()); }
  void value(const Hash256& h) { t_.hash(h); }
  template <class Kind>
  void value(const HashId<Kind>& id) {
    t_.hash(id.to_raw_hash());
  }
  void value(const Hex& h) {
    if (h.bytes.empty()) return t_.literal("\"\"");
    t_.hex(h.bytes);
  }
  // No comma, quote or line break in asm or an address (see JsonRow).
  void value(const Asm& a) {
    if (a.script.empty()) return t_.literal("\"\"");
    t_.raw(to_asm(a.script, a.sighash));
  }
  void value(const HexNumber& n) { hex_number(t_, n); }
  // Every script here has exactly one address (its own or its
  // "nonstandard" name): the column holds it.
  void value(const Addresses& a) {
    if (a.address != nullptr) t_.raw(*a.address);
  }
  template <class T>
  void value(const Maybe<T>& m) {
    if (m.present) value(m.value);
  }
};

// A CSV file's first line: the fields' names, from the same description.
class CsvHeader : public CsvLine {
 public:
  using CsvLine::CsvLine;
  template <class T>
  void field(std::string_view name, const T&) {
    separate();
    t_.raw(name);
  }
};

// The columns' kinds, from the same description (ExportColumn).
class CsvColumns {
 public:
  explicit CsvColumns(std::vector<ExportColumn>& out) : out_(out) {}
  void begin() {}
  void end() {}
  template <class Each>
  void array(std::string_view, std::size_t, Each) {}
  template <class T>
  void field(std::string_view name, const T&) {
    out_.push_back({name, kind_of(static_cast<T*>(nullptr)), nullable(static_cast<T*>(nullptr))});
  }

 private:
  template <std::integral T>
  static column_kind kind_of(T*) {
    return std::same_as<T, bool> ? column_kind::boolean : column_kind::integer;
  }
  static column_kind kind_of(Amount*) { return column_kind::integer; }
  template <class T>
  static column_kind kind_of(Maybe<T>*) {
    return kind_of(static_cast<T*>(nullptr));
  }
  static column_kind kind_of(const void*) { return column_kind::text; }  // hashes, hex, asm, names, addresses
  template <class T>
  static bool nullable(T*) {
    return false;
  }
  template <class T>
  static bool nullable(Maybe<T>*) {
    return true;
  }
  static bool nullable(Addresses*) { return true; }  // an input's, without undo data

  std::vector<ExportColumn>& out_;
};

struct BlockFacts {
  BlockHash hash = BlockHash::all_zeros();
  std::uint64_t size = 0, stripped_size = 0, weight = 0, number = 0;
  BlockHeader header;
  std::span<const std::byte> coinbase_param;
  std::uint64_t transaction_count = 0;
};

struct TxFacts {
  const TransactionView* tx = nullptr;  // null in a header row
  const TxUndo* undo = nullptr;
  network net = network::mainnet;
  Txid hash = Txid::all_zeros();
  BlockHash block_hash = BlockHash::all_zeros();
  std::uint64_t block_number = 0, block_timestamp = 0, index = 0;
  // (Nothing where unknown: no undo data, or a value or sum out of the money range.)
  std::optional<Amount> input_value;
  std::optional<Amount> output_value;
  std::optional<Amount> fee;
};

struct InputFacts {
  std::uint64_t index = 0;
  OutPoint prevout;
  std::span<const std::byte> script_sig;
  std::uint32_t sequence = 0;
  const SpentCoin* coin = nullptr;  // null: no undo data
  ScriptFacts spent;                // the coin's script, when there is a coin
};

struct OutputFacts {
  std::uint64_t index = 0;
  std::span<const std::byte> script;
  Amount value;
  ScriptFacts facts;
};

template <class Row>
void block_fields(Row& r, const BlockFacts& b) {
  r.field("hash", b.hash);
  r.field("size", b.size);
  r.field("stripped_size", b.stripped_size);
  r.field("weight", b.weight);
  r.field("number", b.number);
  r.field("version", std::int64_t{b.header.version});
  r.field("merkle_root", b.header.merkle_root);
  r.field("timestamp", std::uint64_t{b.header.time});
  r.field("nonce", HexNumber{b.header.nonce, false});
  r.field("bits", HexNumber{b.header.bits, true});
  r.field("coinbase_param", Hex{b.coinbase_param});
  r.field("transaction_count", b.transaction_count);
}

InputFacts input_facts(const TxFacts& t, std::size_t i) {
  const InputView in = t.tx->input(i);
  InputFacts f{i, in.prevout(), in.script_sig(), in.sequence(), nullptr, {}};
  if (t.undo != nullptr) {
    f.coin = &t.undo->coins[i];
    f.spent = script_facts(f.coin->script_pubkey, t.net);
  }
  return f;
}

OutputFacts output_facts(const TxFacts& t, std::size_t n) {
  const OutputView o = t.tx->output(n);
  return {n, o.script_pubkey(), o.value(), script_facts(o.script_pubkey(), t.net)};
}

template <class Row>
void input_fields(Row& r, const InputFacts& in) {
  const bool known = in.coin != nullptr;
  r.field("index", in.index);
  r.field("spent_transaction_hash", in.prevout.txid);
  r.field("spent_output_index", std::uint64_t{in.prevout.index});
  r.field("script_asm", Asm{in.script_sig, true});
  r.field("script_hex", Hex{in.script_sig});
  r.field("sequence", std::uint64_t{in.sequence});
  r.field("required_signatures", known ? maybe(in.spent.required) : Maybe<std::uint64_t>{false, 0});
  r.field("type", Maybe<std::string_view>{known, in.spent.type});
  r.field("addresses", Addresses{known ? &in.spent.address : nullptr});
  r.field("value", Maybe<Amount>{known, known ? in.coin->value : Amount()});
}

template <class Row>
void output_fields(Row& r, const OutputFacts& o) {
  r.field("index", o.index);
  r.field("script_asm", Asm{o.script, false});
  r.field("script_hex", Hex{o.script});
  r.field("required_signatures", maybe(o.facts.required));
  r.field("type", o.facts.type);
  r.field("addresses", Addresses{&o.facts.address});
  r.field("value", o.value);
}

// bitcoin-etl leaves a coinbase's input out (its script is the block's
// coinbase_param): a coinbase has no inputs here.
std::size_t listed_inputs(const TransactionView& tx) { return tx.is_coinbase() ? 0 : tx.input_count(); }

template <class Row>
void transaction_fields(Row& r, const TxFacts& t) {
  const bool coinbase = t.tx != nullptr && t.tx->is_coinbase();
  const std::size_t inputs = t.tx != nullptr ? listed_inputs(*t.tx) : 0;
  const std::size_t outputs = t.tx != nullptr ? t.tx->output_count() : 0;
  r.field("hash", t.hash);
  r.field("size", std::uint64_t{t.tx != nullptr ? t.tx->size() : 0});
  r.field("virtual_size", std::uint64_t{t.tx != nullptr ? t.tx->vsize() : 0});
  r.field("version", std::uint64_t{t.tx != nullptr ? t.tx->version() : 0});
  r.field("lock_time", std::uint64_t{t.tx != nullptr ? t.tx->lock_time() : 0});
  r.field("block_number", t.block_number);
  r.field("block_hash", t.block_hash);
  r.field("block_timestamp", t.block_timestamp);
  r.field("is_coinbase", coinbase);
  r.field("index", t.index);
  r.array("inputs", inputs, [&](auto& item, std::size_t i) { input_fields(item, input_facts(t, i)); });
  r.array("outputs", outputs, [&](auto& item, std::size_t n) { output_fields(item, output_facts(t, n)); });
  r.field("input_count", std::uint64_t{inputs});
  r.field("output_count", std::uint64_t{outputs});
  r.field("input_value", maybe(t.input_value));
  r.field("output_value", maybe(t.output_value));
  r.field("fee", maybe(t.fee));
}

// The columns that tie an input or output row to its transaction and block.
template <class Row>
void row_keys(Row& r, const TxFacts& t) {
  r.field("transaction_hash", t.hash);
  r.field("block_hash", t.block_hash);
  r.field("block_number", t.block_number);
  r.field("block_timestamp", t.block_timestamp);
}

template <class Row, class Fields>
void row(TextOut& out, Fields fields) {
  Row r(out);
  r.begin();
  fields(r);
  r.end();
}

}  // namespace

std::span<const std::string_view> export_tables(export_format f) noexcept {
  if (f == export_format::ndjson) return ndjson_tables;
  return csv_tables;
}

std::string_view export_format_name(export_format f) noexcept { return f == export_format::ndjson ? "ndjson" : "csv"; }

std::optional<export_format> export_format_named(std::string_view name) noexcept {
  for (const export_format f : {export_format::ndjson, export_format::csv}) {
    if (export_format_name(f) == name) return f;
  }
  return std::nullopt;
}

std::string_view export_extension(export_format f) noexcept { return f == export_format::ndjson ? "json" : "csv"; }

std::vector<ExportColumn> export_columns(std::string_view table) {
  std::vector<ExportColumn> columns;
  CsvColumns r(columns);
  if (table == "blocks") {
    block_fields(r, BlockFacts{});
  } else if (table == "transactions") {
    transaction_fields(r, TxFacts{});
  } else if (table == "inputs") {
    row_keys(r, TxFacts{});
    input_fields(r, InputFacts{});
  } else if (table == "outputs") {
    row_keys(r, TxFacts{});
    output_fields(r, OutputFacts{});
  }
  return columns;
}

void write_export_headers(const ExportFiles& files) {
  if (files.format != export_format::csv) return;
  row<CsvHeader>(*files.tables[0], [](auto& r) { block_fields(r, BlockFacts{}); });
  row<CsvHeader>(*files.tables[1], [](auto& r) { transaction_fields(r, TxFacts{}); });
  row<CsvHeader>(*files.tables[2], [](auto& r) {
    row_keys(r, TxFacts{});
    input_fields(r, InputFacts{});
  });
  row<CsvHeader>(*files.tables[3], [](auto& r) {
    row_keys(r, TxFacts{});
    output_fields(r, OutputFacts{});
  });
}

void write_export_rows(const ExportFiles& files, const ExportBlock& b) {
  const BlockView& view = b.block;
  const BlockHeader& h = view.header();
  const std::size_t count = view.transaction_count();
  // Undo data of another shape is not this block's: left out.
  const BlockUndo* undo = b.undo != nullptr && b.undo->transactions.size() + 1 == count ? b.undo : nullptr;
  BlockFacts facts{b.hash, view.size(), view.stripped_size(), view.weight(), b.height.to_wire(), h, {}, count};
  if (count != 0 && view.transaction(0).is_coinbase()) facts.coinbase_param = view.transaction(0).input(0).script_sig();
  const bool csv = files.format == export_format::csv;
  if (csv) {
    row<CsvRow>(*files.tables[0], [&](auto& r) { block_fields(r, facts); });
  } else {
    row<JsonRow>(*files.tables[0], [&](auto& r) { block_fields(r, facts); });
    files.tables[0]->put('\n');
  }
  for (std::size_t i = 0; i < count; ++i) {
    const TransactionView tx = view.transaction(i);
    TxFacts t{&tx, nullptr, b.net, b.txids[i], b.hash, b.height.to_wire(), h.time, i, {}, {}, {}};
    if (i > 0 && undo != nullptr && undo->transactions[i - 1].coins.size() == tx.input_count()) t.undo = &undo->transactions[i - 1];
    t.output_value = tx.output_total();
    if (tx.is_coinbase()) {
      t.input_value = Amount();
      t.fee = Amount();
    } else if (t.undo != nullptr) {
      t.input_value = input_total(*t.undo);
      t.fee = fee(tx, *t.undo);
    }
    if (!csv) {
      row<JsonRow>(*files.tables[1], [&](auto& r) { transaction_fields(r, t); });
      files.tables[1]->put('\n');
      continue;
    }
    row<CsvRow>(*files.tables[1], [&](auto& r) { transaction_fields(r, t); });
    for (std::size_t j = 0; j < listed_inputs(tx); ++j) {
      row<CsvRow>(*files.tables[2], [&](auto& r) {
        row_keys(r, t);
        input_fields(r, input_facts(t, j));
      });
    }
    for (std::size_t n = 0; n < tx.output_count(); ++n) {
      row<CsvRow>(*files.tables[3], [&](auto& r) {
        row_keys(r, t);
        output_fields(r, output_facts(t, n));
      });
    }
  }
}

namespace {

template <class Row>
void utxo_fields(Row& r, const UtxoRow& u) {
  const ScriptFacts facts = script_facts(u.coin.script_pubkey, u.net);
  r.field("transaction_hash", u.outpoint.txid);
  r.field("index", std::uint64_t{u.outpoint.index});
  r.field("block_number", std::uint64_t{u.coin.height.to_wire()});
  r.field("block_hash", Maybe<BlockHash>{u.block_hash != nullptr, u.block_hash != nullptr ? *u.block_hash : BlockHash::all_zeros()});
  r.field("block_timestamp", Maybe<std::uint64_t>{u.block_timestamp.has_value(), u.block_timestamp.value_or(0)});
  r.field("is_coinbase", u.coin.coinbase);
  r.field("script_hex", Hex{u.coin.script_pubkey});
  r.field("required_signatures", maybe(facts.required));
  r.field("type", facts.type);
  r.field("addresses", Addresses{&facts.address});
  r.field("value", u.coin.value);
}

}  // namespace

void write_utxo_header(export_format f, TextOut& out) {
  if (f != export_format::csv) return;
  const OutPoint none;
  const SpentCoin empty;
  row<CsvHeader>(out, [&](auto& r) { utxo_fields(r, UtxoRow{none, empty, nullptr, std::nullopt, network::mainnet}); });
}

void write_utxo_row(export_format f, TextOut& out, const UtxoRow& u) {
  if (f == export_format::csv) return row<CsvRow>(out, [&](auto& r) { utxo_fields(r, u); });
  row<JsonRow>(out, [&](auto& r) { utxo_fields(r, u); });
  out.put('\n');
}

}  // namespace blockwire::tables
