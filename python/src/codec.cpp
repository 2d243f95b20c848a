#include "codec_objects.hpp"

#include <blockwire/codec/address.hpp>
#include <blockwire/codec/script.hpp>

#include <pybind11/stl.h>

#include <string>

namespace blockwire::python {

py::bytes bytes_of(std::span<const std::byte> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

namespace {

struct OutPointObject {
  std::string txid;
  std::uint32_t vout;
};

struct InputObject {
  OutPointObject prevout;
  py::bytes script_sig;
  py::list witness;
  std::uint32_t sequence;
};

struct OutputObject {
  std::int64_t value;
  py::bytes script_pubkey;
  std::span<const std::byte> script() const {
    return {reinterpret_cast<const std::byte*>(PyBytes_AS_STRING(script_pubkey.ptr())),
            static_cast<std::size_t>(PyBytes_GET_SIZE(script_pubkey.ptr()))};
  }
};

py::object transaction_of(const std::shared_ptr<const BlockData>& block, std::size_t i) {
  TransactionObject t{block, block->view.transaction(i)};
  t.block = block.get();
  t.index = i;
  return make_transaction(std::move(t));
}

// A block's transactions as a sequence, each made when it is asked for
// (iterated: all made at once, into a list the interpreter iterates).
struct TransactionList {
  std::shared_ptr<const BlockData> block;
  py::object at(std::ptrdiff_t i) const {
    const auto n = static_cast<std::ptrdiff_t>(block->view.transaction_count());
    if (i < 0) i += n;
    if (i < 0 || i >= n) throw py::index_error("transaction index out of range");
    return transaction_of(block, static_cast<std::size_t>(i));
  }
};

std::string header_repr(const BlockHeader& h) { return "<blockwire.BlockHeader " + block_hash(h).to_hex() + ">"; }

}  // namespace

py::tuple inputs_of(const TransactionView& tx) {
  py::tuple out(tx.input_count());
  std::size_t i = 0;
  for (const InputView in : tx.inputs()) {
    py::list witness(in.witness().size());
    std::size_t k = 0;
    for (const auto item : in.witness()) witness[k++] = bytes_of(item);
    out[i++] = py::cast(
        InputObject{{in.prevout().txid.to_hex(), in.prevout().index}, bytes_of(in.script_sig()), std::move(witness), in.sequence()});
  }
  return out;
}

py::tuple outputs_of(const TransactionView& tx) {
  py::tuple out(tx.output_count());
  std::size_t i = 0;
  for (const OutputView o : tx.outputs()) out[i++] = py::cast(OutputObject{o.value().to_sat(), bytes_of(o.script_pubkey())});
  return out;
}

Txid txid_of(const TransactionObject& t) {
  if (t.block == nullptr) return t.tx.txid();
  if (const Txid* hashed = t.block->txid_if_hashed(t.index)) return *hashed;
  const Unlocked unlocked;  // (the block's first: hashed with the lock released)
  return t.block->txids()[t.index];
}

network network_named(const std::string& name) {
  const auto net = network_from_name(name);
  if (!net) throw py::value_error("unknown network \"" + name + "\": mainnet, testnet3, testnet4, signet or regtest");
  return *net;
}

std::shared_ptr<BlockData> block_of(std::shared_ptr<const HeldBytes> bytes) {
  result<BlockView> view = [&] {
    const Unlocked unlocked;
    return BlockView::parse(bytes->span());
  }();
  if (!view) raise(view.error());
  return std::make_shared<BlockData>(std::move(bytes), std::move(view).value());
}

void add_codec(py::module_& m) {
  py::class_<OutPointObject>(m, "OutPoint", "A transaction's output that an input spends.")
      .def_readonly("txid", &OutPointObject::txid)
      .def_readonly("vout", &OutPointObject::vout)
      .def(
          "__eq__", [](const OutPointObject& a, const OutPointObject& b) { return a.txid == b.txid && a.vout == b.vout; },
          py::is_operator())
      .def("__hash__", [](const OutPointObject& a) { return py::hash(py::make_tuple(a.txid, a.vout)); })
      .def("__iter__", [](const OutPointObject& a) { return py::iter(py::make_tuple(a.txid, a.vout)); })
      .def("__repr__", [](const OutPointObject& a) { return "<blockwire.OutPoint " + a.txid + ":" + std::to_string(a.vout) + ">"; });

  py::class_<InputObject>(m, "Input", "One input of a transaction.")
      .def_readonly("prevout", &InputObject::prevout)
      .def_readonly("script_sig", &InputObject::script_sig)
      .def_readonly("witness", &InputObject::witness)
      .def_readonly("sequence", &InputObject::sequence);

  py::class_<OutputObject>(m, "Output", "One output of a transaction.")
      .def_readonly("value", &OutputObject::value, "In satoshis.")
      .def_readonly("script_pubkey", &OutputObject::script_pubkey)
      .def_property_readonly("type", [](const OutputObject& o) { return std::string(name(solve(o.script()).type)); })
      .def(
          "address", [](const OutputObject& o, const std::string& net) { return encode_address(o.script(), network_named(net)); },
          py::arg("network") = "mainnet");

  add_transaction_type(m);

  py::class_<BlockHeader>(m, "BlockHeader", "A block's 80-byte header.")
      .def_property_readonly("hash", [](const BlockHeader& h) { return block_hash(h).to_hex(); })
      .def_readonly("version", &BlockHeader::version)
      .def_property_readonly("prev_block", [](const BlockHeader& h) { return h.prev_block.to_hex(); })
      .def_property_readonly("merkle_root", [](const BlockHeader& h) { return h.merkle_root.to_hex(); })
      .def_readonly("time", &BlockHeader::time)
      .def_readonly("bits", &BlockHeader::bits)
      .def_readonly("nonce", &BlockHeader::nonce)
      .def("encode",
           [](const BlockHeader& h) {
             std::vector<std::byte> out;
             encode_header(h, out);
             return bytes_of(out);
           })
      .def("__repr__", &header_repr);

  py::class_<TransactionList>(m, "Transactions", "A block's transactions, each read when it is asked for.")
      .def("__len__", [](const TransactionList& l) { return l.block->view.transaction_count(); })
      .def("__getitem__", &TransactionList::at)
      .def("__iter__", [](const TransactionList& l) {
        py::list all(l.block->view.transaction_count());
        for (std::size_t i = 0; i < l.block->view.transaction_count(); ++i) all[i] = transaction_of(l.block, i);
        return py::iter(all);
      });

  py::class_<BlockData, std::shared_ptr<BlockData>>(m, "Block", py::buffer_protocol(),
                                                    "A block read in place from its bytes; memoryview(block) gives them without a copy.")
      .def_buffer([](BlockData& b) {
        const auto s = b.view.bytes();
        return py::buffer_info(const_cast<std::byte*>(s.data()), 1, "B", static_cast<py::ssize_t>(s.size()), true);
      })
      .def_property_readonly("hash", [](const BlockData& b) { return block_hash(b.view.header()).to_hex(); })
      .def_property_readonly("header", [](const BlockData& b) { return b.view.header(); })
      .def_property_readonly("transactions", [](const std::shared_ptr<BlockData>& b) { return TransactionList{b}; })
      .def_property_readonly("size", [](const BlockData& b) { return b.view.size(); })
      .def_property_readonly("weight", [](const BlockData& b) { return b.view.weight(); })
      .def("txids",
           [](const BlockData& b) {
             const std::vector<Txid>& ids = [&]() -> const std::vector<Txid>& {
               const Unlocked unlocked;
               return b.txids();
             }();
             py::list out(ids.size());
             for (std::size_t i = 0; i < ids.size(); ++i) out[i] = hex_str(ids[i].bytes());
             return out;
           })
      .def("encode", [](const BlockData& b) { return bytes_of(b.view.bytes()); })
      .def("__repr__", [](const BlockData& b) { return "<blockwire.Block " + block_hash(b.view.header()).to_hex() + ">"; });

  m.def(
      "decode_block", [](const py::buffer& data) { return block_of(HeldBytes::from_python(data)); }, py::arg("data"),
      "One block from bytes, bytearray or memoryview (a bytes object is read in place, anything writable copied).");
  m.def(
      "decode_transaction",
      [](const py::buffer& data) {
        auto held = HeldBytes::from_python(data);
        auto tx = TransactionView::parse(held->span());
        // As Core's decoderawtransaction: bytes that are no transaction
        // with witness data may be one without. (A transaction with no
        // inputs reads "00 01" after its version: a marker and flag.)
        if (!tx) {
          if (auto legacy = TransactionView::parse(held->span(), witness::disallow))
            return make_transaction(TransactionObject{held, std::move(legacy).value()});
        }
        return make_transaction(TransactionObject{held, value_or_raise(std::move(tx))});
      },
      py::arg("data"),
      "One transaction from bytes, bytearray or memoryview; as Core's decoderawtransaction, read without witness data when "
      "it is no transaction with it.");
  m.def(
      "decode_header",
      [](const py::buffer& data) {
        auto held = HeldBytes::from_python(data);
        return value_or_raise(decode_header(held->span()));
      },
      py::arg("data"), "A block header from its 80 bytes.");
}

}  // namespace blockwire::python
