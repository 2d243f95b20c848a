// What the parts of the Python module share: errors raised as Python
// exceptions, bytes held for the objects that read them, and each part's
// registration (module.cpp calls them in order).
#pragma once

#include <blockwire/io/error.hpp>

#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace blockwire::python {

namespace py = pybind11;

// The exception classes (Error and its subclasses), made once.
void add_errors(py::module_& m);
// Raises the Python exception of `e`'s condition, with its text, code,
// category, condition, offset and context as attributes.
[[noreturn]] void raise(const error& e);

template <class T>
T value_or_raise(result<T>&& r) {
  if (!r) raise(r.error());
  return std::move(r).value();
}
inline void value_or_raise(result<void>&& r) {
  if (!r) raise(r.error());
}

// Bytes that objects read in place: a Python `bytes` (or a memoryview of
// one) whose buffer stays exported while held, since it cannot change; or
// a copy that this owns (of anything writable: a bytearray changed under a
// parsed block would have it read out of bounds).
class HeldBytes {
 public:
  static std::shared_ptr<const HeldBytes> from_python(const py::buffer& data);
  static std::shared_ptr<const HeldBytes> from_vector(std::vector<std::byte>&& bytes);
  HeldBytes(const HeldBytes&) = delete;
  HeldBytes& operator=(const HeldBytes&) = delete;
  ~HeldBytes();
  std::span<const std::byte> span() const noexcept { return span_; }

 private:
  HeldBytes() = default;
  std::span<const std::byte> span_;
  std::vector<std::byte> copy_;
  Py_buffer view_{};
  bool exported_ = false;  // span_ is view_'s, released with this
};

// One Python thread in an iterator's next() at a time, as a generator
// allows (its state changes while the interpreter's lock is released):
// ValueError for a second. Made and checked with the interpreter's lock held.
class Busy {
 public:
  explicit Busy(bool& flag) : flag_(flag) {
    if (flag_) throw py::value_error("iterator already executing");
    flag_ = true;
  }
  Busy(const Busy&) = delete;
  Busy& operator=(const Busy&) = delete;
  ~Busy() { flag_ = false; }

 private:
  bool& flag_;
};

// Whether the interpreter is finalizing (the process is ending: after
// atexit and the join of non-daemon threads).
inline bool interpreter_finalizing() noexcept {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

// The interpreter's lock released for a scope (py::gil_scoped_release's
// work), for one difference. A daemon thread that takes the lock again
// while the interpreter finalizes is ended by CPython (pthread_exit, in
// PyEval_RestoreThread): an unwinding of this thread's C++ frames, which a
// noexcept frame (py::gil_scoped_release's destructor) turns into
// std::terminate, and which would drop the Python objects of pybind11's
// frames above without the interpreter's lock. Such a thread waits here
// for the process's end instead, as Python 3.14 leaves its daemon threads:
// one that comes back once finalizing has begun, and one already waiting
// for the lock then (the unwinding caught here, never let through). The
// thread that finalizes was finalizing when it released the lock: it takes
// it again.
class Unlocked {
 public:
  Unlocked() noexcept : finalizing_(interpreter_finalizing()), state_(PyEval_SaveThread()) {}
  Unlocked(const Unlocked&) = delete;
  Unlocked& operator=(const Unlocked&) = delete;
  ~Unlocked() {
    if (!finalizing_ && interpreter_finalizing()) wait_for_the_end();
    try {
      PyEval_RestoreThread(state_);
    } catch (...) {  // (pthread_exit's unwinding: caught by `...` alone, and never left)
      wait_for_the_end();
    }
  }

 private:
  [[noreturn]] static void wait_for_the_end() noexcept;
  bool finalizing_;
  PyThreadState* state_;
};

// f() with the interpreter's lock released, for work that touches nothing
// of Python: a wait for a directory's lock among it.
template <class F>
auto unlocked_call(F&& f) {
  const Unlocked unlocked;
  return f();
}

void add_codec(py::module_& m);
void add_directory(py::module_& m);
void add_tables(py::module_& m);
void add_utxos(py::module_& m);
void add_export(py::module_& m);

// json.loads(text, parse_float=decimal.Decimal): Core's JSON as its RPC
// clients read it, amounts exact.
py::object parse_core_json(std::string_view text);
// json.loads(text).
py::object parse_json(std::string_view text);
// A path (or text that holds one) as Python's os.fsdecode makes it: bytes
// that are not UTF-8 kept as surrogates, never a UnicodeDecodeError.
py::str filesystem_text(std::string_view text);

}  // namespace blockwire::python
