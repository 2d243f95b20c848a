// The Python Transaction as a type of CPython's own API (why:
// codec_objects.hpp). Its attributes are getters of the type itself; its
// methods, called far less often, are pybind11 functions set on it, which
// parse their arguments and turn C++ exceptions into Python's.
#include "codec_objects.hpp"

#include <blockwire/tables/core_json.hpp>

#include <structmember.h>

#include <cstddef>
#include <new>
#include <string>
#include <type_traits>

namespace blockwire::python {

namespace {

struct Instance {
  PyObject head;  // (PyObject_HEAD)
  TransactionObject t;
  PyObject* weak_references;  // the list weakref.ref(tx) keeps
};
static_assert(std::is_nothrow_move_constructible_v<TransactionObject>);  // make_transaction's placement new

// Made once, with the module, and a reference kept here: a `del` of the
// module's name must not free it under make_transaction.
PyTypeObject* type = nullptr;

TransactionObject& held(PyObject* self) noexcept { return reinterpret_cast<Instance*>(self)->t; }

// `self` of a method: what Transaction.encode(other) would pass too.
TransactionObject& held(py::handle self) {
  if (PyObject_TypeCheck(self.ptr(), type) == 0) throw py::type_error("a blockwire.Transaction is needed");
  return held(self.ptr());
}

// A getter's result, or null with the Python exception set: no C++
// exception may cross into the interpreter.
template <class F>
PyObject* guarded(F&& f) noexcept {
  try {
    return f().release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "an unknown C++ exception");
  }
  return nullptr;
}

PyObject* size_number(std::size_t n) noexcept { return PyLong_FromSize_t(n); }

// A getter of a tuple made at the first reading and kept in `Slot`.
constexpr const char* made_once = "Made at the first reading, then the same tuple.";
template <py::object TransactionObject::*Slot, py::tuple (*Make)(const TransactionView&)>
PyObject* kept_tuple(PyObject* self, void*) noexcept {
  return guarded([&] {
    TransactionObject& t = held(self);
    if (!(t.*Slot)) t.*Slot = Make(t.tx);
    return t.*Slot;
  });
}

PyGetSetDef getters[] = {
    {"txid", [](PyObject* self, void*) { return guarded([&] { return hex_str(txid_of(held(self)).bytes()); }); }, nullptr, nullptr,
     nullptr},
    {"wtxid", [](PyObject* self, void*) { return guarded([&] { return hex_str(held(self).tx.wtxid().bytes()); }); }, nullptr, nullptr,
     nullptr},
    {"version", [](PyObject* self, void*) { return PyLong_FromUnsignedLong(held(self).tx.version()); }, nullptr, nullptr, nullptr},
    {"lock_time", [](PyObject* self, void*) { return PyLong_FromUnsignedLong(held(self).tx.lock_time()); }, nullptr, nullptr, nullptr},
    {"size", [](PyObject* self, void*) { return size_number(held(self).tx.size()); }, nullptr, nullptr, nullptr},
    {"vsize", [](PyObject* self, void*) { return size_number(held(self).tx.vsize()); }, nullptr, nullptr, nullptr},
    {"weight", [](PyObject* self, void*) { return size_number(held(self).tx.weight()); }, nullptr, nullptr, nullptr},
    {"inputs", kept_tuple<&TransactionObject::inputs, &inputs_of>, nullptr, const_cast<char*>(made_once), nullptr},
    {"outputs", kept_tuple<&TransactionObject::outputs, &outputs_of>, nullptr, const_cast<char*>(made_once), nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyObject* repr(PyObject* self) noexcept {
  return guarded([&] { return py::str("<blockwire.Transaction " + txid_of(held(self)).to_hex() + ">"); });
}

PyMemberDef members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(Instance, weak_references), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

void dealloc(PyObject* self) noexcept {
  PyTypeObject* const of = Py_TYPE(self);
  if (reinterpret_cast<Instance*>(self)->weak_references != nullptr) PyObject_ClearWeakRefs(self);
  held(self).~TransactionObject();
  of->tp_free(self);
  Py_DECREF(of);  // an instance of a heap type holds a reference to it
}

}  // namespace

py::object make_transaction(TransactionObject t) {
  PyObject* self = type->tp_alloc(type, 0);
  if (self == nullptr) throw py::error_already_set();
  new (&held(self)) TransactionObject(std::move(t));
  return py::reinterpret_steal<py::object>(self);
}

void add_transaction_type(py::module_& m) {
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(&dealloc)},
      {Py_tp_repr, reinterpret_cast<void*>(&repr)},
      {Py_tp_getset, getters},
      {Py_tp_members, members},
      {Py_tp_doc, const_cast<char*>("A transaction read in place from its bytes.")},
      {0, nullptr},
  };
  // No way to make one from Python, nor a subclass: the module makes them.
#if PY_VERSION_HEX >= 0x030A0000
  constexpr unsigned int flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION;
#else
  constexpr unsigned int flags = Py_TPFLAGS_DEFAULT;
#endif
  static PyType_Spec spec = {"blockwire._blockwire.Transaction", sizeof(Instance), 0, flags, slots};
  PyObject* made = PyType_FromSpec(&spec);
  if (made == nullptr) throw py::error_already_set();
  type = reinterpret_cast<PyTypeObject*>(made);  // PyType_FromSpec's reference, kept
#if PY_VERSION_HEX < 0x030A0000
  type->tp_new = nullptr;  // what the flag does from 3.10: a heap type inherits object's __new__
  PyType_Modified(type);
#endif
  const auto cls = py::reinterpret_borrow<py::object>(made);

  const auto method = [&](const char* name, auto&& f, auto&&... extra) {
    cls.attr(name) = py::cpp_function(std::forward<decltype(f)>(f), py::name(name), py::is_method(cls), extra...);
  };
  method(
      "is_coinbase", [](py::handle self) { return held(self).tx.is_coinbase(); }, "Whether it is a block's first, the coinbase.");
  method(
      "has_witness", [](py::handle self) { return held(self).tx.has_witness(); }, "Whether it carries witness data.");
  method(
      "encode", [](py::handle self) { return bytes_of(held(self).tx.bytes()); }, "Its bytes as on the wire, witness data included.");
  // Protocols 0 and 1 would pickle an object of a type without __new__,
  // which then fails to load: refused at once, as protocol 2 refuses it.
  method(
      "__reduce_ex__", [](py::handle, int) -> py::object { throw py::type_error("cannot pickle 'blockwire.Transaction' object"); },
      py::arg("protocol"));
  method(
      "to_json",
      [](py::handle self, const std::string& net) {
        const TransactionObject& t = held(self);
        const network n = network_named(net);
        return parse_core_json(tables::json_text([&](tables::JsonWriter& out) { tables::write_transaction_json(out, t.tx, n, false); }));
      },
      py::arg("network") = "mainnet", "Core's decoderawtransaction object (amounts as Decimal).");
  m.add_object("Transaction", cls);
}

}  // namespace blockwire::python
