// A script's confirmed history as the protocol lists it: its transactions
// in the chain's order (height, then place in the block), each once, with
// what it paid the script; from the address index's rows and the blocks
// they name (read_script_in_block).
#pragma once

#include <blockwire/codec.hpp>
#include <blockwire/directory/address_index.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/io/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blockwire::electrum::detail {

struct HistoryItem {
  Txid txid = Txid::all_zeros();
  std::uint32_t height = 0;
  std::uint32_t position = 0;  // in its block
};

struct Unspent {
  OutPoint outpoint;
  std::uint32_t height = 0;
  std::uint32_t position = 0;
  Amount value;
};

// Either the items, or why not: the index's or a block's error, or too
// many transactions (more than `limit`: none read).
struct History {
  std::vector<HistoryItem> items;
  std::vector<Unspent> unspent;  // when asked for
  std::optional<error> failure;
  bool too_large = false;
};

History history_of(const BlocksDirectory& dir, const AddressIndex& addresses, const ScriptHash& script, std::uint64_t limit,
                   bool with_unspent);

// The status the protocol defines: the SHA-256 of "txid:height:" for each
// item in order, in hex; none for an empty history.
std::optional<std::string> status_of(const std::vector<HistoryItem>& items);

}  // namespace blockwire::electrum::detail
