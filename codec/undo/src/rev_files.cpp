#include <blockwire/codec/wire.hpp>
#include <blockwire/io/buffered_reader.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/io/siphash.hpp>
#include <blockwire/io/xor.hpp>
#include <blockwire/undo/rev_files.hpp>

#include <algorithm>
#include <set>
#include <cerrno>
#include <fcntl.h>
#include <linux/falloc.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace blockwire {
namespace {

// The shape as a hash key: the counts through SipHash (any fixed key; the
// checksum settles a collision).
SipHasher shape_hasher() noexcept { return SipHasher(0, 0); }

}  // namespace

Hash256 undo_checksum(const BlockHash& parent_hash, std::span<const std::byte> undo_bytes) {
  Sha256 h;
  h.update(parent_hash.bytes());
  h.update(undo_bytes);
  return sha256d_of(h);
}

std::uint64_t undo_shape(const Block& block) {
  SipHasher s = shape_hasher();
  s.update_word(block.transactions.empty() ? 0 : block.transactions.size() - 1);
  for (std::size_t i = 1; i < block.transactions.size(); ++i) s.update_word(block.transactions[i].input_count());
  return s.finish();
}

std::uint64_t undo_shape(const BlockView& block) {
  SipHasher s = shape_hasher();
  s.update_word(block.transaction_count() == 0 ? 0 : block.transaction_count() - 1);
  for (std::size_t i = 1; i < block.transaction_count(); ++i) s.update_word(block.transaction(i).input_count());
  return s.finish();
}

std::uint64_t undo_shape(const BlockUndo& undo) {
  SipHasher s = shape_hasher();
  s.update_word(undo.transactions.size());
  for (const TxUndo& tx : undo.transactions) s.update_word(tx.coins.size());
  return s.finish();
}

UndoFileWriter::UndoFileWriter(std::string dir, const XorKey& key, network net) : dir_(std::move(dir)), key_(key), net_(net) {}

result<BlockPosition> UndoFileWriter::append(const BlockUndo& undo, const BlockHash& parent_hash, unsigned file) {
  if (!file_ || file != file_number_) {
    if (auto r = close(); !r) return r.error();
    auto opened = FileWriter::append((std::filesystem::path(dir_) / undo_file_name(file)).c_str());
    if (!opened) return opened.error();
    file_.emplace(std::move(opened).value());
    file_number_ = file;
    reserved_ = 0;
  }
  const off_t end = ::lseek(file_->fd(), 0, SEEK_END);
  if (end < 0) return last_system_error();
  const auto offset = static_cast<std::uint64_t>(end);

  // The record in one buffer: the frame (its length filled in after), the
  // undo data, the checksum over the data while it is in cache, then the
  // key over the whole, then one write.
  buffer_.resize(8);
  const Magic m = magic(net_);
  std::copy(m.begin(), m.end(), buffer_.begin());
  encode_block_undo(undo, buffer_);
  const std::size_t size = buffer_.size() - 8;
  const auto length = wire::to_le(static_cast<std::uint32_t>(size));
  std::copy(length.begin(), length.end(), buffer_.begin() + 4);
  const Hash256 check = undo_checksum(parent_hash, std::span<const std::byte>(buffer_).subspan(8));
  buffer_.insert(buffer_.end(), check.bytes().begin(), check.bytes().end());
  xor_in_place(buffer_, key_, offset);
  // Reserve the disk space a MiB at a time (Core's UNDOFILE_CHUNK_SIZE),
  // keeping the size: a write into reserved blocks is cheaper, and the file
  // less fragmented. Where the file system cannot, the write goes on.
  if (offset + buffer_.size() > reserved_) {
    constexpr std::uint64_t chunk = 1 << 20;
    const std::uint64_t upto = (offset + buffer_.size() + chunk - 1) / chunk * chunk;
    if (::fallocate(file_->fd(), FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset), static_cast<off_t>(upto - offset)) == 0) reserved_ = upto;
  }
  if (auto r = file_->write(buffer_); !r) {
    // Nothing partial stays; if the cut fails too, the write's error is the
    // one said, and the torn tail is cut when the directory is next opened.
    if (::ftruncate(file_->fd(), end) != 0) return error(r.error().code(), offset);
    return error(r.error().code(), offset);
  }
  return BlockPosition{file, offset};
}

result<void> UndoFileWriter::close() {
  if (!file_) return success();
  auto r = file_->sync();  // whole on disk before the blocks' batch commits
  if (r) r = file_->close();
  file_.reset();
  return r;
}

struct UndoFileReader::State {
  State(FileReader f, const XorKey& k, const Magic& m, std::uint64_t file_size, std::uint64_t at)
      : file(std::move(f)), key(k), magic(m), size(file_size), offset(at) {}

  // Buffered: a record's frame and its data would otherwise be two reads
  // of the kernel's each (early mainnet's records are a few bytes).
  BufferedReader<FileReader> file;
  XorKey key;
  Magic magic;
  std::uint64_t size = 0;    // of the file
  std::uint64_t offset = 0;  // of the next record
  std::vector<std::byte> buffer;

  // Exactly out.size() bytes at the current offset, un-XORed.
  result<void> read_exact(std::span<std::byte> out) {
    const std::uint64_t at = offset;
    std::size_t done = 0;
    while (done < out.size()) {
      auto got = file.read_some(out.subspan(done));
      if (!got) return error(got.error().code(), at);
      if (got.value() == 0) return error(undo::errc::truncated_record, at);
      done += got.value();
    }
    xor_in_place(out, key, offset);
    offset += out.size();
    return success();
  }
};

UndoFileReader::UndoFileReader(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
UndoFileReader::UndoFileReader(UndoFileReader&&) noexcept = default;
UndoFileReader& UndoFileReader::operator=(UndoFileReader&&) noexcept = default;
UndoFileReader::~UndoFileReader() = default;

result<UndoFileReader> UndoFileReader::open(const std::string& path, const XorKey& key, network net, std::uint64_t start_offset) {
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  struct stat st {};
  if (::fstat(file.value().fd(), &st) != 0) return last_system_error();
  if (start_offset != 0 && ::lseek(file.value().fd(), static_cast<off_t>(start_offset), SEEK_SET) < 0) return last_system_error();
  auto state = std::make_unique<State>(std::move(file).value(), key, magic(net), static_cast<std::uint64_t>(st.st_size), start_offset);
  return UndoFileReader(std::move(state));
}

result<std::optional<UndoRecord>> UndoFileReader::next() {
  State& s = *state_;
  const std::uint64_t at = s.offset;
  if (at >= s.size) return std::optional<UndoRecord>{};
  std::array<std::byte, 8> head{};
  const std::uint64_t have = std::min<std::uint64_t>(8, s.size - at);
  if (auto r = s.read_exact(std::span<std::byte>(head.data(), have)); !r) return r.error();
  // The magic first: with a key byte equal to the magic's first byte, a
  // real record begins with a zero on disk. Only where no magic is, a zero
  // (on disk or once un-XORed) is Core's padding and ends the file.
  if (have < 8 || !std::equal(s.magic.begin(), s.magic.end(), head.begin())) {
    const std::byte raw_first = head[0] ^ s.key[at % 8];
    if (head[0] == std::byte{0} || raw_first == std::byte{0}) {
      s.offset = s.size;
      return std::optional<UndoRecord>{};
    }
    return error(have < 8 ? undo::errc::truncated_record : undo::errc::bad_magic, at);
  }
  const std::uint32_t length = wire::from_le<std::uint32_t>(std::array<std::byte, 4>{head[4], head[5], head[6], head[7]});
  if (std::uint64_t{length} + 32 > s.size - s.offset) return error(undo::errc::truncated_record, at);
  s.buffer.resize(length + std::size_t{32});
  if (auto r = s.read_exact(s.buffer); !r) return r.error();
  UndoRecord record;
  record.offset = at;
  record.bytes = std::span<const std::byte>(s.buffer).first(length);
  std::copy(s.buffer.end() - 32, s.buffer.end(), record.checksum.bytes().begin());
  return std::optional<UndoRecord>(record);
}

result<std::uint64_t> undo_records_end(const std::string& path, const XorKey& key, network net) {
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  struct stat st {};
  if (::fstat(file.value().fd(), &st) != 0) return last_system_error();
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const Magic m = magic(net);
  std::uint64_t at = 0;
  while (at + 8 <= size) {
    std::array<std::byte, 8> head{};
    if (auto r = read_at(file.value().fd(), head, at); !r) {
      if (r.error().code() == io::errc::truncated) return at;  // shrank while walked
      return error(r.error().code(), at);
    }
    xor_in_place(head, key, at);
    if (!std::equal(m.begin(), m.end(), head.begin())) return at;  // Core's zeros, or damage the reader reports
    const std::uint32_t length = wire::from_le<std::uint32_t>(std::array<std::byte, 4>{head[4], head[5], head[6], head[7]});
    if (std::uint64_t{length} + 40 > size - at) return at;  // cut short: not yet whole
    at += std::uint64_t{length} + 40;
  }
  return at;
}

UndoPairer::UndoPairer(std::vector<Candidate> blocks) : blocks_(std::move(blocks)), budget_(4 * std::uint64_t{blocks_.size()} + 64) {
  for (std::size_t i = 0; i < blocks_.size(); ++i) children_.emplace(blocks_[i].parent, i);
  // Breadth first from the blocks whose parent is not among them: the
  // order a node connects them in, so a search finds the next record's
  // block early.
  std::set<BlockHash> hashes;
  for (const Candidate& b : blocks_) hashes.insert(b.hash);
  std::vector<bool> queued(blocks_.size(), false);
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    if (!hashes.contains(blocks_[i].parent)) {
      chain_order_.push_back(i);
      queued[i] = true;
    }
  }
  for (std::size_t at = 0; at < chain_order_.size(); ++at) {
    const auto [first, last] = children_.equal_range(blocks_[chain_order_[at]].hash);
    for (auto it = first; it != last; ++it) {
      if (!queued[it->second]) {
        queued[it->second] = true;
        chain_order_.push_back(it->second);
      }
    }
  }
  for (std::size_t i = 0; i < blocks_.size(); ++i) {  // in a cycle of parents: unreachable, still candidates
    if (!queued[i]) chain_order_.push_back(i);
  }
}

bool UndoPairer::fits(std::size_t block, std::uint64_t shape) const noexcept {
  return !blocks_[block].shape || *blocks_[block].shape == shape;
}

std::optional<std::size_t> UndoPairer::pair(std::span<const std::byte> undo_bytes, const Hash256& checksum, std::uint64_t shape) {
  // A child of `parent` that fits, if the record's checksum is over it (one
  // checksum: every child has that parent).
  const auto child_of = [&](const BlockHash& parent) -> std::optional<std::size_t> {
    const auto [first, last] = children_.equal_range(parent);
    std::optional<std::size_t> fitting;
    for (auto it = first; it != last && !fitting; ++it) {
      if (fits(it->second, shape)) fitting = it->second;
    }
    if (!fitting || undo_checksum(parent, undo_bytes) != checksum) return std::nullopt;
    return fitting;
  };
  if (last_) {
    // The chain's next block: a child of the last one paired. Then what a
    // damaged record or a reorg makes of the order: a grandchild (the
    // record before was unreadable), a sibling (the other branch).
    std::optional<std::size_t> found = child_of(blocks_[*last_].hash);
    if (!found) {
      const auto [first, last] = children_.equal_range(blocks_[*last_].hash);
      for (auto it = first; it != last && !found; ++it) found = child_of(blocks_[it->second].hash);
    }
    if (!found) found = child_of(blocks_[*last_].parent);
    if (found) {
      last_ = found;
      return found;
    }
  }
  // A search, in chain order, each candidate looked at charged to the budget.
  for (const std::size_t i : chain_order_) {
    if (budget_ == 0) return std::nullopt;
    --budget_;
    if (fits(i, shape) && undo_checksum(blocks_[i].parent, undo_bytes) == checksum) {
      last_ = i;
      return last_;
    }
  }
  return std::nullopt;
}

std::vector<std::size_t> UndoPairer::siblings(std::size_t block, std::uint64_t shape) const {
  std::vector<std::size_t> out;
  const auto [first, last] = children_.equal_range(blocks_[block].parent);
  for (auto it = first; it != last; ++it) {
    if (it->second != block && fits(it->second, shape)) out.push_back(it->second);
  }
  return out;
}

result<UndoIndex> UndoIndex::build(const std::string& blocks_dir, const XorKey& key, const BlockIndex& blocks, network net,
                                   std::optional<unsigned> only_file) {
  if (only_file) {
    const FileFrom one[] = {{*only_file, 0}};
    return build(blocks_dir, key, blocks, net, std::span<const FileFrom>(one));
  }
  return build(blocks_dir, key, blocks, net, std::span<const FileFrom>());
}

result<std::uint64_t> UndoIndex::record_end(const std::string& path, const XorKey& key, network net, std::uint64_t offset) {
  auto reader = UndoFileReader::open(path, key, net, offset);
  if (!reader) return reader.error();
  auto record = reader.value().next();
  if (!record) return record.error();
  if (!record.value()) return offset;
  return offset + 8 + record.value()->bytes.size() + 32;
}

result<UndoIndex> UndoIndex::build(const std::string& blocks_dir, const XorKey& key, const BlockIndex& blocks, network net,
                                   std::span<const FileFrom> only_files) {
  const auto from_of = [&](unsigned file) -> std::optional<std::uint64_t> {
    if (only_files.empty()) return 0;
    const auto it = std::find_if(only_files.begin(), only_files.end(), [&](const FileFrom& f) { return f.file == file; });
    if (it == only_files.end()) return std::nullopt;
    return it->offset;
  };
  const auto wanted = [&](unsigned file) { return from_of(file).has_value(); };
  UndoIndex index;
  index.key_ = key;
  index.net_ = net;
  auto files = undo_files(blocks_dir);
  if (!files) return files.error();
  // Each blk file's blocks (ids), the best chain's first (where two share
  // a parent and the shape is not known, the best chain's is the likelier).
  std::map<unsigned, std::vector<std::size_t>> by_file;
  for (const Height h : blocks.chain_size().heights()) {
    const IndexedBlock b = blocks.at_height(h);
    if (!b.pruned && wanted(b.file)) by_file[b.file].push_back(b.id);
  }
  for (std::size_t id = 0; id < blocks.size(); ++id) {
    const IndexedBlock b = blocks.block(id);
    if (!b.pruned && wanted(b.file) && !blocks.on_best_chain(b)) by_file[b.file].push_back(id);
  }
  for (const std::string& path : files.value()) {
    const unsigned number = *undo_file_number(std::filesystem::path(path).filename().string());
    if (!wanted(number)) continue;
    std::vector<UndoPairer::Candidate> candidates;
    const std::vector<std::size_t>& in_file = by_file[number];
    candidates.reserve(in_file.size());
    for (const std::size_t id : in_file) {
      const IndexedBlock b = blocks.block(id);
      const auto parent = blocks.parent(b);  // (none: a genesis block, or one linked to nothing)
      candidates.push_back({b.hash, parent ? parent->hash : BlockHash::all_zeros(), std::nullopt});
    }
    UndoPairer pairer(std::move(candidates));
    auto reader = UndoFileReader::open(path, key, net, *from_of(number));
    if (!reader) return reader.error();
    auto fd = FileReader::open(path.c_str());
    if (!fd) return fd.error();
    index.files_.push_back({number, FileDescriptor(::dup(fd.value().fd()), ownership::own)});
    if (index.files_.back().fd.get() < 0) return last_system_error();
    const std::size_t file_index = index.files_.size() - 1;
    for (;;) {
      auto record = reader.value().next();
      if (!record) {
        // Damaged framing: what follows in this file pairs with nothing
        // (scan reports it); an I/O failure is the caller's to know.
        if (record.error().is_io()) return record.error();
        ++index.unpaired_;
        break;
      }
      if (!record.value()) break;
      const UndoRecord& r = *record.value();
      auto undo = decode_block_undo(r.bytes);
      const std::uint64_t shape = undo ? undo_shape(undo.value()) : 0;
      const auto paired = undo ? pairer.pair(r.bytes, r.checksum, shape) : std::nullopt;
      if (!paired) {
        ++index.unpaired_;
        continue;
      }
      const Where where{file_index, r.offset, static_cast<std::uint32_t>(r.bytes.size())};
      index.paired_.emplace(pairer.hash(*paired), where);
      for (const std::size_t sibling : pairer.siblings(*paired, shape)) index.paired_.emplace(pairer.hash(sibling), where);
    }
  }
  return index;
}

result<UndoIndex> UndoIndex::known(const std::string& blocks_dir, const XorKey& key, network net) {
  UndoIndex index;
  index.key_ = key;
  index.net_ = net;
  auto files = undo_files(blocks_dir);
  if (!files) return files.error();
  for (const std::string& path : files.value()) {
    auto reader = FileReader::open(path.c_str());
    if (!reader) return reader.error();
    index.files_.push_back(
        {*undo_file_number(std::filesystem::path(path).filename().string()), FileDescriptor(::dup(reader.value().fd()), ownership::own)});
    if (index.files_.back().fd.get() < 0) return last_system_error();
  }
  return index;
}

std::optional<std::uint32_t> UndoIndex::offset_of(const BlockHash& block_hash) const {
  const auto [first, last] = paired_.equal_range(block_hash);
  if (first == last || std::prev(last)->second.offset > 0xffffffff) return std::nullopt;
  return static_cast<std::uint32_t>(std::prev(last)->second.offset);
}

bool UndoIndex::has_file(unsigned file) const noexcept {
  return std::any_of(files_.begin(), files_.end(), [file](const OpenFile& f) { return f.number == file; });
}

result<BlockUndo> UndoIndex::read(std::size_t file, std::uint64_t offset, std::uint32_t length, const BlockHash& parent) const {
  const int fd = files_[file].fd.get();
  const bool placed = length == 0;
  if (placed) {
    // Where an index put it: the frame says how long.
    std::array<std::byte, 8> head{};
    if (auto r = read_at(fd, head, offset); !r) {
      if (r.error().code() == io::errc::truncated) return error(undo::errc::truncated_record, offset);
      return error(r.error().code(), offset);
    }
    xor_in_place(head, key_, offset);
    const Magic m = magic(net_);
    if (!std::equal(m.begin(), m.end(), head.begin())) return error(undo::errc::bad_magic, offset);
    length = wire::from_le<std::uint32_t>(std::array<std::byte, 4>{head[4], head[5], head[6], head[7]});
    // Not more than the file holds: the length is what the bytes claim.
    struct stat st {};
    if (::fstat(fd, &st) != 0) return error(last_system_error(), offset);
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (offset > size || std::uint64_t{length} + 40 > size - offset) return error(undo::errc::truncated_record, offset);
  }
  std::vector<std::byte> bytes(std::size_t{length} + (placed ? 32 : 0));
  const std::uint64_t at = offset + 8;
  if (auto r = read_at(fd, bytes, at); !r) {
    if (r.error().code() == io::errc::truncated) return error(undo::errc::truncated_record, offset);  // shrank since it was read
    return error(r.error().code(), offset);
  }
  xor_in_place(bytes, key_, at);
  if (placed) {
    Hash256 checksum;
    std::copy(bytes.end() - 32, bytes.end(), checksum.bytes().begin());
    bytes.resize(length);
    if (undo_checksum(parent, bytes) != checksum) return error(undo::errc::bad_checksum, offset);
  }
  auto undo = decode_block_undo(bytes);
  if (!undo) return error(undo.error().code(), offset);
  return std::move(undo).value();
}

result<std::optional<BlockUndo>> UndoIndex::find(const BlockHash& block_hash, std::uint64_t shape) const {
  const auto [first, last] = paired_.equal_range(block_hash);
  if (first == last) return std::optional<BlockUndo>{};
  std::optional<error> wrong;
  for (auto it = last; it != first;) {
    const Where& w = (--it)->second;
    auto undo = read(w.file, w.offset, w.length);
    if (!undo) return undo.error();
    if (undo_shape(undo.value()) == shape) return std::optional<BlockUndo>(std::move(undo).value());
    if (!wrong) wrong = error(undo::errc::wrong_shape, w.offset);  // the most recent one's place
  }
  return *wrong;
}

result<BlockUndo> UndoIndex::undo_of(const IndexedBlock& block, const BlockView& view) const {
  if (block.is_genesis()) return BlockUndo{};
  const auto file = std::find_if(files_.begin(), files_.end(), [&](const OpenFile& f) { return f.number == block.file; });
  if (file == files_.end()) return undo::errc::no_rev_file;
  if (block.undo_offset) {
    // Where an index of the node's says: read, and checked by its shape.
    auto undo = read(static_cast<std::size_t>(file - files_.begin()), *block.undo_offset, 0, view.header().prev_block);
    if (!undo) return undo.error();
    if (undo_shape(undo.value()) != undo_shape(view)) return error(undo::errc::wrong_shape, *block.undo_offset);
    return undo;
  }
  auto found = find(block.hash, undo_shape(view));
  if (!found) return found.error();
  if (!found.value()) return undo::errc::no_record;
  return std::move(*found.value());
}

}  // namespace blockwire
