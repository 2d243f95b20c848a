// The tables blockwire export writes, in bitcoin-etl's schema: blocks and
// transactions (with their inputs and outputs nested) as NDJSON, or blocks,
// transactions, inputs and outputs as four flat CSV tables. Each table's
// fields are described once (export_rows.cpp) and written in either format,
// a CSV file's header line from the same description.
#pragma once

#include <blockwire/tables/text_out.hpp>

#include <blockwire/codec.hpp>
#include <blockwire/undo/block_undo.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace blockwire::tables {

enum class export_format { ndjson, csv };
// "ndjson", "csv": the format's name, as the command and Python take it;
// and the format a name names (nothing for another).
std::string_view export_format_name(export_format f) noexcept;
std::optional<export_format> export_format_named(std::string_view name) noexcept;

// The tables of a format, in the order their files are given below.
std::span<const std::string_view> export_tables(export_format f) noexcept;
// "json" or "csv": what a table's file name ends with.
std::string_view export_extension(export_format f) noexcept;

// What a column of a CSV table holds, from the same description as its
// rows: for a reader that types the columns (a DataFrame) rather than
// guessing them from the text. A nullable column's empty field is null;
// in another an empty field is the empty string.
enum class column_kind { integer, boolean, text };
struct ExportColumn {
  std::string_view name;
  column_kind kind;
  bool nullable;
};
// The columns of `table` (one of export_tables(export_format::csv)) in
// order; empty for another name.
std::vector<ExportColumn> export_columns(std::string_view table);

// One shard's open files, one per table of the format.
struct ExportFiles {
  export_format format;
  std::span<TextOut* const> tables;  // export_tables(format) order
};

// What a block's rows are made of. `undo`: the coins its inputs spent (the
// values, types and addresses of its inputs, the fees); null leaves them
// null. `txids`: each transaction's, in order.
struct ExportBlock {
  const BlockView& block;
  Height height;
  const BlockHash& hash;
  std::span<const Txid> txids;
  const BlockUndo* undo;
  network net;
};

// A CSV file's header line, for each table (nothing for NDJSON).
void write_export_headers(const ExportFiles& files);
// The block's row, and a row for each of its transactions (and for CSV,
// each input and output).
void write_export_rows(const ExportFiles& files, const ExportBlock& block);

// A coin of the UTXO set as a row of the utxos table: the output's columns
// as the outputs table has them (the two join on transaction_hash and
// index), its block's height, and its block's hash and time when known
// (null otherwise).
struct UtxoRow {
  const OutPoint& outpoint;
  const SpentCoin& coin;
  const BlockHash* block_hash;  // null: not known
  std::optional<std::uint32_t> block_timestamp;
  network net;
};
void write_utxo_header(export_format f, TextOut& out);
void write_utxo_row(export_format f, TextOut& out, const UtxoRow& row);

}  // namespace blockwire::tables
