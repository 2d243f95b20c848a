#include <blockwire/directory/error.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/direct_file.hpp>
#include <blockwire/tables/text_out.hpp>
#include <blockwire/tables/utxo_table.hpp>

#include "writer_name.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <unistd.h>
#include <vector>

namespace blockwire::tables {

namespace {

namespace fs = std::filesystem;

struct ChainBlock {
  BlockHash hash = BlockHash::all_zeros();
  std::uint32_t time = 0;
};

// The chain from the genesis block to `tip`, by height.
std::vector<ChainBlock> chain_to(const BlockIndex& blocks, const IndexedBlock& tip) {
  std::vector<ChainBlock> chain(BlockCount::through(tip.height).value());
  std::optional<IndexedBlock> b = tip;
  while (b && b->linked) {
    chain[b->height.to_wire()] = {b->hash, b->time};
    b = blocks.parent(*b);
  }
  return chain;
}

// What an earlier run left: folders being written, removed; one being
// replaced, put back when a crash came between the two renames.
void remove_leftovers(const fs::path& table) {
  std::error_code ec;
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(table, ec)) found.push_back(e.path());
  for (const fs::path& p : found) {
    const std::string name = p.filename().string();
    if (!name.starts_with(".height=")) continue;
    const auto old = name.find(".old-");
    const fs::path replaced = table / name.substr(1, old == std::string::npos ? 0 : old - 1);
    if (old != std::string::npos && !fs::exists(replaced, ec)) {
      fs::rename(p, replaced, ec);
    } else {
      fs::remove_all(p, ec);
    }
  }
}

}  // namespace

result<UtxoExportReport> export_utxos(const std::string& chainstate_dir, const BlockIndex& blocks, const EtlOutput& out,
                                      const UtxoExport& spec) {
  return export_utxos(chainstate_dir, blocks, out.path(), spec);
}

result<UtxoExportReport> export_utxos(const std::string& chainstate_dir, const BlockIndex& blocks, const std::string& out_dir,
                                      const UtxoExport& spec) {
  auto best = read_core_best_block(chainstate_dir);
  if (!best) return best.error();
  const auto tip = best.value() ? blocks.find(*best.value()) : std::nullopt;
  if (!tip || !tip->linked) {
    return error(directory::errc::unknown_best_block)
        .in(best.value() ? "block " + best.value()->to_hex() + " is not in " + blocks.dir() + " (the node's blocks directory?)"
                         : "no best block (its \"B\" key): the node has not written its chainstate yet (it writes it when its cache "
                           "fills, and at shutdown), or is in the middle of a write");
  }
  const std::vector<ChainBlock> chain = chain_to(blocks, *tip);

  UtxoExportReport report;
  report.height = tip->height;
  const fs::path table = fs::path(out_dir) / "utxos";
  const std::string height = shard_number(tip->height.to_wire());
  const fs::path folder = table / ("height=" + height);
  const std::string writer = writer_name();
  const fs::path partial = table / (".height=" + height + ".partial-" + writer);
  report.folder = folder.string();
  const auto failed = [&](const std::string& what, const error& e) -> error {
    std::error_code ec;
    fs::remove_all(partial, ec);
    return e.in(what);
  };
  std::error_code ec;
  fs::create_directories(table, ec);
  if (ec) return failed(table.string(), ec);
  remove_leftovers(table);
  fs::create_directories(partial, ec);
  if (ec) return failed(partial.string(), ec);

  // One part open at a time; a part's failure stops the run at its coin.
  std::unique_ptr<TextOut> part;
  std::optional<error> write_failure;
  std::string failed_file;
  const auto finish_part = [&] {
    if (!part || write_failure) return;
    if (auto done = part->finish(); !done) write_failure = done.error();
    part.reset();
  };
  const auto next_part = [&] {
    finish_part();
    if (write_failure) return;
    char number[8];
    std::snprintf(number, sizeof number, "%04llu", static_cast<unsigned long long>(report.parts));
    const fs::path path = partial / ("utxos_" + height + "_" + number + "." + std::string(export_extension(spec.format)) +
                                     std::string(compression_suffix(spec.compress)));
    auto file = CompressedFileWriter::create(path.c_str(), spec.compress);
    if (!file) {
      write_failure = file.error();
      failed_file = path.string();
      return;
    }
    part = std::make_unique<TextOut>(std::move(file).value());
    write_utxo_header(spec.format, *part);
    ++report.parts;
  };
  std::uint64_t coins = 0;
  const std::uint64_t per_part = std::max<std::uint64_t>(1, spec.part_coins);
  auto info = read_core_utxo_set(
      chainstate_dir,
      [&](const CoreCoin& c) {
        if (write_failure) return;
        if (coins++ % per_part == 0) next_part();
        if (write_failure) return;
        const bool known = c.coin.height.to_wire() < chain.size();
        const ChainBlock* at = known ? &chain[c.coin.height.to_wire()] : nullptr;
        write_utxo_row(spec.format, *part,
                       {c.outpoint, c.coin, at != nullptr ? &at->hash : nullptr,
                        at != nullptr ? std::optional<std::uint32_t>(at->time) : std::nullopt, blocks.net()});
      },
      spec.progress);
  if (!info) {
    std::error_code ec;
    fs::remove_all(partial, ec);
    return info.error();
  }
  if (info.value().best_block != tip->hash) {
    std::error_code ec;
    fs::remove_all(partial, ec);
    return error(directory::errc::chainstate_changed);
  }
  if (coins == 0) next_part();  // an empty set still has its (empty) table
  finish_part();
  if (write_failure) return failed(failed_file.empty() ? partial.string() : failed_file, *write_failure);
  report.info = info.value();

  if (auto r = sync_directory(partial.c_str()); !r) return failed(partial.string(), r.error());
  // Into place, over an older folder of the same height.
  const fs::path old = table / (".height=" + height + ".old-" + writer);
  if (fs::exists(folder, ec)) {
    fs::rename(folder, old, ec);
    if (ec) return failed(folder.string(), ec);
  }
  fs::rename(partial, folder, ec);
  if (ec) return failed(folder.string(), ec);
  fs::remove_all(old, ec);
  if (auto r = sync_directory(table.c_str()); !r) return failed(table.string(), r.error());
  return report;
}

}  // namespace blockwire::tables
