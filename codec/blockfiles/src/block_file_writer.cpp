#include <blockwire/blockfiles/block_directory.hpp>
#include <blockwire/blockfiles/block_file_reader.hpp>  // max_block_size
#include <blockwire/blockfiles/block_file_writer.hpp>
#include <blockwire/blockfiles/error.hpp>
#include <blockwire/codec/encoding.hpp>
#include <blockwire/codec/wire.hpp>
#include <blockwire/io/buffered_writer.hpp>

#include <filesystem>
#include <system_error>

namespace blockwire {

namespace fs = std::filesystem;

struct BlockFileWriter::State {
  std::string dir;
  XorKey key;
  Magic magic;
  unsigned number = 0;
  std::optional<FileWriter> file;
  std::uint64_t size = 0;  // of the current file
  error failure{};         // sticky: after a failed write, nothing more is written

  result<void> open_file(bool append, std::string path = {}) {
    if (path.empty()) path = (fs::path(dir) / block_file_name(number)).string();
    auto opened = append ? FileWriter::append(path.c_str()) : FileWriter::create(path.c_str());
    if (!opened) return opened.error();
    file.emplace(std::move(opened).value());
    return success();
  }

  // Frames and writes one record in one pass: magic, length, block, XORed
  // by offset in the buffer itself (the buffer hands itself over as scratch,
  // through writer_ref, to XorWriter::write_in_place).
  template <class EncodeBlock>
  result<BlockPosition> append(std::uint64_t length, EncodeBlock&& encode_block) {
    if (failure) return failure;
    if (!file) return blockfile_errc::writer_closed;
    if (length > max_block_size) return blockfile_errc::block_too_large;  // no reader would take it
    if (size != 0 && size + 8 + length > max_blockfile_size) {
      if (auto r = file->close(); !r) return failure = r.error();
      ++number;
      size = 0;
      if (auto r = open_file(false); !r) return failure = r.error();
    }
    const BlockPosition at{number, size};
    XorWriter<FileWriter&> obfuscated(*file, key, size);
    StreamWriter w{writer_ref(obfuscated)};
    w.write(std::span<const std::byte, 4>(magic));
    wire::encode_u32(w, static_cast<std::uint32_t>(length));
    encode_block(w);
    if (auto r = w.flush(); !r) {
      // Some of the record may be on disk: say where it began.
      return failure = error(r.error().code(), at.offset);
    }
    size += 8 + length;
    return at;
  }
};

BlockFileWriter::BlockFileWriter(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
BlockFileWriter::BlockFileWriter(BlockFileWriter&&) noexcept = default;
BlockFileWriter& BlockFileWriter::operator=(BlockFileWriter&&) noexcept = default;
BlockFileWriter::~BlockFileWriter() = default;

result<BlockFileWriter> BlockFileWriter::open(const std::string& dir, const XorKey& key, network net) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return ec;
  auto existing = block_files(dir);
  if (!existing) return existing.error();
  const bool has_key_file = fs::exists(fs::path(dir) / "xor.dat", ec);
  if (ec) return ec;
  if (has_key_file) {
    auto old_key = read_xor_key(dir);
    if (!old_key) return old_key.error();
    if (old_key.value() != key) return blockfile_errc::key_mismatch;
  } else if (!existing.value().empty() && !is_zero(key)) {
    return blockfile_errc::plain_files_present;
  } else if (auto r = write_xor_key(dir, key); !r) {
    return r.error();
  }

  auto state = std::make_unique<State>();
  state->dir = dir;
  state->key = key;
  state->magic = magic(net);
  if (!existing.value().empty()) {
    const fs::path last = existing.value().back();
    state->number = *block_file_number(last.filename().string());  // block_files() only lists numbered names
    state->size = fs::file_size(last, ec);
    if (ec) return ec;
  }
  if (auto r = state->open_file(true, existing.value().empty() ? std::string{} : existing.value().back()); !r) {
    return r.error();
  }
  return BlockFileWriter(std::move(state));
}

result<BlockPosition> BlockFileWriter::append(const Block& block) {
  if (!state_) return blockfile_errc::writer_closed;  // moved from
  return state_->append(serialized_size(block), [&](StreamWriter& w) { encode_block(block, w); });
}

result<BlockPosition> BlockFileWriter::append(std::span<const std::byte> block_bytes) {
  if (!state_) return blockfile_errc::writer_closed;  // moved from
  return state_->append(block_bytes.size(), [&](StreamWriter& w) { w.write(block_bytes); });
}

BlockPosition BlockFileWriter::position() const noexcept {
  if (!state_) return {};
  return {state_->number, state_->size};
}

result<void> BlockFileWriter::close() {
  if (!state_ || !state_->file) return success();
  auto r = state_->file->close();
  state_->file.reset();
  return r;
}

}  // namespace blockwire
