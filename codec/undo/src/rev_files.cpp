#include <blockwire/codec/wire.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/io/siphash.hpp>
#include <blockwire/io/xor.hpp>
#include <blockwire/undo/rev_files.hpp>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <linux/falloc.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace blockwire {
namespace {

std::error_code last_os_error() { return {errno, std::system_category()}; }

// The shape as a hash key: the counts through SipHash (any fixed key; the
// checksum settles a collision).
SipHasher shape_hasher() noexcept { return SipHasher(0, 0); }

}  // namespace

Hash256 undo_checksum(const Hash256& parent_hash, std::span<const std::byte> undo_bytes) {
  Sha256 h;
  h.update(parent_hash.bytes());
  h.update(undo_bytes);
  return sha256d_of(h);
}

std::uint64_t undo_shape(const Block& block) {
  SipHasher s = shape_hasher();
  s.update_word(block.transactions.empty() ? 0 : block.transactions.size() - 1);
  for (std::size_t i = 1; i < block.transactions.size(); ++i) s.update_word(block.transactions[i].inputs().size());
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

result<BlockPosition> UndoFileWriter::append(const BlockUndo& undo, const Hash256& parent_hash, unsigned file) {
  if (!file_ || file != file_number_) {
    if (auto r = close(); !r) return r.error();
    auto opened = FileWriter::append((std::filesystem::path(dir_) / undo_file_name(file)).c_str());
    if (!opened) return opened.error();
    file_.emplace(std::move(opened).value());
    file_number_ = file;
    reserved_ = 0;
  }
  const off_t end = ::lseek(file_->fd(), 0, SEEK_END);
  if (end < 0) return last_os_error();
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
    (void)::ftruncate(file_->fd(), end);  // nothing partial stays
    return error(r.error().code(), offset);
  }
  return BlockPosition{file, offset};
}

result<void> UndoFileWriter::close() {
  if (!file_) return success();
  auto r = file_->close();
  file_.reset();
  return r;
}

struct UndoFileReader::State {
  FileReader file;
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
      if (got.value() == 0) return error(undo_errc::truncated_record, at);
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
  struct stat st{};
  if (::fstat(file.value().fd(), &st) != 0) return last_os_error();
  if (start_offset != 0 && ::lseek(file.value().fd(), static_cast<off_t>(start_offset), SEEK_SET) < 0) return last_os_error();
  auto state =
      std::make_unique<State>(State{std::move(file).value(), key, magic(net), static_cast<std::uint64_t>(st.st_size), start_offset, {}});
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
    return error(have < 8 ? undo_errc::truncated_record : undo_errc::bad_magic, at);
  }
  const std::uint32_t length = wire::from_le<std::uint32_t>(std::array<std::byte, 4>{head[4], head[5], head[6], head[7]});
  if (std::uint64_t{length} + 32 > s.size - s.offset) return error(undo_errc::truncated_record, at);
  s.buffer.resize(length + std::size_t{32});
  if (auto r = s.read_exact(s.buffer); !r) return r.error();
  UndoRecord record;
  record.offset = at;
  record.bytes = std::span<const std::byte>(s.buffer).first(length);
  std::copy(s.buffer.end() - 32, s.buffer.end(), record.checksum.bytes().begin());
  return std::optional<UndoRecord>(record);
}

result<UndoIndex> UndoIndex::build(const std::string& blocks_dir, const XorKey& key, network net, std::optional<unsigned> only_file) {
  UndoIndex index;
  index.dir_ = blocks_dir;
  index.key_ = key;
  index.net_ = net;
  auto files = undo_files(blocks_dir);
  if (!files) return files.error();
  for (const std::string& path : files.value()) {
    const unsigned number = *undo_file_number(std::filesystem::path(path).filename().string());
    if (only_file && number != *only_file) continue;
    auto reader = UndoFileReader::open(path, key, net);
    if (!reader) return reader.error();
    for (;;) {
      auto record = reader.value().next();
      if (!record) {
        // Damaged framing: what follows in this file pairs with nothing
        // (scan reports it); an I/O failure is the caller's to know.
        if (record.error().code().category() == std::system_category()) return record.error();
        break;
      }
      if (!record.value()) break;
      auto undo = decode_block_undo(record.value()->bytes);
      if (!undo) continue;  // scan reports it; here it pairs with nothing
      index.by_shape_.emplace(undo_shape(undo.value()), Where{number, record.value()->offset});
    }
  }
  return index;
}

result<std::optional<BlockUndo>> UndoIndex::find(const Block& block, unsigned file) const {
  return find(undo_shape(block), block.header.prev_block, file);
}

result<std::optional<BlockUndo>> UndoIndex::find(const BlockView& block, unsigned file) const {
  return find(undo_shape(block), block.header().prev_block, file);
}

result<std::optional<BlockUndo>> UndoIndex::find(std::uint64_t shape, const Hash256& parent, unsigned file) const {
  const auto [first, last] = by_shape_.equal_range(shape);
  for (auto it = first; it != last; ++it) {
    if (it->second.file != file) continue;
    auto reader = UndoFileReader::open((std::filesystem::path(dir_) / undo_file_name(file)).string(), key_, net_, it->second.offset);
    if (!reader) return reader.error();
    auto record = reader.value().next();
    if (!record) return record.error();
    if (!record.value() || undo_checksum(parent, record.value()->bytes) != record.value()->checksum) continue;
    auto undo = decode_block_undo(record.value()->bytes);
    if (!undo) return undo.error();
    return std::optional<BlockUndo>(std::move(undo).value());
  }
  return std::optional<BlockUndo>{};
}

}  // namespace blockwire
