#include <blockwire/blockfiles/block_file_reader.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/hashes.hpp>
#include <blockwire/io/file.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <cerrno>
#include <unistd.h>

namespace blockwire {

namespace {

// Room for the longest valid record twice over, so that a record never
// needs more than one compaction of the window.
constexpr std::size_t window_size = 2 * (std::size_t{max_block_size} + 8);

std::uint32_t le32(const std::byte* p) noexcept {
  return std::to_integer<std::uint32_t>(p[0]) | std::to_integer<std::uint32_t>(p[1]) << 8 | std::to_integer<std::uint32_t>(p[2]) << 16 |
         std::to_integer<std::uint32_t>(p[3]) << 24;
}

}  // namespace

BlockFileReader::BlockFileReader(reader_ref file, const XorKey& key, network net, std::uint64_t start_offset)
    : source_(file, key, start_offset), key_(key), magic_(magic(net)), window_(new std::byte[window_size]), base_(start_offset) {}

result<std::size_t> BlockFileReader::fill(std::size_t at_least) {
  while (end_ - begin_ < at_least && !eof_) {
    if (end_ == window_size) {  // full: move the unread bytes to the front
      std::memmove(window_.get(), window_.get() + begin_, end_ - begin_);
      base_ += begin_;
      end_ -= begin_;
      begin_ = 0;
    }
    auto got = source_.read_some(std::span<std::byte>(window_.get() + end_, window_size - end_));
    if (!got) return got.error();
    if (got.value() == 0) eof_ = true;
    end_ += got.value();
  }
  return end_ - begin_;
}

result<std::optional<BlockFileEvent>> BlockFileReader::next() {
  if (last_record_ && !pending_resync_) {
    // The record before was accepted: a damaged stretch, if any, ended.
    stretch_start_ = no_stretch;
    stretch_work_ = 0;
  }
  last_record_.reset();
  if (pending_resync_) {
    pending_resync_ = false;
    return resync(base_ + begin_, blockfiles::errc::undecodable_block);
  }
  auto avail = fill(8);
  if (!avail) return avail.error();
  if (avail.value() == 0) return std::nullopt;
  const std::uint64_t offset = base_ + begin_;

  // The magic first: where a key byte equals a magic byte, a valid record's
  // byte on disk is zero.
  const bool has_magic = avail.value() >= magic_.size() && std::memcmp(window_.get() + begin_, magic_.data(), magic_.size()) == 0;
  if (!has_magic && zero_run(begin_, begin_ + 1) == 1) {
    // Zeros: Core's pre-allocated space at the end of a file, or a gap.
    for (;;) {
      begin_ += zero_run(begin_, end_);
      if (begin_ != end_) break;
      auto more = fill(1);
      if (!more) return more.error();
      if (more.value() == 0) return std::nullopt;  // zero padding up to the end: not an error
    }
    return BlockFileEvent{SkippedBytes{offset, base_ + begin_ - offset, blockfiles::errc::zero_bytes, 0}};
  }

  if (avail.value() < 8) {
    begin_ = end_;
    return BlockFileEvent{SkippedBytes{offset, avail.value(), blockfiles::errc::truncated_record_header, 0}};
  }
  if (!has_magic) return resync(offset, blockfiles::errc::bad_magic);

  const std::uint32_t length = le32(window_.get() + begin_ + 4);
  if (length < 81 || length > max_block_size) {
    return resync(offset, blockfiles::errc::implausible_length, length);
  }
  avail = fill(8 + std::size_t{length});
  if (!avail) return avail.error();
  if (avail.value() < 8 + std::size_t{length}) {
    return resync(offset, blockfiles::errc::record_past_end, length);
  }
  const std::span<const std::byte> block(window_.get() + begin_ + 8, length);
  last_record_ = offset;
  begin_ += 8 + std::size_t{length};
  return BlockFileEvent{BlockRecord{offset, block}};
}

std::size_t BlockFileReader::zero_run(std::size_t from, std::size_t to) const noexcept {
  // The window holds un-XORed bytes: a raw zero reads as the key byte of its
  // offset. A word at a time while whole words match, then byte by byte.
  std::size_t i = from;
  for (; i + 8 <= to; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, window_.get() + i, 8);
    if (word != 0 && word != detail::key_word(key_, base_ + i)) break;
  }
  for (; i < to; ++i) {
    const std::byte b = window_[i];
    if (b != std::byte{0} && b != key_[(base_ + i) % 8]) break;
  }
  return i - from;
}

bool BlockFileReader::reject_last(std::uint64_t decoded) {
  if (!last_record_) return false;
  // Records nested in records' scripts would make looking inside each
  // quadratic: the decoding spent inside one damaged stretch stays linear
  // in the stretch (4x, plus two blocks' worth).
  const std::uint64_t offset = *last_record_;
  const std::uint64_t record_end = base_ + begin_;
  if (stretch_start_ == no_stretch) stretch_start_ = offset;
  stretch_work_ += std::min<std::uint64_t>(decoded, record_end - offset);
  if (stretch_work_ > 4 * (record_end - stretch_start_) + 2 * std::uint64_t{max_block_size}) {
    last_record_.reset();  // skipped by its length; the stretch goes on
    return false;
  }
  // The record is still in the window: nothing has been read since.
  begin_ = static_cast<std::size_t>(*last_record_ - base_);
  pending_resync_ = true;
  return true;
}

// Skips from the record at begin_ (file offset `from`) to the next magic,
// searched with memchr for its first byte, and reports what was skipped.
result<std::optional<BlockFileEvent>> BlockFileReader::resync(std::uint64_t from, blockfiles::errc reason, std::uint32_t claimed_length) {
  ++begin_;  // the record start itself is not a valid record
  for (;;) {
    auto avail = fill(magic_.size());
    if (!avail) return avail.error();
    if (avail.value() < magic_.size()) {  // no magic before the end of the file
      begin_ = end_;
      return BlockFileEvent{SkippedBytes{from, base_ + end_ - from, reason, claimed_length}};
    }
    const std::size_t last_start = end_ - magic_.size() + 1;  // candidates with 4 bytes in the window
    const void* hit = std::memchr(window_.get() + begin_, std::to_integer<int>(magic_[0]), last_start - begin_);
    if (hit == nullptr) {
      begin_ = last_start;  // keep a partial magic at the end for the next fill
      if (eof_) {
        begin_ = end_;
        return BlockFileEvent{SkippedBytes{from, base_ + end_ - from, reason, claimed_length}};
      }
      // Force the window to take more bytes than the partial magic it keeps.
      auto more = fill(end_ - begin_ + 1);
      if (!more) return more.error();
      continue;
    }
    begin_ = static_cast<std::size_t>(static_cast<const std::byte*>(hit) - window_.get());
    if (std::memcmp(window_.get() + begin_, magic_.data(), magic_.size()) == 0) {
      return BlockFileEvent{SkippedBytes{from, base_ + begin_ - from, reason, claimed_length}};
    }
    ++begin_;
  }
}

std::string SkippedBytes::message() const {
  std::string text = make_error_code(reason).message();
  if (reason == blockfiles::errc::implausible_length || reason == blockfiles::errc::record_past_end) {
    text += " (" + std::to_string(claimed_length) + " bytes)";
  }
  return text;
}

result<BlockHeader> read_block_header(const std::string& path, std::uint64_t offset, const XorKey& key, network net,
                                      const BlockHash& hash) {
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  return read_block_header(file.value().fd(), offset, key, net, hash);
}

result<BlockHeader> read_block_header(int fd, std::uint64_t offset, const XorKey& key, network net, const BlockHash& hash) {
  std::array<std::byte, 8 + header_size> head{};
  if (auto r = read_at(fd, head, offset); !r) return error(r.error().code(), offset);
  xor_in_place(head, key, offset);
  const Magic m = magic(net);
  if (!std::equal(m.begin(), m.end(), head.begin())) return error(blockfiles::errc::bad_magic, offset);
  auto header = decode_header(std::span<const std::byte>(head).subspan(8));
  if (!header || block_hash(header.value()) != hash) return error(blockfiles::errc::wrong_block, offset);
  return header.value();
}

result<std::vector<std::byte>> read_block_record(const std::string& path, std::uint64_t offset, const XorKey& key, network net) {
  std::vector<std::byte> block;
  if (auto read = read_block_record(path, offset, key, net, block); !read) return read.error();
  return block;
}

result<bool> record_begins_at(const std::string& path, std::uint64_t offset, const XorKey& key, network net) {
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  if (::lseek(file.value().fd(), static_cast<off_t>(offset), SEEK_SET) < 0) return std::error_code(errno, std::system_category());
  BlockFileReader reader(file.value(), key, net, offset);
  auto event = reader.next();
  if (!event) return event.error();
  if (!event.value()) return false;
  if (const auto* record = std::get_if<BlockRecord>(&*event.value())) return record->offset == offset;
  const auto& skipped = std::get<SkippedBytes>(*event.value());
  return skipped.offset == offset && skipped.cut_short();
}

result<void> read_block_record(const std::string& path, std::uint64_t offset, const XorKey& key, network net,
                               std::vector<std::byte>& block) {
  // The record's own header decides: no search for the next magic (that
  // could read the whole file only to say "bad magic").
  auto file = FileReader::open(path.c_str());
  if (!file) return file.error();
  if (::lseek(file.value().fd(), static_cast<off_t>(offset), SEEK_SET) < 0) return std::error_code(errno, std::system_category());
  const auto read_exactly = [&](std::span<std::byte> out) -> result<std::size_t> {
    std::size_t have = 0;
    while (have < out.size()) {
      auto got = file.value().read_some(out.subspan(have));
      if (!got) return got.error();
      if (got.value() == 0) break;
      have += got.value();
    }
    return have;
  };
  std::array<std::byte, 8> header{};
  auto got = read_exactly(header);
  if (!got) return got.error();
  if (got.value() == 0) return error(blockfiles::errc::past_end_of_file, offset);
  bool zeros = true;  // on disk (Core's raw padding) or once un-XORed
  for (std::size_t i = 0; i < got.value(); ++i) {
    zeros = zeros && (header[i] == std::byte{0} || header[i] == key[(offset + i) % 8]);
    header[i] ^= key[(offset + i) % 8];
  }
  const Magic expected = magic(net);
  if (got.value() >= 4 && std::memcmp(header.data(), expected.data(), 4) == 0) {
    if (got.value() < 8) return error(blockfiles::errc::truncated_record_header, offset);
    const std::uint32_t length = le32(header.data() + 4);
    if (length < 81 || length > max_block_size) return error(blockfiles::errc::implausible_length, offset);
    block.resize(length);
    got = read_exactly(block);
    if (!got) return got.error();
    if (got.value() < length) return error(blockfiles::errc::record_past_end, offset);
    xor_in_place(block, key, offset + 8);
    return success();
  }
  return error(zeros ? blockfiles::errc::zero_bytes : blockfiles::errc::bad_magic, offset);
}

}  // namespace blockwire
