// The Python objects of blocks and transactions, for the parts that make
// them (codec.cpp, directory.cpp): each reads bytes it keeps alive.
#pragma once

#include "bindings.hpp"

#include <blockwire/codec.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/io/hex.hpp>

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

// A transaction: a view of bytes its owner keeps (a block's, or its own),
// what the Python Transaction holds (transaction_type.cpp). Its inputs and
// outputs are tuples made at the first reading and kept (made at each
// reading, tx.inputs[i] in a loop over i was quadratic); made, read and
// dropped with the interpreter's lock held, as the Python object that owns
// this is.
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

// The Python Transaction holding `t`. Its type is CPython's own, not a
// pybind11 class: a loop over a block makes one object per transaction and
// reads an attribute or two of each, and a pybind11 instance costs an
// entry in pybind11's registry and a value allocated apart, each attribute
// a call through its dispatcher (python/DESIGN.md has the figures).
py::object make_transaction(TransactionObject t);
// Adds the type to the module as "Transaction".
void add_transaction_type(py::module_& m);

// The transaction's txid: a block's from the block's txids, hashed side
// by side at the first one asked for; a lone transaction's its own.
Txid txid_of(const TransactionObject& t);
// Its inputs and outputs as tuples of Input and Output (codec.cpp's).
py::tuple inputs_of(const TransactionView& tx);
py::tuple outputs_of(const TransactionView& tx);
// Bytes as a Python bytes object.
py::bytes bytes_of(std::span<const std::byte> b);

// A hash's 64 hex digits in display order, as a str written in place.
inline py::str hex_str(std::span<const std::byte, 32> hash) {
  PyObject* s = PyUnicode_New(64, 127);
  if (s == nullptr) throw py::error_already_set();
  to_hex_reversed(hash, static_cast<char*>(PyUnicode_DATA(s)));
  return py::reinterpret_steal<py::str>(s);
}

// Parses `bytes` as one block, the interpreter's lock released meanwhile.
std::shared_ptr<BlockData> block_of(std::shared_ptr<const HeldBytes> bytes);

// A network from its name ("mainnet", "regtest", ...); ValueError for another.
network network_named(const std::string& name);

}  // namespace blockwire::python
