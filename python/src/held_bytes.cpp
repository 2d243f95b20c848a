#include "bindings.hpp"

namespace blockwire::python {

namespace {

// Bytes that cannot change while held: a bytes object, or a memoryview of one.
bool immutable(PyObject* o) {
  if (PyBytes_CheckExact(o)) return true;
  return PyMemoryView_Check(o) && PyMemoryView_GET_BASE(o) != nullptr && PyBytes_CheckExact(PyMemoryView_GET_BASE(o));
}

}  // namespace

std::shared_ptr<const HeldBytes> HeldBytes::from_python(const py::buffer& data) {
  std::shared_ptr<HeldBytes> held(new HeldBytes());
  Py_buffer& view = held->view_;
  if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) throw py::error_already_set();
  const auto* p = static_cast<const std::byte*>(view.buf);
  if (immutable(data.ptr())) {
    // The export is kept: a memoryview cannot be released under it.
    held->exported_ = true;
    held->span_ = {p, static_cast<std::size_t>(view.len)};
  } else {
    try {
      held->copy_.assign(p, p + view.len);
    } catch (...) {
      PyBuffer_Release(&view);
      throw;
    }
    held->span_ = held->copy_;
    PyBuffer_Release(&view);
  }
  return held;
}

std::shared_ptr<const HeldBytes> HeldBytes::from_vector(std::vector<std::byte>&& bytes) {
  std::shared_ptr<HeldBytes> held(new HeldBytes());
  held->copy_ = std::move(bytes);
  held->span_ = held->copy_;
  return held;
}

HeldBytes::~HeldBytes() {
  if (!exported_) return;
  // The last owner may be dropped where the interpreter's lock is not held.
  const py::gil_scoped_acquire gil;
  PyBuffer_Release(&view_);
}

}  // namespace blockwire::python
