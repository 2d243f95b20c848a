#include "bindings.hpp"

#include <blockwire/io/error.hpp>

#include <algorithm>
#include <iterator>

namespace blockwire::python {

namespace {

// Made by add_errors, kept for the interpreter's life (the module holds them too).
PyObject* base_error = nullptr;
PyObject* data_error = nullptr;
PyObject* io_failure = nullptr;
PyObject* usage_error = nullptr;
// What the JSON is parsed with, imported when the module is (an import in a
// function's static would run Python code inside C++'s initialization
// guard, where another thread could wait for it holding the interpreter's
// lock); never released, as the module's types are not.
PyObject* json_loads = nullptr;
PyObject* decimal_type = nullptr;

PyObject* make_class(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  std::string qualified = "blockwire.";
  qualified += name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (type == nullptr) throw py::error_already_set();
  m.attr(name) = py::reinterpret_borrow<py::object>(type);
  return type;
}

// Each condition's name, and the class raised for it (a peer's: Error).
struct ConditionClass {
  condition is;
  const char* name;
  PyObject* const* type;
};
constexpr ConditionClass condition_classes[] = {
    {condition::io, "io", &io_failure},
    {condition::bad_data, "bad_data", &data_error},
    {condition::usage, "usage", &usage_error},
    {condition::peer, "peer", &base_error},
};

}  // namespace

void add_errors(py::module_& m) {
  base_error =
      make_class(m, "Error", PyExc_Exception, "A failure of the library, in its words (code, category, condition, offset, context).");
  const auto bases = [](PyObject* second) { return py::make_tuple(py::handle(base_error), py::handle(second)); };
  data_error =
      make_class(m, "DataError", bases(PyExc_ValueError).ptr(), "The bytes are wrong: they do not decode, do not check, or are not there.");
  io_failure = make_class(m, "IOFailure", bases(PyExc_OSError).ptr(), "The system failed: a file, the disk, a lock another process holds.");
  usage_error = make_class(m, "UsageError", bases(PyExc_ValueError).ptr(), "The caller asked for what cannot be.");
  json_loads = py::object(py::module_::import("json").attr("loads")).release().ptr();
  decimal_type = py::object(py::module_::import("decimal").attr("Decimal")).release().ptr();
}

void raise(const error& e) {
  const std::error_code& code = e.code();
  // The class and the exit status from the library's one reading of the
  // failure (kind_of: its condition, as its step reads it).
  const condition kind = kind_of(e);
  const auto found =
      std::find_if(std::begin(condition_classes), std::end(condition_classes), [&](const ConditionClass& c) { return c.is == kind; });
  const ConditionClass* cond = found != std::end(condition_classes) ? found : nullptr;  // (none: a code of no condition)
  PyObject* const type = cond != nullptr ? *cond->type : base_error;
  // A system's error made as OSError(errno, strerror) is: its errno and
  // strerror are then its arguments, which pickling keeps (a Dask task's
  // failure crosses to the caller pickled); str(e) is "[Errno N] " and the
  // whole message. The rest of the attributes are the instance's dict's,
  // which pickling keeps too.
  const bool system = type == io_failure && (code.category() == std::system_category() || code.category() == std::generic_category());
  py::object instance = system ? py::reinterpret_borrow<py::object>(type)(code.value(), filesystem_text(e.message()))
                               : py::reinterpret_borrow<py::object>(type)(filesystem_text(e.message()));
  instance.attr("code") = code.value();
  instance.attr("category") = code.category().name();
  instance.attr("condition") = cond != nullptr ? py::object(py::str(cond->name)) : py::object(py::none());
  const std::error_code step = e.step();
  instance.attr("step") = step ? py::object(py::str(std::string(step.category().name()) + ":" + step.message())) : py::object(py::none());
  instance.attr("exit_status") = exit_status_of(e);
  instance.attr("offset") = e.has_offset() ? py::object(py::int_(e.offset())) : py::object(py::none());
  instance.attr("context") = filesystem_text(e.context());
  PyErr_SetObject(type, instance.ptr());
  throw py::error_already_set();
}

py::object parse_core_json(std::string_view text) {
  return py::handle(json_loads)(py::str(text.data(), text.size()), py::arg("parse_float") = py::handle(decimal_type));
}

py::object parse_json(std::string_view text) { return py::handle(json_loads)(py::str(text.data(), text.size())); }

py::str filesystem_text(std::string_view text) {
  PyObject* s = PyUnicode_DecodeFSDefaultAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

}  // namespace blockwire::python
