// A chainstate's coins for Python: read_utxos streams them (a batch at a
// time from the library's CoinCursor, the interpreter's lock released while
// LevelDB reads), utxo_set_info is gettxoutsetinfo's summary.
#include "bindings.hpp"

#include <blockwire/directory/core_chainstate.hpp>

#include <pybind11/stl.h>

#include <memory>
#include <vector>

namespace blockwire::python {

namespace {

// A coin as a named tuple (a struct sequence: as cheap to make as a tuple).
PyTypeObject* coin_type = nullptr;

PyStructSequence_Field coin_fields[] = {
    {"txid", "the transaction's id (hex, as Core prints it)"},
    {"vout", "the output's index"},
    {"height", "of the block that created it"},
    {"coinbase", "created by a coinbase"},
    {"value", "in satoshis"},
    {"script_pubkey", "the output's script"},
    {nullptr, nullptr},
};
PyStructSequence_Desc coin_desc = {"blockwire.Coin", "A coin of the UTXO set.", coin_fields, 6};

struct CoinRecord {
  OutPoint outpoint;
  SpentCoin coin;
};

// Coins read a batch at a time, handed out one by one.
class Coins {
 public:
  static constexpr std::size_t batch = 4096;
  explicit Coins(CoinCursor cursor) : cursor_(std::make_unique<CoinCursor>(std::move(cursor))) {}

  std::optional<std::string> best_block() const {
    const auto& best = cursor_->best_block();
    if (!best) return std::nullopt;
    return best->to_hex();
  }

  py::object next() {
    const Busy one_at_a_time(busy_);
    if (at_ == records_.size()) refill();
    if (at_ == records_.size()) throw py::stop_iteration();
    const CoinRecord& c = records_[at_++];
    PyObject* made = PyStructSequence_New(coin_type);
    if (made == nullptr) throw py::error_already_set();
    const py::object coin = py::reinterpret_steal<py::object>(made);
    const std::string txid = c.outpoint.txid.to_hex();
    const auto& script = c.coin.script_pubkey;
    PyObject* fields[] = {
        PyUnicode_FromStringAndSize(txid.data(), static_cast<Py_ssize_t>(txid.size())),
        PyLong_FromUnsignedLong(c.outpoint.index),
        PyLong_FromUnsignedLong(c.coin.height.to_wire()),
        PyBool_FromLong(c.coin.coinbase ? 1 : 0),
        PyLong_FromLongLong(c.coin.value.to_sat()),
        PyBytes_FromStringAndSize(reinterpret_cast<const char*>(script.data()), static_cast<Py_ssize_t>(script.size())),
    };
    bool failed = false;
    for (std::size_t i = 0; i < std::size(fields); ++i) {
      // (a field that could not be made is left out: the coin is dropped whole)
      if (fields[i] == nullptr) {
        failed = true;
      } else {
        PyStructSequence_SET_ITEM(made, static_cast<Py_ssize_t>(i), fields[i]);
      }
    }
    if (failed) throw py::error_already_set();
    return coin;
  }

 private:
  void refill() {
    records_.clear();
    at_ = 0;
    if (done_) return;
    std::optional<error> failed;
    {
      const Unlocked unlocked;
      while (records_.size() < batch) {
        auto c = cursor_->next();
        if (!c) {
          failed = c.error();
          break;
        }
        if (c.value() == nullptr) {
          done_ = true;
          break;
        }
        records_.push_back({c.value()->outpoint, c.value()->coin});
      }
    }
    if (failed) {
      // The coins read before it are not handed out after the error.
      records_.clear();
      done_ = true;
      raise(*failed);
    }
  }

  std::unique_ptr<CoinCursor> cursor_;
  std::vector<CoinRecord> records_;
  std::size_t at_ = 0;
  bool done_ = false;
  bool busy_ = false;
};

}  // namespace

void add_utxos(py::module_& m) {
  coin_type = PyStructSequence_NewType(&coin_desc);
  if (coin_type == nullptr) throw py::error_already_set();
  m.attr("Coin") = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(coin_type));

  py::class_<Coins>(m, "Coins", "A chainstate's coins in key order (by txid's bytes, then vout), read as they are reached.")
      .def_property_readonly("best_block", &Coins::best_block)
      .def("__iter__", [](Coins& c) -> Coins& { return c; })
      .def("__next__", &Coins::next);

  py::class_<UtxoSetInfo>(m, "UtxoSetInfo", "What Core's gettxoutsetinfo (hash_serialized_3) says of a set.")
      .def_property_readonly("best_block", [](const UtxoSetInfo& i) { return i.best_block.to_hex(); })
      .def_readonly("transactions", &UtxoSetInfo::transactions)
      .def_readonly("txouts", &UtxoSetInfo::txouts)
      .def_readonly("bogosize", &UtxoSetInfo::bogosize)
      .def_property_readonly("total_amount",
                             [](const UtxoSetInfo& i) -> std::optional<std::int64_t> {
                               if (!i.total_amount) return std::nullopt;
                               return i.total_amount->to_sat();
                             })
      .def_property_readonly("hash_serialized_3", [](const UtxoSetInfo& i) { return i.hash_serialized_3.to_hex(); });

  m.def(
      "read_utxos",
      [](const std::string& chainstate) {
        auto cursor = unlocked_call([&] { return CoinCursor::open(chainstate); });
        if (!cursor) raise(cursor.error().in(chainstate));
        return Coins(std::move(cursor).value());
      },
      py::arg("chainstate"), "Every coin of a chainstate (a node's, or the set fetch keeps), streamed from one snapshot.");
  m.def(
      "utxo_set_info",
      [](const std::string& chainstate) {
        auto info = unlocked_call([&] { return core_utxo_set_info(chainstate); });
        if (!info) raise(info.error().in(chainstate));
        return std::move(info).value();
      },
      py::arg("chainstate"), "gettxoutsetinfo's summary of a chainstate, read in one pass.");
}

}  // namespace blockwire::python
