// The Python objects of blocks and transactions, for the parts that make
// them (codec.cpp, directory.cpp): each reads bytes it keeps alive.
#pragma once

#include "bindings.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/codec/hashes.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace blockwire::python {

// A block read in place: its bytes and its offsets. Shared by the Python
// Block and by every Transaction taken from it.
struct BlockData {
  BlockData(std::shared_ptr<const HeldBytes> b, BlockView v) : bytes(std::move(b)), view(std::move(v)) {}
  std::shared_ptr<const HeldBytes> bytes;
  BlockView view;

  // Every transaction's txid, hashed once for the block, several side by
  // side (txids): by txids(), or ahead by the thread that read the block
  // while Python was busy with the one before.
  const std::vector<Txid>& txids() const {
    std::call_once(txids_once_, [this] {
      txids_.resize(view.transaction_count(), Txid::all_zeros());
      blockwire::txids(view, 0, txids_);
      hashed_.store(true, std::memory_order_release);
    });
    return txids_;
  }
  // Transaction i's txid when the block's were hashed already, else null.
  const Txid* txid_if_hashed(std::size_t i) const noexcept { return hashed_.load(std::memory_order_acquire) ? &txids_[i] : nullptr; }

 private:
  mutable std::once_flag txids_once_;
  mutable std::vector<Txid> txids_;
  mutable std::atomic<bool> hashed_{false};
};

// A transaction: a view of bytes its owner keeps (a block's, or its own). Its inputs and outputs are tuples
// made at the first reading and kept (each reading made them all again:
// tx.inputs[i] in a loop over i was quadratic); made, read and dropped with
// the interpreter's lock held, as the Python object that owns this is.
struct TransactionObject {
  TransactionObject(std::shared_ptr<const void> o, TransactionView t) : owner(std::move(o)), tx(std::move(t)) {}
  std::shared_ptr<const void> owner;
  TransactionView tx;
  // A block's transaction: its block (the owner) and place in it. Its
  // txid, asked for, hashes every txid of the block side by side
  // (BlockData::txids): a loop over the block's transactions pays for
  // the block's hashing once, at the rate of txids().
  const BlockData* block = nullptr;
  std::size_t index = 0;
  py::object inputs, outputs;  // none until read
};

// Parses `bytes` as one block, the interpreter's lock released meanwhile.
std::shared_ptr<BlockData> block_of(std::shared_ptr<const HeldBytes> bytes);

// A network from its name ("mainnet", "regtest", ...); ValueError for another.
network network_named(const std::string& name);

}  // namespace blockwire::python
