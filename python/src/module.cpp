// blockwire's extension module: the library's codec, a node's directory,
// its UTXO set and export's tables, for Python (python/blockwire is the
// package around it; _blockwire.pyi its types).
#include "bindings.hpp"

PYBIND11_MODULE(_blockwire, m) {
  namespace python = blockwire::python;
  m.doc() = "blockwire: the Bitcoin wire format, a node's blocks directory and UTXO set, in C++";
  python::add_errors(m);
  python::add_codec(m);
  python::add_directory(m);
  python::add_tables(m);
  python::add_utxos(m);
  python::add_export(m);
}
