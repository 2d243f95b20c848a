#include <blockwire/blockfiles.hpp>
#include <blockwire/codec.hpp>
#include <blockwire/directory/error.hpp>
#include <blockwire/directory/blocks_directory.hpp>
#include <blockwire/directory/pack.hpp>
#include <blockwire/io/number_text.hpp>
#include <blockwire/undo.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

namespace blockwire {

namespace {

namespace fs = std::filesystem;

// `cause`, with what failed said before it.
error failure(const error& cause, const std::string& what) { return cause.in(what); }

BlockHash hash_of(std::span<const std::byte> block) { return block_hash(decode_header(block.first(header_size)).value()); }

// A directory's records of `records`, blocks of `asked` to add to them.
error other_records(const std::string& dir, network records, network asked) {
  return error(directory::errc::other_network)
      .in(dir + ": its records are " + std::string(name(records)) + "'s (their magic), not " + std::string(name(asked)) + "'s");
}

// "mainnet", "regtest or signet", "mainnet, testnet3 or signet"
std::string one_of(const std::vector<network>& nets) {
  std::string text;
  for (std::size_t i = 0; i < nets.size(); ++i) {
    if (i != 0) text += i + 1 == nets.size() ? " or " : ", ";
    text += name(nets[i]);
  }
  return text;
}

// Why block `h`, named `what`, is not added to `dir`'s records of `net`.
std::string not_of_network(const std::string& what, const std::string& dir, const OtherNetwork& other, network net) {
  const std::string holds = dir + " holds " + std::string(name(net)) + "'s blocks";
  if (other.genesis) return what + ": " + other.why + ", and " + holds;
  return what + ": a block of " + one_of(other.could_be) + ", and " + holds + ": " + other.why;
}

}  // namespace

result<network> pack_network(const std::string& dir, const XorKey& key, const std::optional<network>& given) {
  const std::optional<network> records = network_of(dir, key);
  if (records && given && *records != *given) return other_records(dir, *records, *given);
  return records ? *records : given.value_or(network::mainnet);
}

result<Packed> pack_blocks(const PackBlocks& spec) {
  const auto say = [&](const std::string& line) {
    if (spec.note) spec.note(line);
  };
  // Records there already: blocks of their network alone are added to them.
  const std::optional<network> records = network_of(spec.dir, spec.key);
  if (records && *records != spec.net) {
    return other_records(spec.dir, *records, spec.net);
  }
  // Every block read before anything is written; with undo data, each
  // block's made here, as a node connecting the chain makes it.
  std::vector<std::byte> bytes;
  std::vector<std::optional<std::vector<std::byte>>> kept(spec.count);
  CoinSet coins;
  std::vector<BlockUndo> undos(spec.undo ? spec.count : 0);  // [0]: the genesis block's, which Core does not write
  std::vector<BlockHash> hashes(spec.count,
                                BlockHash::all_zeros());  // each block's: the next one's parent, and a check of a second reading
  for (std::size_t i = 0; i < spec.count; ++i) {
    if (!spec.read(i, true, bytes)) return failure(std::make_error_code(std::errc::io_error), "reading " + spec.name(i));
    hashes[i] = hash_of(bytes);
    if (records) {
      const BlockHeader header = decode_header(std::span<const std::byte>(bytes).first(header_size)).value();
      if (const auto other = other_network(header, spec.net); other && !other->could_be.empty()) {
        return failure(directory::errc::other_network, not_of_network(spec.name(i), spec.dir, *other, spec.net));
      }
    }
    if (spec.undo) {
      const Block block = decode_block(bytes).value();  // the reader checked that it decodes
      // One chain, in order: a branch would need another coin set.
      const bool links = i == 0 ? block.header.prev_block.is_all_zeros() : block.header.prev_block == hashes[i - 1];
      if (!links) {
        return failure(directory::errc::not_one_chain,
                       spec.name(i) + ": its parent is not the block before it (--undo needs one chain from its genesis block, in order)");
      }
      auto undo = coins.apply(block, *Height::checked(i));  // (the blocks in order from the genesis block: i is the height)
      if (!undo) {
        return failure(undo.error(), spec.name(i) + " (--undo needs every spent output in a block before it)");
      }
      undos[i] = std::move(undo).value();
    }
    if (spec.keep && spec.keep(i)) kept[i] = std::move(bytes);
  }

  // A new (or empty) directory: written next to it, renamed when whole.
  std::error_code ec;
  const bool fresh = !fs::exists(spec.dir, ec) || (fs::is_directory(spec.dir, ec) && fs::is_empty(spec.dir, ec));
  std::optional<StagedDirectory> staged;
  if (fresh) {
    auto made = StagedDirectory::create(spec.dir);
    if (!made) return failure(made.error(), "cannot create a directory beside " + spec.dir);
    staged.emplace(std::move(made).value());
  }
  const std::string target = staged ? staged->path() : spec.dir;
  auto writer = BlockFileWriter::open(target, spec.key, spec.net);
  if (!writer) {
    const error& e = writer.error();
    if (e.code() == blockfiles::errc::damaged_last_file) {
      return failure(error(e.code()),
                     spec.dir + ": damage at byte " + std::to_string(e.offset()) + " of its last blk file (run blockwire scan on it)");
    }
    return failure(e, "cannot write to " + spec.dir);
  }
  if (const auto& r = writer.value().repaired()) say(r->message(spec.dir));
  // Blocks the directory already holds are not added again.
  Packed done;
  std::vector<bool> skip(spec.count, false);
  std::optional<BlockIndex> there;  // what the directory held: kept again with what is appended
  {
    if (!fresh) {
      auto index = BlocksDirectory::open_index(target, spec.key, spec.net);
      if (!index) return index.error();
      there = std::move(index).value();
    }
    std::set<BlockHash> seen;  // (among the blocks packed)
    for (std::size_t i = 0; i < spec.count; ++i) {
      if ((there && there->find(hashes[i])) || !seen.insert(hashes[i]).second) {
        skip[i] = true;
        ++done.already_there;
      }
    }
    if (done.already_there != 0) {
      say(spec.dir + " already holds " + count_of(done.already_there, "block") + " of those given (or one twice): not added again");
    }
  }
  const BlockPosition start = writer.value().position();
  if (auto r = writer.value().begin_batch(); !r) return failure(r.error(), spec.dir);
  // From here a failure undoes this run's records (the batch); a staged
  // directory goes with its StagedDirectory.
  const auto undone = [&](const error& f) {
    (void)writer.value().rewind(start);
    return f;
  };
  UndoFileWriter undo_writer(target, spec.key, spec.net);  // under the BlockFileWriter's lock
  struct Appended {
    BlockHeader header;
    BlockHash hash = BlockHash::all_zeros();
    BlockPosition at;
    std::optional<std::uint32_t> undo_at;
  };
  std::vector<Appended> appended;
  BlockPosition last{};
  for (std::size_t i = 0; i < spec.count; ++i) {
    if (skip[i]) continue;
    if (kept[i]) {
      bytes = std::move(*kept[i]);
    } else if (!spec.read(i, false, bytes)) {
      return undone(failure(std::make_error_code(std::errc::io_error), "reading " + spec.name(i) + " again"));
    }
    // The undo data was made from the first reading: the block must be the same.
    if (spec.undo && hash_of(bytes) != hashes[i]) {
      return undone(failure(directory::errc::input_changed, spec.name(i) + " changed while it was being packed"));
    }
    auto at = writer.value().append(bytes);
    if (!at) {
      const std::string what = "writing " + spec.name(i) + " into " + spec.dir + "/" + block_file_name(writer.value().position().file);
      if (auto r = writer.value().rewind(start); !r) {
        return failure(at.error(), what + " (and undoing this run's records failed too: " + r.error().message() + ")");
      }
      return failure(at.error(), fresh ? what : what + " (" + spec.dir + " is as it was before this run)");
    }
    last = at.value();
    done.bytes += bytes.size();
    ++done.blocks;
    std::optional<std::uint32_t> undo_at;
    if (spec.undo && i > 0) {
      auto r = undo_writer.append(undos[i], hashes[i - 1], at.value().file);
      if (!r) {
        return undone(
            failure(r.error(), "writing the undo data of " + spec.name(i) + " into " + spec.dir + "/" + undo_file_name(at.value().file)));
      }
      undo_at = static_cast<std::uint32_t>(r.value().offset);
    }
    if (there)
      appended.push_back({decode_header(std::span<const std::byte>(bytes).first(header_size)).value(), hashes[i], at.value(), undo_at});
  }
  done.last_file = last.file;
  if (auto r = undo_writer.close(); !r) {
    return undone(failure(r.error(), "closing " + spec.dir + "/" + undo_file_name(last.file)));
  }
  // The batch published: from here on a crash keeps every block.
  if (auto r = writer.value().commit_batch(); !r) return undone(failure(r.error(), "syncing " + spec.dir));
  if (auto r = writer.value().close(); !r) {
    return failure(r.error(), "closing " + spec.dir + "/" + block_file_name(last.file));
  }
  // The kept index extended (a failure to keep it is not the pack's: the
  // next open reads these blocks from the files).
  if (there) {
    for (const Appended& a : appended) there->add(a.header, a.hash, a.at, a.undo_at);
    if (auto r = BlocksDirectory::keep_index(*there); !r) say("the index of " + spec.dir + " could not be kept: " + r.error().message());
  }
  if (staged) {
    if (auto r = staged->publish(); !r) {
      return failure(
          r.error(),
          std::string(staged->published() ? "syncing the directory holding " : "cannot move the finished directory to ") + spec.dir);
    }
  }
  return done;
}

}  // namespace blockwire
