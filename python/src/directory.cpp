#include "codec_objects.hpp"
#include "directory_object.hpp"

#include <blockwire/io/hex.hpp>
#include <blockwire/tables/core_json.hpp>
#include <blockwire/undo.hpp>

#include <pybind11/stl.h>

#include <future>

namespace blockwire::python {

namespace {

// What reading a block at a height gives: its bytes parsed, its place in
// the chain, and its undo data when asked for.
struct ReadBlock {
  IndexedBlock at;
  ChainInfo chain;
  std::shared_ptr<const HeldBytes> bytes;
  BlockView view;
  std::optional<BlockUndo> undo;
};

// The block at a height of the best chain, found, read and parsed under
// one hold of the directory's lock, with the interpreter's lock not held
// and nothing of Python touched (a read-ahead thread's work too).
result<ReadBlock> read_block_at(DirectoryObject& d, std::int64_t height, bool undo) {
  const auto where = [&] { return "the block at height " + std::to_string(height); };
  const std::shared_lock held(d.lock);
  const IndexedBlock at = d.at_held(height);
  auto bytes = d.dir.read_block(at);
  if (!bytes) return bytes.error().in(where());
  ReadBlock r{at, d.dir.index().chain_info(at), HeldBytes::from_vector(std::move(bytes).value()), {}, std::nullopt};
  auto view = BlockView::parse(r.bytes->span());
  if (!view) return view.error().in(where());
  r.view = std::move(view).value();
  if (undo) {
    auto found = d.dir.undo_of(r.at, r.view);
    if (!found) return found.error().in("the undo data of " + where());
    r.undo = std::move(found).value();
  }
  return r;
}

ReadBlock read_at(DirectoryObject& d, std::int64_t height, bool undo) {
  result<ReadBlock> r = [&] {
    const Unlocked unlocked;
    return read_block_at(d, height, undo);
  }();
  return value_or_raise(std::move(r));
}

std::shared_ptr<BlockData> block_data(ReadBlock&& r) { return std::make_shared<BlockData>(std::move(r.bytes), std::move(r.view)); }

// The best chain's blocks one after another, the next read, parsed and its
// txids hashed by a thread of its own while Python works on the one before:
// iterating a directory keeps two cores busy, not one. (What that thread
// fails with, a height the chain no longer has too, comes out of the next
// call.)
class BlockIterator {
 public:
  BlockIterator(DirectoryPtr dir, std::size_t from, std::size_t to) : dir_(std::move(dir)), next_(from), stop_(to) { read_ahead(); }
  BlockIterator(const BlockIterator&) = delete;
  BlockIterator& operator=(const BlockIterator&) = delete;
  // Dropped by the interpreter (its lock held): the read-ahead, which may be
  // waiting for the directory's lock (a refresh holds it), is waited for
  // with the interpreter's lock released, not by the future's destructor.
  ~BlockIterator() {
    if (!ahead_.valid()) return;
    const Unlocked unlocked;
    ahead_.wait();
  }

  std::shared_ptr<BlockData> next() {
    const Busy one_at_a_time(busy_);
    if (!ahead_.valid()) throw py::stop_iteration();
    result<std::shared_ptr<BlockData>> block = [&] {
      const Unlocked unlocked;
      return ahead_.get();
    }();
    read_ahead();
    return value_or_raise(std::move(block));
  }

 private:
  void read_ahead() {
    if (next_ >= stop_) return;
    const auto height = static_cast<std::int64_t>(next_++);
    ahead_ = std::async(std::launch::async, [dir = dir_, height] {
      auto r = read_block_at(*dir, height, false);
      if (!r) return result<std::shared_ptr<BlockData>>(r.error());
      auto block = block_data(std::move(r).value());
      block->txids();
      return result<std::shared_ptr<BlockData>>(std::move(block));
    });
  }

  DirectoryPtr dir_;
  std::size_t next_, stop_;
  std::future<result<std::shared_ptr<BlockData>>> ahead_;
  bool busy_ = false;
};

bool has_undo(const DirectoryObject& d) {
  const std::shared_lock held(d.lock);
  return d.dir.has_undo();
}

}  // namespace

std::pair<std::size_t, std::size_t> height_range(const DirectoryObject& d, std::int64_t start, std::optional<std::int64_t> stop) {
  const auto size = static_cast<std::int64_t>(unlocked_call([&] { return d.size(); }));
  const std::int64_t end = stop.value_or(size);
  if (start < 0 || start > size)
    throw py::index_error("start " + std::to_string(start) + " is not a height of the chain (0 to " + std::to_string(size) + ")");
  if (end < start || end > size)
    throw py::index_error("stop " + std::to_string(end) + " is not between start and the chain's length (" + std::to_string(size) + ")");
  return {static_cast<std::size_t>(start), static_cast<std::size_t>(end)};
}

void add_directory(py::module_& m) {
  py::class_<SpentCoin>(m, "SpentCoin", "A coin an input spent, as the rev files keep it.")
      .def_property_readonly("height", [](const SpentCoin& c) { return c.height.to_wire(); })
      .def_readonly("coinbase", &SpentCoin::coinbase)
      .def_property_readonly("value", [](const SpentCoin& c) { return c.value.to_sat(); })
      .def_property_readonly("script_pubkey", [](const SpentCoin& c) {
        return py::bytes(reinterpret_cast<const char*>(c.script_pubkey.data()), c.script_pubkey.size());
      });

  py::class_<BlockIterator>(m, "_BlockIterator")
      .def("__iter__", [](BlockIterator& it) -> BlockIterator& { return it; })
      .def("__next__", &BlockIterator::next);

  py::class_<DirectoryObject, DirectoryPtr>(m, "Directory", "A node's (or blockwire's) blocks directory, its best chain by height.")
      .def_property_readonly("path", [](const DirectoryObject& d) { return filesystem_text(d.path); })
      // (Each of these waits for the directory's lock, which a refresh may
      // hold for long, with the interpreter's released: call_guard, where
      // the function touches nothing of Python; its result is made a
      // Python object after.)
      .def_property_readonly("network", py::cpp_function(
                                            [](const DirectoryObject& d) {
                                              const std::shared_lock held(d.lock);
                                              return std::string(name(d.dir.net()));
                                            },
                                            py::call_guard<Unlocked>()))
      .def_property_readonly("prune_height", py::cpp_function(
                                                 [](const DirectoryObject& d) {
                                                   const std::shared_lock held(d.lock);
                                                   return d.dir.prune_height().to_wire();
                                                 },
                                                 py::call_guard<Unlocked>()))
      .def_property_readonly("has_undo", py::cpp_function(&has_undo, py::call_guard<Unlocked>()))
      .def_property_readonly("damaged", py::cpp_function(
                                            [](const DirectoryObject& d) {
                                              const std::shared_lock held(d.lock);
                                              return d.dir.damaged();
                                            },
                                            py::call_guard<Unlocked>()))
      .def_property_readonly("notes", py::cpp_function(
                                          [](const DirectoryObject& d) {
                                            const std::shared_lock held(d.lock);
                                            return std::vector<std::string>(d.dir.notes().begin(), d.dir.notes().end());
                                          },
                                          py::call_guard<Unlocked>()))
      .def("__len__", &DirectoryObject::size, py::call_guard<Unlocked>())
      .def(
          "block_hash", [](const DirectoryObject& d, std::int64_t h) { return d.at(h).hash.to_hex(); }, py::arg("height"),
          py::call_guard<Unlocked>())
      .def(
          "time", [](const DirectoryObject& d, std::int64_t h) { return d.at(h).time; }, py::arg("height"), py::call_guard<Unlocked>(),
          "The block's header time, from the index (nothing read).")
      .def(
          "header",
          [](DirectoryObject& d, std::int64_t h) {
            result<BlockHeader> header = [&] {
              const Unlocked unlocked;
              const std::shared_lock held(d.lock);
              return d.dir.index().header(d.at_held(h));
            }();
            return value_or_raise(std::move(header));
          },
          py::arg("height"))
      .def(
          "block", [](DirectoryObject& d, std::int64_t h) { return block_data(read_at(d, h, false)); }, py::arg("height"))
      .def(
          "undo",
          [](DirectoryObject& d, std::int64_t h) {
            ReadBlock r = read_at(d, h, true);
            py::list out;
            for (TxUndo& tx : r.undo->transactions) out.append(py::cast(std::move(tx.coins)));
            return out;
          },
          py::arg("height"), "The coins each transaction's inputs spent, the coinbase's left out (as the rev files keep them).")
      .def(
          "fee",
          [](DirectoryObject& d, std::int64_t h) -> std::optional<std::int64_t> {
            ReadBlock r = read_at(d, h, true);
            std::optional<Amount> total = Amount();
            for (const auto& f : fees(*r.undo, r.view)) total = f && total ? checked_add(*total, *f) : std::nullopt;
            if (!total) return std::nullopt;
            return total->to_sat();
          },
          py::arg("height"), "The block's total fee in satoshis, from the rev files (None where a value leaves the money range).")
      .def(
          "blocks",
          [](const DirectoryPtr& d, std::int64_t start, std::optional<std::int64_t> stop) {
            const auto [from, to] = height_range(*d, start, stop);
            return std::make_unique<BlockIterator>(d, from, to);
          },
          py::arg("start") = 0, py::arg("stop") = py::none(), "The best chain's blocks from `start`, each read as it is reached.")
      .def(
          "getblock",
          [](DirectoryObject& d, std::int64_t h, int verbosity) -> py::object {
            if (verbosity < 0 || verbosity > 3) throw py::value_error("verbosity " + std::to_string(verbosity) + ": 0, 1, 2 or 3");
            ReadBlock r = read_at(d, h, verbosity >= 2 && h > 0 && unlocked_call([&] { return has_undo(d); }));
            if (verbosity == 0) return py::str(to_hex(r.view.bytes()));
            std::string text;
            {
              const Unlocked unlocked;
              const network net = [&] {
                const std::shared_lock held(d.lock);
                return d.dir.net();
              }();
              text = tables::json_text([&](tables::JsonWriter& out) {
                tables::write_block_json(out, r.view, net, &r.chain, verbosity, r.undo ? &*r.undo : nullptr);
              });
            }
            return parse_core_json(text);
          },
          py::arg("height"), py::arg("verbosity") = 1, "Core's getblock: hex at 0, else its object (amounts as Decimal).")
      .def("rows", &export_rows, py::arg("table"), py::arg("start") = 0, py::arg("stop") = py::none(),
           "export's NDJSON rows of a table (blocks, transactions) as dicts, a block's at a time.")
      .def("table", &export_table, py::arg("table"), py::arg("start") = 0, py::arg("stop") = py::none(),
           "export's CSV table (blocks, transactions, inputs, outputs) of the heights as a pandas DataFrame.")
      .def("refresh",
           [](DirectoryObject& d) {
             result<bool> moved = [&] {
               const Unlocked unlocked;
               const std::unique_lock alone(d.lock);
               return d.dir.refresh();
             }();
             return value_or_raise(std::move(moved));
           })
      .def("__repr__", [](const DirectoryObject& d) {
        const std::string text = unlocked_call([&] {
          const std::shared_lock held(d.lock);
          return "<blockwire.Directory " + d.path + ": " + std::string(name(d.dir.net())) + ", " +
                 std::to_string(d.dir.chain_size().value()) + " blocks>";
        });
        return filesystem_text(text);
      });

  m.def(
      "open_directory",
      [](const std::string& path, std::optional<std::string> net) {
        BlocksDirectory::Options options;
        if (net) options.net = network_named(*net);
        std::optional<error> failed;
        DirectoryPtr opened;
        {
          const Unlocked unlocked;
          auto r = BlocksDirectory::open(path, options);
          if (r) {
            opened = std::make_shared<DirectoryObject>(std::move(r).value(), path);
          } else {
            failed = r.error();
          }
        }
        if (failed) raise(*failed);
        return opened;
      },
      py::arg("path"), py::arg("network") = py::none(),
      "A blocks directory opened as the library opens it: from Core's block index (or the one blockwire kept) when there, with the "
      "rev files' undo data.");
}

}  // namespace blockwire::python
