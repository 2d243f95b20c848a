// blockwire inspect: one block or transaction, summarised or as Core's JSON.
#include "commands.hpp"
#include "core_json.hpp"
#include "input.hpp"

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
              with_commas(3 * stripped + size).c_str());
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
  const std::size_t weight = 3 * serialized_size(tx, witness::disallow) + size;
  // Values come from the input: any int64, so the sum is checked.
  std::int64_t value = 0;
  bool in_range = true;
  for (const TxOut& out : tx.outputs) in_range = in_range && out.value >= 0 && !__builtin_add_overflow(value, out.value, &value);
  std::printf("transaction  %s\n", txid(tx).to_hex().c_str());
  std::printf("wtxid        %s\n", wtxid(tx).to_hex().c_str());
  std::printf("size         %s bytes, vsize %s, weight %s\n", with_commas(size).c_str(), with_commas((weight + 3) / 4).c_str(),
              with_commas(weight).c_str());
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
    auto key = key_for(o.input, o.xor_key);
    if (!key) {
      std::fprintf(stderr, "blockwire inspect: cannot get the XOR key for %s: %s\n", o.input.c_str(), key.error().message().c_str());
      return usage_or_io;
    }
    std::string what;
    auto record = read_record(o.input, *o.offset, key.value(), o.net, what);
    if (!record) {
      std::fprintf(stderr, "blockwire inspect: %s: %s\n", o.input.c_str(), what.empty() ? record.error().message().c_str() : what.c_str());
      return what.empty() ? usage_or_io : bad_data;
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
