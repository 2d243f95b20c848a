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

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <sys/stat.h>

namespace blockwire::cli {

namespace {

namespace fs = std::filesystem;

// Why a block looks like another network's, if it does: its proof of work
// is easier than `net` allows, or it is a genesis block but not `net`'s.
std::optional<std::string> other_network(const BlockHeader& h, network net) {
  const auto target = target_from_bits(h.bits);
  const auto limit = target_from_bits(pow_limit_bits(net));
  if (target && limit && !at_most(*target, *limit)) {
    char bits[9];
    std::snprintf(bits, sizeof bits, "%08x", h.bits);
    return std::string("its bits ") + bits + " are easier than " + std::string(name(net)) + " allows";
  }
  if (h.prev_block.is_zero() && block_hash(h) != genesis_hash(net))
    return "it is a genesis block, but not " + std::string(name(net)) + "'s";
  return std::nullopt;
}

// One input's block bytes, checked: a block that decodes and that a blk file
// can hold. Prints why not and returns the exit status.
std::optional<int> read_block_input(const std::string& input, network net, std::vector<std::byte>& out, bool warn) {
  auto raw = read_input(input);
  if (!raw) {
    if (raw.error().code() == std::errc::file_too_large) {
      std::fprintf(stderr, "blockwire pack: %s: longer than any block (over %s bytes read)\n", input.c_str(),
                   with_commas(max_input_size).c_str());
      return bad_data;
    }
    std::fprintf(stderr, "blockwire pack: cannot read %s: %s\n", input.c_str(), raw.error().message().c_str());
    return usage_or_io;
  }
  Readings readings = readings_of(std::move(raw).value());
  // Hex first (when the input is hex), then the bytes as they are.
  std::optional<error> first_failure;
  for (std::vector<std::byte>* candidate : {readings.hex ? &*readings.hex : nullptr, &readings.raw}) {
    if (candidate == nullptr) continue;
    if (candidate->size() > max_block_size) {
      if (!first_failure) first_failure = error(blockfiles::errc::block_too_large);
      continue;
    }
    auto block = decode_block(*candidate);
    if (!block) {
      if (!first_failure) first_failure = block.error();
      continue;
    }
    if (const auto why = other_network(block.value().header, net); warn && why) {
      std::fprintf(stderr, "blockwire pack: warning: %s: %s; is it another network's block? (--network)\n", input.c_str(), why->c_str());
    }
    out = std::move(*candidate);
    return std::nullopt;
  }
  if (readings.hex_problem) {
    std::fprintf(stderr, "blockwire pack: %s is not a block: as hex, %s; as raw bytes, %s\n", input.c_str(),
                 describe_hex_problem(*readings.hex_problem, readings.raw).c_str(), first_failure->message().c_str());
  } else {
    std::fprintf(stderr, "blockwire pack: %s is not a block: %s\n", input.c_str(), first_failure->message().c_str());
  }
  return bad_data;
}

// The temporary directories of packs that died (kill -9, power loss)
// beside `output_dir`: ".NAME.partial-XXXXXX" whose lock no writer holds.
void remove_stale_partials(const std::string& output_dir) {
  fs::path dir = fs::absolute(output_dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  std::string prefix(1, '.');
  prefix += dir.filename().string();
  prefix += ".partial-";
  std::error_code ec;
  for (fs::directory_iterator it(dir.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || name.size() != prefix.size() + 6 || !it->is_directory(ec)) continue;
    if (being_written(it->path().string())) continue;  // a pack at work
    // One with no lock file yet may be a pack that has just made it.
    if (!fs::exists(it->path() / ".lock", ec)) {
      const auto age = fs::file_time_type::clock::now() - fs::last_write_time(it->path(), ec);
      if (ec || age < std::chrono::minutes(1)) continue;
    }
    std::error_code removed;
    const auto bytes = fs::remove_all(it->path(), removed);
    if (!removed) {
      std::fprintf(stderr, "blockwire pack: removed %s, left by a pack that did not finish (%s)\n", it->path().c_str(),
                   count_of(bytes, "entry").c_str());
    }
  }
}

}  // namespace

int pack(const PackOptions& o) {
  remove_stale_partials(o.output_dir);
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
    if (auto status = read_block_input(o.inputs[i], o.net, bytes, true)) return *status;
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
  std::string target = o.output_dir;
  if (fresh) {
    fs::path parent = fs::absolute(o.output_dir).lexically_normal();
    if (parent.filename().empty()) parent = parent.parent_path();
    std::string name = parent.filename().string();
    name.insert(0, 1, '.');
    name.append(".partial-XXXXXX");
    std::string templ = (parent.parent_path() / name).string();
    if (::mkdtemp(templ.data()) == nullptr) {
      std::fprintf(stderr, "blockwire pack: cannot create a directory beside %s: %s\n", o.output_dir.c_str(), std::strerror(errno));
      return usage_or_io;
    }
    target = templ;
  }
  const auto abandon = [&] {
    if (fresh) fs::remove_all(target, ec);
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
    } else if (auto status = read_block_input(input, o.net, bytes, false)) {
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
  if (fresh) {
    // mkdtemp made it 0700; a directory made here gets what any other would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::chmod(target.c_str(), 0777 & ~mask) != 0) {
      std::fprintf(stderr, "blockwire pack: %s: %s\n", target.c_str(), std::strerror(errno));
      return abandon();
    }
    // rename(2) replaces an empty directory; a non-empty one means another
    // run got there first.
    if (::rename(target.c_str(), o.output_dir.c_str()) != 0) {
      std::fprintf(stderr, "blockwire pack: cannot move the finished directory to %s: %s\n", o.output_dir.c_str(), std::strerror(errno));
      return abandon();
    }
    // The new name on disk too: lost to a power cut, the run would look
    // like a dead one's, which the next pack removes.
    fs::path parent = fs::absolute(o.output_dir).lexically_normal();
    if (parent.filename().empty()) parent = parent.parent_path();
    if (auto r = sync_directory(parent.parent_path().c_str()); !r) {
      std::fprintf(stderr, "blockwire pack: syncing %s: %s\n", parent.parent_path().c_str(), r.error().message().c_str());
      return usage_or_io;
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
