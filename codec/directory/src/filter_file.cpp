// DIR/blockwire-filters/basic.dat (see filter_file.hpp).
#include <blockwire/codec/wire.hpp>
#include <blockwire/directory/filter_file.hpp>
#include <blockwire/filters.hpp>
#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/file.hpp>
#include <blockwire/io/decoding_context.hpp>
#include <blockwire/io/sha256.hpp>
#include <blockwire/io/vector_writer.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace blockwire {

namespace {

namespace fs = std::filesystem;

result<void> write_all(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return last_system_error();
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
  return success();
}

}  // namespace

result<FilterFile> FilterFile::open(const std::string& blocks_dir, std::span<const BlockHash> chain) {
  const fs::path dir = fs::path(blocks_dir) / "blockwire-filters";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return error(ec);
  auto locked = lock_file((dir / "basic.dat").c_str(), true);
  if (!locked) return locked.error();  // io::errc::locked: another process writes it
  FilterFile file;
  file.fd_ = std::move(locked).value();
  const int raw = file.fd_.get();
  struct stat st {};
  if (::fstat(raw, &st) != 0) return last_system_error();
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t at = file.load(size, chain);
  if (at != size && ::ftruncate(raw, static_cast<off_t>(at)) != 0) return last_system_error();
  if (::lseek(raw, static_cast<off_t>(at), SEEK_SET) < 0) return last_system_error();
  file.end_ = at;
  return file;
}

std::uint64_t FilterFile::load(std::uint64_t size, std::span<const BlockHash> chain) {
  const int raw = fd_.get();
  std::uint64_t at = 0;
  Hash256 header;
  for (std::size_t height = 0; height < chain.size() && at + 65 <= size; ++height) {
    std::array<std::byte, 64 + 9> head{};
    const std::size_t got = static_cast<std::size_t>(std::min<std::uint64_t>(head.size(), size - at));
    if (!read_at(raw, std::span(head).first(got), at)) break;
    const auto block = BlockHash::from_bytes(std::span<const std::byte, 32>(head.data(), 32));
    const Hash256 stored(std::span<const std::byte, 32>(head.data() + 32, 32));
    DecodingContext ctx(std::span<const std::byte>(head).subspan(64, got - 64));
    const std::uint64_t n = wire::decode_compact_size(ctx);
    if (!ctx.ok() || block != chain[height]) break;
    const std::uint64_t filter_at = at + 64 + ctx.offset();
    if (filter_at + n > size) break;  // torn
    std::vector<std::byte> bytes(static_cast<std::size_t>(n));
    if (!read_at(raw, bytes, filter_at)) break;
    const Hash256 hash = sha256d(bytes);
    header = filters::filter_header(hash, header);
    if (header != stored) break;
    records_.push_back({filter_at, static_cast<std::uint32_t>(n), block, hash, header});
    at = filter_at + n;
  }
  return at;
}

result<FilterFile> FilterFile::read(const std::string& blocks_dir, std::span<const BlockHash> chain) {
  FilterFile file;
  int raw;
  do raw = ::open((fs::path(blocks_dir) / "blockwire-filters" / "basic.dat").c_str(), O_RDONLY | O_CLOEXEC);
  while (raw < 0 && errno == EINTR);
  if (raw < 0) {
    if (errno == ENOENT) return file;
    return last_system_error();
  }
  file.fd_ = FileDescriptor(raw, ownership::own);
  struct stat st {};
  if (::fstat(raw, &st) != 0) return last_system_error();
  file.end_ = file.load(static_cast<std::uint64_t>(st.st_size), chain);
  return file;
}

result<std::vector<std::byte>> FilterFile::filter(Height height) const {
  const Record& r = records_[height.to_wire()];
  std::vector<std::byte> bytes(r.size);
  if (auto got = read_at(fd_.get(), bytes, r.at); !got) return got.error();
  return bytes;
}

result<void> FilterFile::append(const BlockHash& block, std::span<const std::byte> filter) {
  const Hash256 previous = records_.empty() ? Hash256{} : records_.back().header;
  const Hash256 hash = sha256d(filter);
  const Hash256 header = filters::filter_header(hash, previous);
  std::vector<std::byte> record;
  record.reserve(64 + 9 + filter.size());
  record.insert(record.end(), block.bytes().begin(), block.bytes().end());
  record.insert(record.end(), header.bytes().begin(), header.bytes().end());
  {
    VectorWriter sink(record);
    BufferedWriter<VectorWriter&> w(sink);
    wire::encode_compact_size(w, filter.size());
    (void)w.flush();  // a vector cannot fail
  }
  const std::uint64_t filter_at = end_ + record.size();
  record.insert(record.end(), filter.begin(), filter.end());
  if (auto r = write_all(fd_.get(), record); !r) {
    (void)!::ftruncate(fd_.get(), static_cast<off_t>(end_));  // no half record left behind
    (void)::lseek(fd_.get(), static_cast<off_t>(end_), SEEK_SET);
    return r;
  }
  end_ += record.size();
  records_.push_back({filter_at, static_cast<std::uint32_t>(filter.size()), block, hash, header});
  return success();
}

}  // namespace blockwire
