// BlockIndex::save and load: the kept index's two files.
//
// chain.dat: an 8-byte magic, then a record a block, 56 bytes, in id order:
// the block as the index holds it in memory (hash, file word, offset, undo
// offset, time, bits) and its parent's record (~0: a parent all zeros).
// Appended to; a record past what state.dat counts (an append cut short)
// is not read.
//
// pruned.dat, where blocks are pruned (a pruned node's, their headers
// from its index): for each, its id, version, merkle root, nonce and
// transaction count (48 bytes), then the SHA-256 of them all; written anew
// with chain.dat.
//
// state.dat: what chain.dat covers, written to a temporary file and
// renamed over the old one (so it is whole or the old one), hashed to
// catch any other damage: the key and network of the directory, the
// record count, where reading the blk files goes on, the last record it
// knows (its place and hash), the tip, every blk file's size.
#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/block_file_reader.hpp>
#include <blockwire/blockfiles/block_index.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/io/xor.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <tuple>
#include <unistd.h>

namespace blockwire {
namespace {

namespace fs = std::filesystem;

constexpr std::array<char, 8> chain_magic{'b', 'w', 'c', 'h', 'a', 'i', 'n', '1'};
constexpr std::array<char, 8> state_magic{'b', 'w', 's', 't', 'a', 't', 'e', '1'};
constexpr std::size_t record_size = 56;
constexpr std::uint32_t no_parent = ~std::uint32_t{0};
constexpr std::size_t checked_sample = 8;

// The files' fields are the wire toolkit's (little-endian integers, raw
// hashes): written into a byte buffer, read through a DecodingContext.
struct Out {
  std::vector<std::byte> bytes;
  void write(std::span<const std::byte> b) { bytes.insert(bytes.end(), b.begin(), b.end()); }
};

struct State {
  std::uint32_t magic = 0;  // the network's
  XorKey key{};
  std::uint64_t records = 0;
  BlockPosition resume{0, 0};
  BlockPosition last{0, 0};
  BlockHash last_hash = BlockHash::all_zeros();
  BlockHash tip = BlockHash::all_zeros();
  Hash256 chain_hash;                     // SHA-256 of chain.dat's magic and `records` records
  std::vector<std::uint64_t> file_sizes;  // blk00000.dat, blk00001.dat, ...
};

std::vector<std::byte> encode_state(const State& s) {
  Out o;
  o.write(std::as_bytes(std::span(state_magic)));
  wire::encode_u32(o, s.magic);
  o.write(s.key);
  wire::encode_u64(o, s.records);
  wire::encode_u32(o, s.resume.file);
  wire::encode_u64(o, s.resume.offset);
  wire::encode_u32(o, s.last.file);
  wire::encode_u64(o, s.last.offset);
  wire::encode_hash(o, s.last_hash);
  wire::encode_hash(o, s.tip);
  wire::encode_hash(o, s.chain_hash);
  wire::encode_u32(o, static_cast<std::uint32_t>(s.file_sizes.size()));
  for (const std::uint64_t size : s.file_sizes) wire::encode_u64(o, size);
  wire::encode_hash(o, sha256(o.bytes));
  return o.bytes;
}

std::optional<State> decode_state(std::span<const std::byte> bytes) {
  if (bytes.size() < 8 + 32) return std::nullopt;
  const auto body = bytes.first(bytes.size() - 32);
  if (!std::equal(body.begin(), body.begin() + 8, std::as_bytes(std::span(state_magic)).begin())) return std::nullopt;
  Hash256 check;
  std::copy(bytes.end() - 32, bytes.end(), check.bytes().begin());
  if (sha256(body) != check) return std::nullopt;
  DecodingContext in(body.subspan(8));
  State s;
  s.magic = wire::decode_u32(in);
  in.read(std::span<std::byte, 8>(s.key));
  s.records = wire::decode_u64(in);
  s.resume.file = wire::decode_u32(in);
  s.resume.offset = wire::decode_u64(in);
  s.last.file = wire::decode_u32(in);
  s.last.offset = wire::decode_u64(in);
  wire::decode_hash(in, s.last_hash);
  wire::decode_hash(in, s.tip);
  wire::decode_hash(in, s.chain_hash);
  const std::uint32_t files = wire::decode_u32(in);
  if (!in.ok() || files > (body.size() - 8 - in.offset()) / 8) return std::nullopt;
  for (std::uint32_t f = 0; f < files; ++f) s.file_sizes.push_back(wire::decode_u64(in));
  if (!in.ok() || in.offset() != body.size() - 8) return std::nullopt;
  return s;
}

std::uint32_t magic_word(network net) {
  const Magic m = magic(net);
  std::uint32_t v = 0;
  std::memcpy(&v, m.data(), 4);
  return v;
}

result<std::vector<std::byte>> read_whole(const std::string& path) {
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  std::vector<std::byte> out;
  std::array<std::byte, 4096> chunk{};
  for (;;) {
    auto got = file.value().read_some(chunk);
    if (!got) return got.error();
    if (got.value() == 0) return out;
    out.insert(out.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(got.value()));
  }
}

// Written whole under a temporary name, synced, then renamed over `path`.
result<void> replace_file(const std::string& path, std::span<const std::byte> bytes) {
  const std::string temporary = path + ".tmp";
  auto file = FileWriter::create(temporary.c_str());
  if (!file) return file.error();
  if (auto r = file.value().write(bytes); !r) return r;
  if (auto r = file.value().sync(); !r) return r;
  if (auto r = file.value().close(); !r) return r;
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) return ec;
  return success();
}

// The sizes of the directory's blk files, in number order from 0 (a
// missing number: 0).
result<std::vector<std::uint64_t>> file_sizes(const std::string& blocks_dir) {
  auto files = block_files(blocks_dir);
  if (!files) return files.error();
  std::vector<std::uint64_t> sizes;
  for (const std::string& path : files.value()) {
    const unsigned n = *block_file_number(fs::path(path).filename().string());
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) return ec;
    if (sizes.size() <= n) sizes.resize(n + 1, 0);
    sizes[n] = size;
  }
  return sizes;
}

// Whether the record at `at` holds the block `hash`: empty, or what is wrong.
std::string check_record(const std::string& blocks_dir, const XorKey& key, network net, BlockPosition at, const BlockHash& hash) {
  const std::string name = block_file_name(at.file);
  auto header = read_block_header((fs::path(blocks_dir) / name).string(), at.offset, key, net, hash);
  if (header) return {};
  const error& e = header.error();
  if (e.code() == blockfiles::errc::bad_magic || e.code() == blockfiles::errc::wrong_block) {
    return name + ":" + std::to_string(at.offset) + ": the record there is not block " + hash.to_hex() + " any more";
  }
  return name + ": " + e.message();
}

}  // namespace

result<void> BlockIndex::save(const std::string& kept_dir, bool undo_wanted,
                              const std::function<std::optional<std::uint32_t>(const BlockHash&)>& undo_offset_of, bool rewrite) {
  if (problem_count_ != 0 || !orphans_.empty() || empty()) return success();  // damage is found again each time, never kept
  // The blocks kept: every one but those from the first near the tip whose
  // undo record is wanted and not known on (they are read again next time).
  std::size_t kept = entries_.size();
  std::vector<std::uint32_t> undo(entries_.size(), 0);
  std::vector<bool> has_undo(entries_.size(), false);
  for (std::uint32_t id = 0; id < entries_.size(); ++id) {
    const IndexedBlock b = block(id);
    if (b.undo_offset) {
      undo[id] = *b.undo_offset;
      has_undo[id] = true;
    } else if (const auto found = undo_offset_of(b.hash)) {
      undo[id] = *found;
      has_undo[id] = true;
    } else if (undo_wanted && id >= first_read_ && b.linked && !b.is_genesis() && (!tip_height() || *tip_height() - b.height <= 6)) {
      // Read from the files near the tip, its record not written yet (a
      // node writes it after the block): read again next time.
      kept = id;
      break;
    }
  }
  // Where reading goes on: past the last block kept, or at the first
  // record of those left out (ids are not file order: the lowest place).
  BlockPosition resume{resume_file_, resume_offset_};
  for (std::size_t id = kept; id < entries_.size(); ++id) {
    const IndexedBlock out = block(id);
    if (std::tie(out.file, out.offset) < std::tie(resume.file, resume.offset)) resume = {out.file, out.offset};
  }
  State state;
  state.magic = magic_word(net_);
  state.key = key_;
  state.records = kept;
  state.resume = resume;
  // The tip of what is kept: the best chain's highest block among them.
  for (std::size_t h = best_.size(); h-- > 0;) {
    if (best_[h] < kept) {
      state.tip = entries_[best_[h]].hash;
      break;
    }
  }
  // The last record kept, and how long each blk file must be at least (its
  // last record kept: Core cuts a file's pre-allocated zeros off when it
  // moves to the next, so the size it had says nothing).
  bool any = false;
  for (std::uint32_t id = 0; id < kept; ++id) {
    const IndexedBlock b = block(id);
    if (b.pruned) continue;  // (no record to check)
    if (!any || std::tie(b.file, b.offset) > std::tie(state.last.file, state.last.offset)) {
      state.last = {b.file, b.offset};
      state.last_hash = b.hash;
      any = true;
    }
    if (state.file_sizes.size() <= b.file) state.file_sizes.resize(b.file + 1, 0);
    state.file_sizes[b.file] = std::max<std::uint64_t>(state.file_sizes[b.file], b.offset + 8 + header_size);
  }
  // (Blocks kept past the first left out: a reading from there would read
  // them twice and find the ones between. Not kept this time.)
  if (!any || std::tie(state.last.file, state.last.offset) >= std::tie(resume.file, resume.offset)) return success();

  std::error_code ec;
  fs::create_directories(kept_dir, ec);
  if (ec) return ec;
  // One writer at a time; another process keeping it now: left to it.
  auto lock = lock_file((fs::path(kept_dir) / "lock").c_str(), true);
  if (!lock) return lock.error().code() == io::errc::locked ? success() : result<void>(lock.error());
  const std::string chain_path = (fs::path(kept_dir) / "chain.dat").string();
  // Appended where chain.dat is still what this index read or wrote (its
  // blocks with the same ids: no build laid them out anew, no other
  // process wrote it since); else written anew.
  std::size_t from = 0;
  if (!rewrite && kept_records_ != 0 && kept >= kept_records_) {
    auto bytes = read_whole((fs::path(kept_dir) / "state.dat").string());
    const auto there = bytes ? decode_state(bytes.value()) : std::nullopt;
    if (there && there->records == kept_records_ && there->chain_hash == kept_chain_hash_) from = kept_records_;
  }
  Out o;
  o.bytes.reserve((1 << 20) + record_size);
  if (from == 0) o.write(std::as_bytes(std::span(chain_magic)));
  const auto record = [&](std::uint32_t id) {
    const Entry& e = entries_[id];
    wire::encode_hash(o, e.hash);
    wire::encode_u32(o, has_undo[id] ? e.file_word | Entry::undo_known : e.file_word & ~Entry::undo_known);
    wire::encode_u32(o, e.offset);
    wire::encode_u32(o, undo[id]);
    wire::encode_u32(o, e.time);
    wire::encode_u32(o, e.bits);
    const auto parent = parent_of(id);
    wire::encode_u32(o, parent ? *parent : no_parent);
  };
  Sha256 chain_hash;
  if (from == 0) {
    const std::string temporary = chain_path + ".tmp";
    auto file = FileWriter::create(temporary.c_str());
    if (!file) return file.error();
    for (std::uint32_t id = 0; id < kept; ++id) {
      record(id);
      if (o.bytes.size() >= (1 << 20) || id + 1 == kept) {
        chain_hash.update(o.bytes);
        if (auto r = file.value().write(o.bytes); !r) return r;
        o.bytes.clear();
      }
    }
    if (auto r = file.value().sync(); !r) return r;
    if (auto r = file.value().close(); !r) return r;
    // The pruned blocks' headers, before chain.dat names them.
    const std::string pruned_path = (fs::path(kept_dir) / "pruned.dat").string();
    Out p;
    for (std::uint32_t id = 0; id < kept && !pruned_headers_.empty(); ++id) {
      if ((entries_[id].file_word & Entry::no_data) == 0) continue;
      const PrunedHeader& h = pruned_headers_[id];
      wire::encode_u32(p, id);
      wire::encode_u32(p, static_cast<std::uint32_t>(h.version));
      wire::encode_hash(p, h.merkle_root);
      wire::encode_u32(p, h.nonce);
      wire::encode_u32(p, h.tx_count);
    }
    if (!p.bytes.empty()) {
      wire::encode_hash(p, sha256(p.bytes));
      if (auto r = replace_file(pruned_path, p.bytes); !r) return r;
    } else {
      fs::remove(pruned_path, ec);
    }
    fs::rename(temporary, chain_path, ec);
    if (ec) return ec;
  } else if (kept > from) {
    // (A record past what state.dat counted, an append cut short, is
    // written over.)
    if (::truncate(chain_path.c_str(), static_cast<off_t>(8 + from * record_size)) != 0) return last_system_error();
    // The hash covers the whole: what is there read back first.
    {
      auto old = FileReader::open(chain_path.c_str());
      if (!old) return old.error();
      std::vector<std::byte> chunk(1 << 20);
      for (std::uint64_t at = 0, end = 8 + from * record_size; at < end;) {
        const auto part = std::span<std::byte>(chunk).first(static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), end - at)));
        if (auto r = read_at(old.value().fd(), part, at); !r) return r;
        chain_hash.update(part);
        at += part.size();
      }
    }
    auto file = FileWriter::append(chain_path.c_str());
    if (!file) return file.error();
    for (std::uint32_t id = static_cast<std::uint32_t>(from); id < kept; ++id) record(id);
    chain_hash.update(o.bytes);
    if (auto r = file.value().write(o.bytes); !r) return r;
    if (auto r = file.value().sync(); !r) return r;
    if (auto r = file.value().close(); !r) return r;
  }
  if (kept == from) return success();  // nothing new
  state.chain_hash = chain_hash.finish();
  if (auto r = replace_file((fs::path(kept_dir) / "state.dat").string(), encode_state(state)); !r) return r;
  kept_records_ = kept;  // chain.dat holds blocks 0..kept-1 by id now
  kept_chain_hash_ = state.chain_hash;
  return success();
}

std::variant<BlockIndex, std::string> BlockIndex::load(const std::string& kept_dir, const std::string& blocks_dir, const XorKey& key,
                                                       network net) {
  const std::string state_path = (fs::path(kept_dir) / "state.dat").string();
  std::error_code ec;
  if (!fs::exists(state_path, ec)) return std::string();  // none kept: nothing to say
  auto state_bytes = read_whole(state_path);
  if (!state_bytes) return state_path + ": " + state_bytes.error().message();
  const auto state = decode_state(state_bytes.value());
  if (!state) return state_path + ": damaged";
  if (state->magic != magic_word(net) || state->key != key) return state_path + ": made for another network or key";
  // The blk files: none shorter than it was (a cut-back directory is
  // another directory), the last record and the tip where they were.
  auto sizes = file_sizes(blocks_dir);
  if (!sizes) return blocks_dir + ": " + sizes.error().message();
  for (std::size_t f = 0; f < state->file_sizes.size(); ++f) {
    if (state->file_sizes[f] != 0 && (f >= sizes.value().size() || sizes.value()[f] < state->file_sizes[f])) {
      return block_file_name(static_cast<unsigned>(f)) + " is shorter than when the index was kept (it ends before a block it knows)";
    }
  }
  if (auto wrong = check_record(blocks_dir, key, net, state->last, state->last_hash); !wrong.empty()) return wrong;

  BlockIndex index(blocks_dir, net, key);
  const std::string chain_path = (fs::path(kept_dir) / "chain.dat").string();
  auto file = FileReader::open(chain_path.c_str());
  if (!file) return chain_path + ": " + file.error().message();
  const std::uint64_t n = state->records;
  const std::uintmax_t size = fs::file_size(chain_path, ec);
  if (ec || n > 0xfffffff0 || size < 8 + n * record_size) return chain_path + ": shorter than its state says";
  index.entries_.reserve(n);
  std::vector<std::uint32_t> parent;
  parent.reserve(n);
  std::vector<bool> genesis(n, false);
  std::vector<std::byte> chunk(record_size * 16384);
  std::array<std::byte, 8> head{};
  if (auto r = read_at(file.value().fd(), head, 0);
      !r || !std::equal(head.begin(), head.end(), std::as_bytes(std::span(chain_magic)).begin())) {
    return chain_path + ": not a kept index";
  }
  Sha256 chain_hash;
  chain_hash.update(head);
  for (std::uint64_t at = 0; at < n;) {
    const std::uint64_t count = std::min<std::uint64_t>(n - at, chunk.size() / record_size);
    const auto bytes = std::span<std::byte>(chunk).first(count * record_size);
    if (auto r = read_at(file.value().fd(), bytes, 8 + at * record_size); !r) return chain_path + ": " + r.error().message();
    chain_hash.update(bytes);
    DecodingContext in(bytes);  // (whole records: every field is there)
    for (std::uint64_t i = 0; i < count; ++i) {
      Entry e;
      wire::decode_hash(in, e.hash);
      e.file_word = wire::decode_u32(in);
      e.offset = wire::decode_u32(in);
      e.undo_offset = wire::decode_u32(in);
      e.time = wire::decode_u32(in);
      e.bits = wire::decode_u32(in);
      const std::uint32_t p = wire::decode_u32(in);
      if (p != no_parent && p >= n) return chain_path + ": a record's parent is not there";
      genesis[at + i] = p == no_parent;
      if ((e.file_word & Entry::no_data) != 0) ++index.pruned_entries_;
      parent.push_back(p == no_parent ? ~std::uint32_t{0} : p);
      index.entries_.push_back(e);
    }
    at += count;
  }
  if (chain_hash.finish() != state->chain_hash) return chain_path + ": damaged (its hash is not the one kept)";
  if (index.pruned_entries_ != 0) {
    // The pruned blocks' headers: every one chain.dat flags, none other.
    const std::string pruned_path = (fs::path(kept_dir) / "pruned.dat").string();
    auto bytes = read_whole(pruned_path);
    if (!bytes) return pruned_path + ": " + bytes.error().message();
    const std::span<const std::byte> all = bytes.value();
    constexpr std::size_t record = 48;
    if (all.size() < 32 || (all.size() - 32) % record != 0 || (all.size() - 32) / record != index.pruned_entries_) {
      return pruned_path + ": not the pruned blocks chain.dat holds";
    }
    Hash256 check;
    std::copy(all.end() - 32, all.end(), check.bytes().begin());
    if (sha256(all.first(all.size() - 32)) != check) return pruned_path + ": damaged (its hash does not match)";
    index.pruned_headers_.resize(n);
    DecodingContext in(all.first(all.size() - 32));
    for (std::size_t i = 0; i < index.pruned_entries_; ++i) {
      const std::uint32_t id = wire::decode_u32(in);
      PrunedHeader h;
      h.version = static_cast<std::int32_t>(wire::decode_u32(in));
      wire::decode_hash(in, h.merkle_root);
      h.nonce = wire::decode_u32(in);
      h.tx_count = wire::decode_u32(in);
      if (id >= n || (index.entries_[id].file_word & Entry::no_data) == 0) return pruned_path + ": not the pruned blocks chain.dat holds";
      index.pruned_headers_[id] = h;
    }
  }
  index.index_slots();
  const std::size_t kept = n;
  const bool moved =
      index.link_all(std::move(parent), std::move(genesis), state->tip, [](std::uint32_t) { return BlockHash::all_zeros(); });
  if (index.empty() || index.tip() != state->tip || !index.orphans_.empty()) return chain_path + ": its chain does not hold together";
  // The tip's record and a sample's, against the files.
  {
    const IndexedBlock top = index.tip_block();
    if (auto wrong = check_record(blocks_dir, key, net, {top.file, top.offset}, top.hash); !wrong.empty()) return wrong;
    std::mt19937_64 pick(std::random_device{}());
    for (std::size_t i = 0; i < checked_sample; ++i) {
      const IndexedBlock b = index.block(pick() % index.size());
      if (b.pruned) continue;
      if (auto wrong = check_record(blocks_dir, key, net, {b.file, b.offset}, b.hash); !wrong.empty()) return wrong;
    }
  }
  index.kept_records_ = moved ? 0 : kept;
  index.kept_chain_hash_ = state->chain_hash;
  index.first_read_ = index.size();
  index.last_record_ = state->last;
  index.last_record_hash_ = state->last_hash;
  index.resume_file_ = state->resume.file;
  index.resume_offset_ = state->resume.offset;
  auto files = block_files(blocks_dir);
  if (!files) return blocks_dir + ": " + files.error().message();
  if (auto r = index.read_files(files.value(), state->resume.file, state->resume.offset); !r)
    return blocks_dir + ": " + r.error().message();
  if (index.uncommitted_) {
    index.add_record_problem(
        {IndexProblem::kind::unfinished_batch, index.uncommitted_->file, index.uncommitted_->offset, index.uncommitted_records_, {}});
  }
  index.link_fresh();
  index.gather_problems();
  return index;
}

}  // namespace blockwire
