// blockwire pack: blocks (raw or hex files) into Core-style blk files, all
// or nothing (pack_blocks: a new directory staged and published whole,
// --append one batch of the writer). Here: the options, what a dead pack
// left beside OUT, the key, the network, and what is said.
#include "commands.hpp"
#include "text.hpp"
#include "directory_options.hpp"

#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/codec/block_or_transaction.hpp>
#include <blockwire/codec/check.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/hex.hpp>
#include <blockwire/io/user_input.hpp>
#include <blockwire/directory/pack.hpp>
#include <blockwire/undo.hpp>

#include <cstdio>
#include <filesystem>

namespace blockwire::cli {

namespace {
namespace fs = std::filesystem;

// One input's block bytes, checked: a block that decodes and that a blk
// file can hold, hex first when the input is hex. With `warn`, a block that
// looks like another network's than `net` is said. Prints why not and
// returns the exit status.
std::optional<int> read_block_input(const std::string& input, network net, std::vector<std::byte>& out, bool warn) {
  auto raw = read_user_input(input, max_block_or_transaction_input);
  if (!raw) {
    if (raw.error().code() == std::errc::file_too_large) {
      std::fprintf(stderr, "blockwire pack: %s: longer than any block (over %s bytes read)\n", input.c_str(),
                   with_commas(max_block_or_transaction_input).c_str());
      return bad_data;
    }
    std::fprintf(stderr, "blockwire pack: cannot read %s: %s\n", input.c_str(), raw.error().message().c_str());
    return usage_or_io;
  }
  Readings readings = readings_of(std::move(raw).value());
  std::optional<error> first_failure;
  for (const std::vector<std::byte>* const candidate : readings.in_order()) {
    if (candidate->size() > max_block_size) {
      if (!first_failure) first_failure = error(blockfiles::errc::block_too_large);
      continue;
    }
    auto block = BlockView::parse(*candidate);
    if (!block) {
      if (!first_failure) first_failure = block.error();
      continue;
    }
    if (const auto other = other_network(block.value().header(), net); warn && other) {
      std::fprintf(stderr, "blockwire pack: warning: %s: %s; is it another network's block? (--network)\n", input.c_str(),
                   other->why.c_str());
    }
    out = std::move(candidate == &readings.raw ? readings.raw : *readings.hex);
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

  // The network: --network, unless OUT has records: theirs (--network, if
  // given, must be the same).
  auto net = pack_network(o.output_dir, key, o.net_from_records ? std::nullopt : std::optional<network>(o.net));
  if (!net) {
    std::fprintf(stderr, "blockwire pack: %s\n", net.error().message().c_str());
    return exit_status_of(net.error());
  }
  // A block that looks like another network's is said here, unless OUT has
  // records: pack_blocks refuses it then.
  const bool warn = !holds_records(o.output_dir);

  // What cannot be read twice (standard input, a pipe, a device) is kept
  // from the first reading; files are read again when written.
  int read_status = ok;
  PackBlocks spec;
  spec.dir = o.output_dir;
  spec.key = key;
  spec.net = net.value();
  spec.undo = o.undo;
  spec.count = o.inputs.size();
  spec.name = [&](std::size_t i) { return o.inputs[i]; };
  spec.read = [&](std::size_t i, bool first, std::vector<std::byte>& out) {
    if (auto status = read_block_input(o.inputs[i], net.value(), out, first && warn)) {
      read_status = *status;
      return false;
    }
    return true;
  };
  spec.keep = [&](std::size_t i) { return o.inputs[i] == "-" || !fs::is_regular_file(o.inputs[i], ec); };
  spec.note = [](std::string_view line) { std::fprintf(stderr, "blockwire pack: %.*s\n", static_cast<int>(line.size()), line.data()); };
  auto packed = pack_blocks(spec);
  if (!packed) {
    if (read_status != ok) return read_status;  // the reader said why
    std::fprintf(stderr, "blockwire pack: %s\n", packed.error().message().c_str());
    return exit_status_of(packed.error());
  }
  const Packed& done = packed.value();
  if (done.blocks == 0) {
    std::printf("packed nothing: %s holds every block given\n", o.output_dir.c_str());
    return ok;
  }
  std::printf("packed %s (%s) into %s, blk00000.dat to %s, network %s, XOR key %s\n", count_of(done.blocks, "block").c_str(),
              count_of(done.bytes, "byte").c_str(), o.output_dir.c_str(), block_file_name(done.last_file).c_str(),
              std::string(name(net.value())).c_str(), to_hex(key).c_str());
  if (o.undo) {
    std::printf("and the undo data of %s (every block but the genesis block) into rev files\n",
                count_of(o.inputs.size() - 1, "block").c_str());
  }
  return ok;
}

}  // namespace blockwire::cli
