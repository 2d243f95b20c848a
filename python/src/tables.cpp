// export's tables in memory: the rows the library writes for
// `blockwire export` (write_block_rows, as a shard's, checked the same
// way), written into memory files (memfd) instead of shard files, then
// handed to Python: NDJSON lines as dicts, CSV as a typed DataFrame.
#include "directory_object.hpp"

#include <blockwire/tables/etl_export.hpp>
#include <blockwire/tables/etl_rows.hpp>
#include <blockwire/tables/text_out.hpp>

#include <pybind11/stl.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>

namespace blockwire::python {

namespace {

using tables::export_format;

// One memory file a table, written through the library's TextOut (by its
// /proc/self/fd path: TextOut writes files) and read back after each pass.
class MemoryTables {
 public:
  explicit MemoryTables(export_format f) : format_(f) {
    for (std::size_t i = 0; i < tables::export_tables(f).size(); ++i) {
      const int fd = ::memfd_create("blockwire-table", MFD_CLOEXEC);
      if (fd < 0) raise(error(last_system_error()).in("a memory file for the tables"));
      fds_.emplace_back(fd, ownership::own);
    }
  }

  // The rows of heights [from, to), the text of table number `wanted`
  // (with its header line for CSV). The caller holds the directory's lock.
  result<std::string> write(const BlocksDirectory& dir, std::size_t from, std::size_t to, std::size_t wanted) {
    std::vector<std::unique_ptr<tables::TextOut>> outs;
    std::vector<tables::TextOut*> pointers;
    for (const FileDescriptor& fd : fds_) {
      auto file = tables::CompressedFileWriter::create(("/proc/self/fd/" + std::to_string(fd.get())).c_str(), tables::compression::none);
      if (!file) return file.error().in("a memory file for the tables");
      outs.push_back(std::make_unique<tables::TextOut>(std::move(file).value()));
      pointers.push_back(outs.back().get());
    }
    const tables::ExportFiles files{format_, pointers};
    tables::write_export_headers(files);
    tables::BlockRowsRoom room;
    for (const Height height : BlockCount(to).heights(*Height::checked(from))) {  // (height_range checked them)
      // (a refresh since the range was checked may have shortened the chain)
      if (!dir.chain_size().contains(height)) throw py::index_error("height " + to_string(height) + " is no longer in the best chain");
      auto written = tables::write_block_rows(dir, dir.at_height(height), files, room);
      if (!written) return written.error().in("the block at height " + to_string(height));
    }
    for (auto& out : outs) {
      if (auto r = out->finish(); !r) return r.error().in("a memory file for the tables");
    }
    return read_all(fds_[wanted].get());
  }

 private:
  static result<std::string> read_all(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return last_system_error();
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::pread(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return last_system_error();
      if (n == 0) break;
      done += static_cast<std::size_t>(n);
    }
    text.resize(done);
    return text;
  }

  export_format format_;
  std::vector<FileDescriptor> fds_;
};

std::size_t table_number(export_format f, const std::string& table) {
  const auto names = tables::export_tables(f);
  const auto it = std::find(names.begin(), names.end(), table);
  if (it == names.end()) {
    std::string message = "no table \"" + table + "\" here:";
    for (const auto n : names) message.append(" ").append(n);
    throw py::value_error(message);
  }
  return static_cast<std::size_t>(it - names.begin());
}

std::string write_rows(DirectoryObject& d, MemoryTables& memory, std::size_t from, std::size_t to, std::size_t wanted) {
  result<std::string> text = [&] {
    const Unlocked unlocked;
    const std::shared_lock held(d.lock);
    return memory.write(d.dir, from, to, wanted);
  }();
  return value_or_raise(std::move(text));
}

// NDJSON rows of one table, a block's at a time: json.loads of each line.
struct RowIterator {
  DirectoryPtr dir;
  std::size_t table;
  std::size_t next, stop;
  std::shared_ptr<MemoryTables> memory;
  std::deque<py::object> pending;
  bool busy = false;
};

py::object next_row(RowIterator& it) {
  const Busy one_at_a_time(it.busy);
  while (it.pending.empty()) {
    if (it.next >= it.stop) throw py::stop_iteration();
    const std::string rows = write_rows(*it.dir, *it.memory, it.next, it.next + 1, it.table);
    ++it.next;
    std::string_view text = rows;
    while (!text.empty()) {
      const std::size_t end = text.find('\n');
      it.pending.push_back(parse_json(text.substr(0, end)));
      text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
  }
  py::object row = std::move(it.pending.front());
  it.pending.pop_front();
  return row;
}

}  // namespace

py::object export_rows(const DirectoryPtr& d, const std::string& table, std::int64_t start, std::optional<std::int64_t> stop) {
  const std::size_t number = table_number(export_format::ndjson, table);
  const auto [from, to] = height_range(*d, start, stop);
  return py::cast(RowIterator{d, number, from, to, std::make_shared<MemoryTables>(export_format::ndjson), {}});
}

py::object export_table(const DirectoryPtr& d, const std::string& table, std::int64_t start, std::optional<std::int64_t> stop) {
  const std::size_t number = table_number(export_format::csv, table);
  const auto [from, to] = height_range(*d, start, stop);
  py::module_ pandas;
  try {
    pandas = py::module_::import("pandas");
  } catch (py::error_already_set& e) {
    py::raise_from(e, PyExc_ImportError, "Directory.table needs pandas (Debian: python3-pandas); Directory.rows gives dicts without it");
    throw py::error_already_set();
  }
  MemoryTables memory(export_format::csv);
  const std::string text = write_rows(*d, memory, from, to, number);
  // Each column typed from the same description as the rows: an empty
  // field is null only in a nullable column (elsewhere it is "").
  py::dict types, nulls;
  for (const tables::ExportColumn& c : tables::export_columns(table)) {
    const py::str name(c.name.data(), c.name.size());
    switch (c.kind) {
      case tables::column_kind::integer: types[name] = c.nullable ? "Int64" : "int64"; break;
      case tables::column_kind::boolean: types[name] = c.nullable ? "boolean" : "bool"; break;
      case tables::column_kind::text: types[name] = "object"; break;
    }
    nulls[name] = c.nullable ? py::list(py::make_tuple("")) : py::list();
  }
  const py::object stream = py::module_::import("io").attr("BytesIO")(py::bytes(text.data(), text.size()));
  return pandas.attr("read_csv")(stream, py::arg("dtype") = types, py::arg("keep_default_na") = false, py::arg("na_values") = nulls,
                                 py::arg("true_values") = py::list(py::make_tuple("true")),
                                 py::arg("false_values") = py::list(py::make_tuple("false")));
}

void add_tables(py::module_& m) {
  py::class_<RowIterator>(m, "_RowIterator").def("__iter__", [](RowIterator& it) -> RowIterator& { return it; }).def("__next__", &next_row);
}

}  // namespace blockwire::python
