// blockwire inspect: one block or transaction, summarised or as Core's JSON.
#include "commands.hpp"
#include "core_json.hpp"
#include "input.hpp"
#include "text.hpp"
#include "xor_key.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>

#include <cstdio>
#include <ctime>
#include <iostream>

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

int print_block(const Block& block, bool json) {
  const auto checked = check_block(block);
  if (json) {
    std::cout << block_json(block).dump(2) << '\n';
    return checked ? ok : bad_data;
  }
  const BlockHeader& h = block.header;
  const std::size_t size = serialized_size(block);
  const std::size_t stripped = serialized_size(block, witness::disallow);
  std::size_t with_witness = 0;
  for (const Transaction& tx : block.transactions) with_witness += tx.has_witness() ? 1 : 0;
  const Hash256 computed = merkle_root(block);
  std::printf("block        %s\n", block_hash(h).to_hex().c_str());
  std::printf("previous     %s\n", h.prev_block.to_hex().c_str());
  std::printf("merkle root  %s (%s)\n", h.merkle_root.to_hex().c_str(),
              computed == h.merkle_root ? "matches the transactions" : ("MISMATCH: the transactions give " + computed.to_hex()).c_str());
  std::printf("time         %s (%u)\n", utc(h.time).c_str(), h.time);
  std::printf("bits         %08x (difficulty %.2f)   nonce %u   version 0x%08x\n", h.bits, difficulty(h.bits), h.nonce,
              static_cast<std::uint32_t>(h.version));
  std::printf("size         %s bytes, %s stripped, weight %s\n", with_commas(size).c_str(), with_commas(stripped).c_str(),
              with_commas(weight(block)).c_str());
  std::printf("transactions %s (%s with witness data)\n", with_commas(block.transactions.size()).c_str(),
              with_commas(with_witness).c_str());
  std::printf("check        %s\n", checked ? "ok" : checked.error().message().c_str());
  return checked ? ok : bad_data;
}

int print_transaction(const Transaction& tx, bool json) {
  if (json) {
    std::cout << transaction_json(tx).dump(2) << '\n';
    return ok;
  }
  const std::size_t size = serialized_size(tx);
  // Values come from the input: any int64, so the sum is checked.
  std::int64_t value = 0;
  bool in_range = true;
  for (const TxOut& out : tx.outputs) in_range = in_range && out.value >= 0 && !__builtin_add_overflow(value, out.value, &value);
  std::printf("transaction  %s\n", txid(tx).to_hex().c_str());
  std::printf("wtxid        %s\n", wtxid(tx).to_hex().c_str());
  std::printf("size         %s bytes, vsize %s, weight %s\n", with_commas(size).c_str(), with_commas(vsize(tx)).c_str(),
              with_commas(weight(tx)).c_str());
  std::printf("version %u   lock time %u%s\n", tx.version, tx.lock_time, tx.is_coinbase() ? "   coinbase" : "");
  std::printf("inputs       %zu%s\n", tx.inputs.size(), tx.has_witness() ? " (with witness data)" : "");
  if (!in_range || value > 21'000'000LL * 100'000'000) {
    std::printf("outputs      %zu, values outside the money range\n", tx.outputs.size());
  } else {
    const long long sats = value;
    std::printf("outputs      %zu, %lld.%08lld BTC\n", tx.outputs.size(), sats / 100'000'000, sats % 100'000'000);
  }
  return ok;
}

}  // namespace

int inspect(const InspectOptions& o) {
  std::vector<std::byte> bytes;
  if (o.offset) {
    auto key = resolve_xor_key(o.input, o.xor_key);
    if (!key) {
      std::fprintf(stderr, "blockwire inspect: %s\n", xor_key_problem(o.input, o.xor_key, key.error()).c_str());
      return usage_or_io;
    }
    auto record = read_block_record(o.input, *o.offset, key.value(), o.net);
    if (!record) {
      const error& e = record.error();
      const bool not_a_record = e.code().category() == blockfile_category();
      std::fprintf(stderr, "blockwire inspect: %s:%llu: %s%s\n", o.input.c_str(), static_cast<unsigned long long>(*o.offset),
                   e.code().message().c_str(),
                   e.code() == blockfile_errc::bad_magic ? " (is the XOR key right? see xor.dat or --xor-key; is it --network's file?)" : "");
      // No record at all past the end of the file is a usage error; a damaged one is bad data.
      return not_a_record && e.code() != blockfile_errc::past_end_of_file ? bad_data : usage_or_io;
    }
    bytes = std::move(record).value();
  } else {
    auto input = read_input(o.input);
    if (!input) {
      std::fprintf(stderr, "blockwire inspect: cannot read %s: %s\n", o.input.c_str(), input.error().message().c_str());
      return usage_or_io;
    }
    bytes = decode_if_hex(std::move(input).value());
  }

  auto block = decode_block(bytes);
  if (block) return print_block(block.value(), o.json);
  auto tx = decode_transaction(bytes);
  if (tx) return print_transaction(tx.value(), o.json);
  std::fprintf(stderr, "blockwire inspect: %s is neither a block (%s) nor a transaction (%s)\n", o.input.c_str(),
               block.error().message().c_str(), tx.error().message().c_str());
  return bad_data;
}

}  // namespace blockwire::cli
