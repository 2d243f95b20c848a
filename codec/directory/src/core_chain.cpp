#include "core_chain.hpp"

#include <blockwire/codec/check.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/directory/core_chainstate.hpp>
#include <blockwire/directory/core_index.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/xor.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <random>
#include <tuple>

namespace blockwire::detail {
namespace {

namespace fs = std::filesystem;

// How many records spread over the chain are checked besides the tip's.
constexpr std::size_t sample_size = 64;

std::string short_hash(const BlockHash& h) { return h.to_hex(); }

// The chainstate of the data directory that holds `blocks_dir`.
std::string chainstate_beside(const std::string& blocks_dir) {
  fs::path p = fs::path(blocks_dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return (p.parent_path() / "chainstate").string();
}

// Empty when the record at `at` is the block `hash`, as the index says;
// else what is wrong, for a person.
std::string check_record(const std::string& dir, const XorKey& key, network net, const BlockHash& hash, BlockPosition at) {
  const std::string name = block_file_name(at.file);
  auto header = read_block_header((fs::path(dir) / name).string(), at.offset, key, net, hash);
  if (header) return {};
  const error& e = header.error();
  const std::string where = name + ":" + std::to_string(at.offset) + ": ";
  if (e.code() == blockfiles::errc::bad_magic) return where + "no record begins there (the index has block " + short_hash(hash) + " there)";
  if (e.code() == blockfiles::errc::wrong_block) return where + "the record there is not block " + short_hash(hash) + ", as the index says";
  if (e.code() == io::errc::truncated) return where + e.message() + " (the index has block " + short_hash(hash) + " there)";
  return name + ": " + e.message();
}

// Empty when the undo record at `at` checks against the block's parent
// (Core's checksum over the parent's hash and the record).
std::string check_undo(const std::string& dir, const XorKey& key, network net, BlockPosition at, const BlockHash& parent,
                       const BlockHash& block) {
  const std::string name = undo_file_name(at.file);
  auto reader = UndoFileReader::open((fs::path(dir) / name).string(), key, net, at.offset);
  if (!reader) return name + ": " + reader.error().message();
  auto record = reader.value().next();
  const auto where = name + ":" + std::to_string(at.offset) + ": ";
  if (!record) return where + record.error().message();
  if (!record.value() || undo_checksum(parent, record.value()->bytes) != record.value()->checksum) {
    return where + "no undo record of block " + short_hash(block) + " there, as the index says";
  }
  return {};
}

}  // namespace

std::variant<BlockIndex, std::string> read_core_chain(const std::string& blocks_dir, const XorKey& key, network net, bool undo) {
  const std::string index_dir = (fs::path(blocks_dir) / "index").string();
  // The tip: the most work among the blocks the node validated to the end
  // (its tip when it wrote the index; its chainstate's best block may be
  // hours behind); the chainstate's best block where none says so.
  std::optional<BlockHash> tip;
  bool any_validated = false;
  // blockwire's own (a directory it pruned): every block it holds may be
  // the tip, the one with the most work, as for any directory it writes.
  const bool ours = written_by_blockwire(index_dir);

  // While the entries stream in: every header checked against its key (the
  // chain's links, times and work come from them), the last record the
  // index knows (where reading the blk files goes on), and a sample spread
  // at random over the chain, to check against the files before trusting.
  // `problem`: what is wrong with entries that each decode (an error's
  // context says what is wrong with one that does not).
  std::string problem;
  std::optional<BlockHash> lying;
  std::optional<KnownBlock> last;
  std::vector<KnownBlock> sample;
  std::mt19937_64 pick(0x5eed);
  std::uint64_t seen = 0;
  bool any_undo = false;
  auto index = BlockIndex::build_from(
      blocks_dir, key, net,
      [&](const auto& add, const auto& reserve) -> result<BlockPosition> {
        auto read = read_core_block_index(
            index_dir,
            [&](const CoreBlockEntry& e) {
              if (e.erased) {
                KnownBlock gone{e.hash, {}, {0, 0}, false, std::nullopt, false};
                gone.erased = true;
                add(gone);
                return;
              }
              const auto at = e.block_record();
              if (block_hash(e.header) != e.hash || !proof_of_work_ok(e.hash, e.header.bits, net)) {
                if (!lying) lying = e.hash;
                return;
              }
              if (!at) {
                // A header alone: a pruned block (its data deleted), or one
                // not downloaded yet. Linked, so that the chain above it
                // has its heights; never a tip, never read.
                KnownBlock k{e.hash, e.header, {0, 0}, e.failed(), std::nullopt, false};
                k.pruned = true;
                k.tx_count = e.tx_count;
                add(k);
                return;
              }
              const bool validated = !e.failed() && (ours || (e.status & CoreBlockEntry::valid_mask) >= CoreBlockEntry::valid_scripts);
              any_validated = any_validated || validated;
              const auto undo_at = e.undo_record();
              any_undo = any_undo || undo_at.has_value();
              KnownBlock k{e.hash,
                           e.header,
                           *at,
                           e.failed(),
                           undo_at ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(undo_at->offset)) : std::nullopt,
                           validated};
              if (!last || std::tie(at->file, at->offset) > std::tie(last->at.file, last->at.offset)) last = k;
              // (reservoir sampling: each entry kept with the same chance)
              if (sample.size() < sample_size) {
                sample.push_back(k);
              } else if (const std::uint64_t slot = pick() % (seen + 1); slot < sample_size) {
                sample[slot] = k;
              }
              ++seen;
              add(k);
            },
            [&](std::uint64_t n) { reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 1u << 23))); });
        if (!read) return read.error();
        if (lying) {
          problem = "the header of block " + short_hash(*lying) + " is not that block's, or its proof of work fails";
          return error(directory::errc::bad_index_entry);
        }
        if (!last) {
          problem = "no block with data in it";
          return error(directory::errc::bad_index_entry);
        }
        if (!any_validated) {
          if (auto best = read_core_best_block(chainstate_beside(blocks_dir)); best) tip = best.value();
        }
        return last->at;
      },
      tip);
  if (!index) return index_dir + ": " + (problem.empty() ? index.error().message() : problem);
  BlockIndex chain = std::move(index).value();
  if (chain.empty()) return index_dir + ": no chain from a block whose parent is all zeros";

  // Checked against the files: the last record, the sample, the tip. An
  // entry a later one replaced (in a newer table, or the log: its block
  // pruned since, its file deleted) is not checked: the index no longer
  // says it.
  const auto current = [&](const KnownBlock& k) {
    const auto b = chain.find(k.hash);
    return b && !b->pruned && b->file == k.at.file && b->offset == k.at.offset;
  };
  std::vector<const KnownBlock*> checked{&*last};
  for (const KnownBlock& k : sample) checked.push_back(&k);
  for (const KnownBlock* k : checked) {
    if (!current(*k)) continue;
    if (auto wrong = check_record(blocks_dir, key, net, k->hash, k->at); !wrong.empty()) return index_dir + ": " + wrong;
  }
  const IndexedBlock top = chain.tip_block();
  if (auto wrong = check_record(blocks_dir, key, net, top.hash, {top.file, top.offset}); !wrong.empty()) return index_dir + ": " + wrong;
  if (!undo || !any_undo) return chain;

  // The tip's undo record (or that of one of the highest blocks that has
  // one) must check against its parent.
  for (Height h = top.height; h != Height::genesis() && top.height - h < 15; h = *h.previous()) {
    const IndexedBlock b = chain.at_height(h);
    if (!b.undo_offset) continue;
    const BlockHash parent = chain.at_height(*h.previous()).hash;
    if (auto wrong = check_undo(blocks_dir, key, net, {b.file, *b.undo_offset}, parent, b.hash); !wrong.empty())
      return index_dir + ": " + wrong;
    break;
  }
  return chain;
}

}  // namespace blockwire::detail
