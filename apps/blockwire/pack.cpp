// blockwire pack: blocks (raw or hex files) into Core-style blk files.
// All or nothing: every input is read and checked before anything is
// written; a new directory is written under a temporary name and renamed
// into place when complete (what a crash leaves of one is removed by the
// next run); --append is one batch of the BlockFileWriter, undone when a
// write fails and, after a crash, by the next writer to open the
// directory. The directory is locked while it is written.
#include "commands.hpp"
#include "damage_report.hpp"
#include "input.hpp"
#include "text.hpp"
#include "directory_options.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/undo.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

namespace blockwire::cli {

namespace {
namespace fs = std::filesystem;
}  // namespace

int pack(const PackOptions& o) {
  for (const std::string& dead : remove_dead_stages(o.output_dir)) {
    std::fprintf(stderr, "blockwire pack: removed %s, left by a pack that did not finish\n", dead.c_str());
  }
  std::error_code ec;
  auto existing = fs::exists(o.output_dir, ec) ? block_files(o.output_dir) : result<std::vector<std::string>>(std::vector<std::string>{});
  if (!existing) {
    std::fprintf(stderr, "blockwire pack: %s: %s\n", o.output_dir.c_str(), existing.error().message().c_str());
    return usage_or_io;
  }
  if (!existing.value().empty() && !o.append) {
    std::fprintf(stderr, "blockwire pack: %s already has blk files; pass --append to add to them\n", o.output_dir.c_str());
    return usage_or_io;
  }

  // The key: random on request, else as key_for_writing says.
  auto chosen = o.random_key ? std::variant<XorKey, int>(random_xor_key()) : key_for_output("pack", o.output_dir, o.xor_key);
  if (const int* status = std::get_if<int>(&chosen)) return *status;
  const XorKey key = std::get<XorKey>(chosen);

  if (o.undo) {
    auto revs = fs::exists(o.output_dir, ec) ? undo_files(o.output_dir) : result<std::vector<std::string>>(std::vector<std::string>{});
    if (!existing.value().empty() || !revs || !revs.value().empty()) {
      std::fprintf(stderr,
                   "blockwire pack: --undo makes undo data from the blocks given, from the genesis block on: "
                   "%s already has blk or rev files\n",
                   o.output_dir.c_str());
      return usage_or_io;
    }
  }

  // Every input checked before anything is written. What cannot be read
  // twice (standard input, a pipe, a device) is kept; files are read again.
  // With --undo, each block's undo data is made here, as a node connecting
  // the chain makes it: the blocks must be a chain from the genesis block,
  // in order.
  std::vector<std::byte> bytes;
  std::vector<std::optional<std::vector<std::byte>>> kept(o.inputs.size());
  CoinSet coins;
  std::vector<BlockUndo> undos(o.undo ? o.inputs.size() : 0);  // [0]: the genesis block's, which Core does not write
  std::vector<Hash256> hashes(undos.size());                   // each block's: the next one's parent, and a check of a second reading
  std::vector<std::optional<Hash256>> input_hashes(o.inputs.size());  // --append: those already in the directory are skipped
  for (std::size_t i = 0; i < o.inputs.size(); ++i) {
    if (auto status = read_block_input("pack", o.inputs[i], o.net, bytes, true)) return *status;
    input_hashes[i] = block_hash(decode_header(std::span<const std::byte>(bytes).first(header_size)).value());
    if (o.undo) {
      const Block block = decode_block(bytes).value();  // read_block_input checked that it decodes
      // One chain, in order: each block's parent is the block before it
      // (a branch would need another coin set).
      const std::uint32_t height = static_cast<std::uint32_t>(i);
      const bool links = i == 0 ? block.header.prev_block.is_zero() : block.header.prev_block == hashes[i - 1];
      if (!links) {
        std::fprintf(
            stderr, "blockwire pack: %s: its parent is not the block before it (--undo needs one chain from its genesis block, in order)\n",
            o.inputs[i].c_str());
        return bad_data;
      }
      hashes[i] = block_hash(block.header);
      auto undo = coins.apply(block, height);
      if (!undo) {
        std::fprintf(stderr, "blockwire pack: %s: %s (--undo needs every spent output in a block before it)\n", o.inputs[i].c_str(),
                     undo.error().message().c_str());
        return bad_data;
      }
      undos[i] = std::move(undo).value();
    }
    if (o.inputs[i] == "-" || !fs::is_regular_file(o.inputs[i], ec)) kept[i] = std::move(bytes);
  }

  // A new (or empty) directory: written next to it, renamed when whole.
  const bool fresh = !fs::exists(o.output_dir, ec) || (fs::is_directory(o.output_dir, ec) && fs::is_empty(o.output_dir, ec));
  std::optional<StagedDirectory> staged;
  if (fresh) {
    auto made = StagedDirectory::create(o.output_dir);
    if (!made) {
      std::fprintf(stderr, "blockwire pack: cannot create a directory beside %s: %s\n", o.output_dir.c_str(),
                   made.error().message().c_str());
      return usage_or_io;
    }
    staged.emplace(std::move(made).value());
  }
  const std::string target = staged ? staged->path() : o.output_dir;
  const auto abandon = [&] {
    if (staged) staged->abandon();
    return usage_or_io;
  };

  auto writer = BlockFileWriter::open(target, key, o.net);
  if (!writer) {
    const error& e = writer.error();
    if (e.code() == blockfiles::errc::damaged_last_file) {
      std::fprintf(stderr, "blockwire pack: %s: %s (damage at byte %llu of its last blk file); run blockwire scan on it\n",
                   o.output_dir.c_str(), e.code().message().c_str(), static_cast<unsigned long long>(e.offset()));
      return bad_data;
    }
    std::fprintf(stderr, "blockwire pack: cannot write to %s: %s\n", o.output_dir.c_str(), e.message().c_str());
    return abandon();
  }
  report_repair("pack", o.output_dir, writer.value());
  // Blocks the directory already holds are not added again.
  std::vector<bool> skip(o.inputs.size(), false);
  std::size_t skipped = 0;
  {
    std::set<Hash256> seen;
    if (!fresh) {
      auto index = BlockIndex::build(target, key, o.net);
      if (!index) {
        std::fprintf(stderr, "blockwire pack: reading %s: %s\n", o.output_dir.c_str(), index.error().message().c_str());
        return usage_or_io;
      }
      for (const IndexedBlock& b : index.value().blocks()) seen.insert(b.hash);
    }
    for (std::size_t i = 0; i < o.inputs.size(); ++i) {
      if (input_hashes[i] && !seen.insert(*input_hashes[i]).second) {
        skip[i] = true;
        ++skipped;
      }
    }
    if (skipped != 0) {
      std::fprintf(stderr, "blockwire pack: %s already holds %s of those given (or one twice): not added again\n", o.output_dir.c_str(),
                   count_of(skipped, "block").c_str());
    }
  }
  const BlockPosition start = writer.value().position();
  if (auto r = writer.value().begin_batch(); !r) {
    std::fprintf(stderr, "blockwire pack: %s: %s\n", o.output_dir.c_str(), r.error().message().c_str());
    return abandon();
  }
  UndoFileWriter undo_writer(target, key, o.net);  // under the BlockFileWriter's lock
  std::uint64_t total = 0;
  BlockPosition last{};
  for (std::size_t i = 0; i < o.inputs.size(); ++i) {
    const std::string& input = o.inputs[i];
    if (skip[i]) continue;
    if (kept[i]) {
      bytes = std::move(*kept[i]);
    } else if (auto status = read_block_input("pack", input, o.net, bytes, false)) {
      (void)writer.value().rewind(start);  // changed since it was checked
      abandon();
      return *status;
    }
    // The undo data was made from the first reading: the block must be the same.
    if (o.undo && block_hash(decode_header(std::span<const std::byte>(bytes).first(header_size)).value()) != hashes[i]) {
      std::fprintf(stderr, "blockwire pack: %s changed while it was being packed\n", input.c_str());
      (void)writer.value().rewind(start);
      return abandon();
    }
    auto at = writer.value().append(bytes);
    if (!at) {
      const std::string where = at.error().has_offset() ? " at byte " + std::to_string(at.error().offset()) : "";
      std::fprintf(stderr, "blockwire pack: writing %s into %s/%s%s: %s\n", input.c_str(), o.output_dir.c_str(),
                   block_file_name(writer.value().position().file).c_str(), where.c_str(), at.error().code().message().c_str());
      if (auto r = writer.value().rewind(start); !r) {
        std::fprintf(stderr, "blockwire pack: and undoing this run's records failed: %s\n", r.error().message().c_str());
      } else if (!fresh) {
        std::fprintf(stderr, "blockwire pack: %s is as it was before this run\n", o.output_dir.c_str());
      }
      return abandon();
    }
    last = at.value();
    total += bytes.size();
    if (o.undo && i > 0) {
      if (auto r = undo_writer.append(undos[i], hashes[i - 1], at.value().file); !r) {
        std::fprintf(stderr, "blockwire pack: writing the undo data of %s into %s/%s: %s\n", input.c_str(), o.output_dir.c_str(),
                     undo_file_name(at.value().file).c_str(), r.error().message().c_str());
        (void)writer.value().rewind(start);
        return abandon();  // a fresh directory: its rev files go with it
      }
    }
  }
  if (auto r = undo_writer.close(); !r) {
    std::fprintf(stderr, "blockwire pack: closing %s/%s: %s\n", o.output_dir.c_str(), undo_file_name(last.file).c_str(),
                 r.error().message().c_str());
    (void)writer.value().rewind(start);
    return abandon();
  }
  // The batch published: from here on a crash keeps every block.
  if (auto r = writer.value().commit_batch(); !r) {
    std::fprintf(stderr, "blockwire pack: syncing %s: %s\n", o.output_dir.c_str(), r.error().message().c_str());
    (void)writer.value().rewind(start);
    return abandon();
  }
  if (auto r = writer.value().close(); !r) {
    std::fprintf(stderr, "blockwire pack: closing %s/%s: %s\n", o.output_dir.c_str(), block_file_name(last.file).c_str(),
                 r.error().message().c_str());
    return abandon();
  }
  if (staged) {
    if (auto r = staged->publish(); !r) {
      std::fprintf(stderr, "blockwire pack: %s %s: %s\n",
                   staged->published() ? "syncing the directory holding" : "cannot move the finished directory to", o.output_dir.c_str(),
                   r.error().message().c_str());
      return staged->published() ? usage_or_io : abandon();
    }
  }
  if (skipped == o.inputs.size()) {
    std::printf("packed nothing: %s holds every block given\n", o.output_dir.c_str());
    return ok;
  }
  std::printf("packed %s (%s) into %s, blk00000.dat to %s, network %s, XOR key %s\n", count_of(o.inputs.size() - skipped, "block").c_str(),
              count_of(total, "byte").c_str(), o.output_dir.c_str(), block_file_name(last.file).c_str(), std::string(name(o.net)).c_str(),
              to_hex(key).c_str());
  if (o.undo) {
    std::printf("and the undo data of %s (every block but the genesis block) into rev files\n",
                count_of(o.inputs.size() - 1, "block").c_str());
  }
  return ok;
}

}  // namespace blockwire::cli
