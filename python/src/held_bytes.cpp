#include "bindings.hpp"

#include <unistd.h>

#include <new>

namespace blockwire::python {

namespace {

// Bytes that cannot change while held: a bytes object, or a memoryview of one.
bool immutable(PyObject* o) {
  if (PyBytes_CheckExact(o)) return true;
  return PyMemoryView_Check(o) && PyMemoryView_GET_BASE(o) != nullptr && PyBytes_CheckExact(PyMemoryView_GET_BASE(o));
}

// A buffer's release, run by the interpreter's main thread with its lock held.
int release_later(void* view) {
  auto* v = static_cast<Py_buffer*>(view);
  PyBuffer_Release(v);
  delete v;
  return 0;
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
  // The interpreter's lock is never taken here: at its shutdown that hangs
  // (or ends the process). The owners of an exported buffer are Python
  // objects', dropped by the interpreter with its lock held: released at
  // once. Dropped elsewhere, the release is left to the interpreter's main
  // thread (Py_AddPendingCall needs no lock); once it is finalizing, the
  // export is left to the process's end (the bytes object is never freed).
  if (!Py_IsInitialized()) return;
  if (PyGILState_Check() != 0) {
    PyBuffer_Release(&view_);
    return;
  }
  if (interpreter_finalizing()) return;
  auto* later = new (std::nothrow) Py_buffer(view_);
  if (later != nullptr && Py_AddPendingCall(&release_later, later) != 0) delete later;
}

void Unlocked::wait_for_the_end() noexcept {
  for (;;) ::pause();
}

}  // namespace blockwire::python
