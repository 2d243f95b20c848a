// blockwire inspect: one block or transaction, summarised or as Core's JSON.
#include "commands.hpp"
#include "directory_options.hpp"
#include "text.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/codec/block_or_transaction.hpp>
#include <blockwire/directory.hpp>
#include <blockwire/tables/core_json.hpp>
#include <blockwire/io/user_input.hpp>
#include <blockwire/undo.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <span>

namespace blockwire::cli {

namespace {

std::string utc(std::uint32_t time) {
  const std::time_t t = time;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

// The block and transaction printers read views: inspect never builds the
// objects, so memory is the input plus offsets, whatever its counts.
int print_block(const BlockView& block, bool json, network net, const ChainInfo* chain, const BlockUndo* undo) {
  const auto checked = check_block(block);
  if (json) {
    tables::JsonWriter out;
    tables::write_block_json(out, block, net, chain, undo != nullptr ? 3 : 2, undo);
    return checked ? ok : bad_data;
  }
  const BlockHeader& h = block.header();
  std::size_t with_witness = 0;
  for (std::size_t i = 0; i < block.transaction_count(); ++i) with_witness += block.transaction(i).has_witness() ? 1 : 0;
  // A block that passed check_block has the root its header names; only a
  // failed one needs its ids hashed again to show the root they give.
  const Hash256 computed = checked ? h.merkle_root : merkle_root(block);
  std::printf("block        %s\n", block_hash(h).to_hex().c_str());
  std::printf("previous     %s\n", h.prev_block.to_hex().c_str());
  std::printf("merkle root  %s (%s)\n", h.merkle_root.to_hex().c_str(),
              computed == h.merkle_root ? "matches the transactions" : ("MISMATCH: the transactions give " + computed.to_hex()).c_str());
  std::printf("time         %s (%u)\n", utc(h.time).c_str(), h.time);
  std::printf("bits         %08x (difficulty %.2f)   nonce %u   version 0x%08x\n", h.bits, tables::difficulty(h.bits), h.nonce,
              static_cast<std::uint32_t>(h.version));
  std::printf("size         %s bytes, %s stripped, weight %s\n", with_commas(block.size()).c_str(),
              with_commas(block.stripped_size()).c_str(), with_commas(block.weight()).c_str());
  std::printf("transactions %s (%s with witness data)\n", with_commas(block.transaction_count()).c_str(),
              with_commas(with_witness).c_str());
  std::printf("check        %s\n", checked ? "ok" : checked.error().message().c_str());
  return checked ? ok : bad_data;
}

int print_transaction(const TransactionView& tx, bool json, network net) {
  if (json) {
    tables::JsonWriter out;
    tables::write_transaction_json(out, tx, net, false);  // decoderawtransaction prints no hex
    return ok;
  }
  // Values come from the input: any int64, so the sum is checked.
  const std::optional<Amount> value = tx.output_total();
  std::printf("transaction  %s\n", tx.txid().to_hex().c_str());
  std::printf("wtxid        %s\n", tx.wtxid().to_hex().c_str());
  std::printf("size         %s bytes, vsize %s, weight %s\n", with_commas(tx.size()).c_str(), with_commas(tx.vsize()).c_str(),
              with_commas(tx.weight()).c_str());
  std::printf("version %u   lock time %u%s\n", tx.version(), tx.lock_time(), tx.is_coinbase() ? "   coinbase" : "");
  std::printf("inputs       %zu%s\n", tx.input_count(), tx.has_witness() ? " (with witness data)" : "");
  if (!value) {
    std::printf("outputs      %zu, values outside the money range\n", tx.output_count());
  } else {
    std::printf("outputs      %zu, %s BTC\n", tx.output_count(), tables::amount_text(*value).c_str());
  }
  return ok;
}

}  // namespace

int inspect(const InspectOptions& options) {
  InspectOptions o = options;
  Readings readings;
  // A record of a blocks directory: its place in the directory's chain,
  // and its undo data when the directory has the same-numbered rev file.
  std::optional<ChainInfo> chain;
  std::optional<BlocksDirectory> directory;  // with the undo data of the record's rev file, when there is one
  std::optional<IndexedBlock> indexed;       // the record's block in the directory's index
  if (o.offset) {
    auto format = record_format_of("inspect", o.input, o.xor_key, o.net, o.net_from_records);
    if (const int* status = std::get_if<int>(&format)) return *status;
    const XorKey key = std::get<RecordFormat>(format).key;
    o.net = std::get<RecordFormat>(format).net;
    auto record = read_block_record(o.input, *o.offset, key, o.net);
    if (!record) {
      const error& e = record.error();
      std::fprintf(
          stderr, "blockwire inspect: %s:%llu: %s%s\n", o.input.c_str(), static_cast<unsigned long long>(*o.offset),
          e.code().message().c_str(),
          e.code() == blockfiles::errc::bad_magic ? " (is the XOR key right? see xor.dat or --xor-key; is it --network's file?)" : "");
      return exit_status_of(e);  // past the end of the file: usage; a damaged record: bad data
    }
    readings.raw = std::move(record).value();
    if (o.json && readings.raw.size() >= header_size) {
      const std::filesystem::path parent = std::filesystem::path(o.input).parent_path();
      const std::string dir = parent.empty() ? "." : parent.string();
      const auto number = block_file_number(std::filesystem::path(o.input).filename().string());
      std::error_code ec;
      BlocksDirectory::Options options;
      options.key = key;
      options.net = o.net;
      options.undo = number && std::filesystem::exists(parent / undo_file_name(*number), ec);
      options.undo_file = number;
      auto opened = BlocksDirectory::open(dir, options);
      if (!opened && opened.error().step() == directory::open_step::undo) {
        std::fprintf(stderr, "blockwire inspect: %s\n", opened.error().message().c_str());
        return exit_status_of(opened.error());
      }
      // A directory that cannot be read gives the record no chain: it is shown loose.
      auto header = decode_header(std::span(readings.raw).first(header_size));
      if (opened && header) {
        directory.emplace(std::move(opened).value());
        if (const auto b = directory->index().find(block_hash(header.value()))) {
          chain = directory->index().chain_info(*b);
          indexed = *b;
        }
      }
    }
  } else {
    auto input = read_user_input(o.input, max_block_or_transaction_input);
    if (!input) {
      if (input.error().code() == std::errc::file_too_large) {
        std::fprintf(stderr,
                     "blockwire inspect: %s: longer than any block or transaction (over %s bytes read; a block is at most "
                     "4,000,000 bytes, 8,000,000 hex digits)\n",
                     o.input.c_str(), with_commas(max_block_or_transaction_input).c_str());
        return bad_data;
      }
      std::fprintf(stderr, "blockwire inspect: cannot read %s: %s\n", o.input.c_str(), input.error().message().c_str());
      return usage_or_io;
    }
    readings = readings_of(std::move(input).value());
  }

  // Hex first when the input is hex, then its bytes as they are: a raw
  // transaction whose bytes happen to be hex digits is still found.
  const auto found = block_or_transaction(readings);
  if (const auto* neither = std::get_if<NeitherBlockNorTransaction>(&found)) {
    if (readings.hex_problem) {
      std::fprintf(stderr, "blockwire inspect: %s is not valid hex (%s), and its bytes are neither a block (%s) nor a transaction (%s)\n",
                   o.input.c_str(), describe_hex_problem(*readings.hex_problem, readings.raw).c_str(), neither->as_block.message().c_str(),
                   neither->as_transaction.message().c_str());
    } else {
      std::fprintf(stderr, "blockwire inspect: %s is neither a block (%s) nor a transaction (%s)\n", o.input.c_str(),
                   neither->as_block.message().c_str(), neither->as_transaction.message().c_str());
    }
    return bad_data;
  }
  const auto& view = std::get<BlockOrTransaction>(found).view;
  if (const auto* tx = std::get_if<TransactionView>(&view)) return print_transaction(*tx, o.json, o.net);
  const BlockView& block = std::get<BlockView>(view);
  std::optional<BlockUndo> undo;
  std::optional<error> no_undo;
  if (directory && directory->has_undo() && indexed) {  // on the best chain or not: a stale block's record is used as well
    auto made = directory->undo_of(*indexed, block);
    if (made) {
      undo = std::move(made).value();
    } else {
      no_undo = made.error();
    }
  }
  const int status = print_block(block, o.json, o.net, chain ? &*chain : nullptr, undo ? &*undo : nullptr);
  if (no_undo) {
    std::fprintf(stderr, "blockwire inspect: %s:%llu: no undo data (%s): its fees and prevouts are left out\n", o.input.c_str(),
                 static_cast<unsigned long long>(*o.offset), no_undo->message().c_str());
    return exit_status_of(*no_undo);
  }
  return status;
}

}  // namespace blockwire::cli
