// zstd's and zlib's streams behind CompressedFileWriter (compressed_file.hpp),
// and the same two read back for a shard's last line.
#include <blockwire/tables/compressed_file.hpp>

#include <blockwire/io/file.hpp>

#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <cstring>
#include <system_error>
#include <vector>

namespace blockwire::tables {

namespace {

// Bytes taken before they are compressed: zstd cuts its input into 128 KiB
// blocks whatever it is handed, and a call per 256 KiB costs nothing to
// speak of.
constexpr std::size_t input_size = 256 * 1024;

error bad_stream() { return std::make_error_code(std::errc::illegal_byte_sequence); }

}  // namespace

// The stream, and the memory lent to the BufferedWriter in front: what is
// committed there waits for compress().
class CompressedFileWriter::Compressor {
 public:
  Compressor() : input_(new std::byte[input_size]), capacity_(input_size) {}
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
  virtual ~Compressor() = default;

  std::span<std::byte> lend(std::size_t n, DirectFileWriter& file) {
    if (capacity_ - used_ < n) compress_held(file, false);
    if (capacity_ < n) {  // (empty now) a write larger than the memory
      input_.reset(new std::byte[n]);
      capacity_ = n;
    }
    return {input_.get() + used_, capacity_ - used_};
  }
  void commit(std::size_t n) noexcept { used_ += n; }

  result<void> finish(DirectFileWriter& file) {
    compress_held(file, true);
    if (error_) return error_;
    return success();
  }

 protected:
  // Compresses all of `in` into the file's memory (a frame's end too when
  // `last`); the first failure is kept in error_.
  virtual void compress(std::span<const std::byte> in, bool last, DirectFileWriter& file) = 0;
  error error_{};

 private:
  void compress_held(DirectFileWriter& file, bool last) {
    if (!error_) compress({input_.get(), used_}, last, file);
    used_ = 0;  // compressed, or dropped after a failure
  }

  std::unique_ptr<std::byte[]> input_;
  std::size_t capacity_;
  std::size_t used_ = 0;
};

namespace {

class ZstdCompressor final : public CompressedFileWriter::Compressor {
 public:
  ZstdCompressor() : stream_(ZSTD_createCCtx()) {
    if (stream_ == nullptr || ZSTD_isError(ZSTD_CCtx_setParameter(stream_.get(), ZSTD_c_compressionLevel, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(stream_.get(), ZSTD_c_checksumFlag, 1))) {
      throw std::bad_alloc();
    }
  }

 private:
  struct Free {
    void operator()(ZSTD_CCtx* s) const noexcept { ZSTD_freeCCtx(s); }
  };
  void compress(std::span<const std::byte> in, bool last, DirectFileWriter& file) override {
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    const ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_continue;
    for (;;) {
      const std::span<std::byte> room = file.lend(ZSTD_CStreamOutSize());
      ZSTD_outBuffer output{room.data(), room.size(), 0};
      const std::size_t left = ZSTD_compressStream2(stream_.get(), &output, &input, mode);
      file.commit(output.pos);
      if (ZSTD_isError(left)) {
        // Its parameters are checked when made: what is left is memory.
        error_ = error(std::make_error_code(std::errc::not_enough_memory)).in(std::string("zstd: ") + ZSTD_getErrorName(left));
        return;
      }
      if (last ? left == 0 : input.pos == input.size) return;
    }
  }
  std::unique_ptr<ZSTD_CCtx, Free> stream_;
};

class GzipCompressor final : public CompressedFileWriter::Compressor {
 public:
  GzipCompressor() {
    // 16 + 15: a gzip header and trailer around a deflate stream of the
    // largest window.
    if (deflateInit2(&stream_, 1, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::bad_alloc();
  }
  ~GzipCompressor() override { deflateEnd(&stream_); }

 private:
  void compress(std::span<const std::byte> in, bool last, DirectFileWriter& file) override {
    // zlib counts in uInt: a larger input in pieces.
    constexpr std::size_t most = std::numeric_limits<uInt>::max();
    while (in.size() > most) {
      deflate_all(in.first(most), false, file);
      in = in.subspan(most);
    }
    deflate_all(in, last, file);
  }
  void deflate_all(std::span<const std::byte> in, bool last, DirectFileWriter& file) {
    if (error_) return;
    // zlib's pointer is not const, but deflate only reads through it.
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    stream_.avail_in = static_cast<uInt>(in.size());
    const int mode = last ? Z_FINISH : Z_NO_FLUSH;
    for (;;) {
      const std::span<std::byte> room = file.lend(64 * 1024);
      stream_.next_out = reinterpret_cast<Bytef*>(room.data());
      stream_.avail_out = static_cast<uInt>(room.size());
      const int status = deflate(&stream_, mode);
      file.commit(room.size() - stream_.avail_out);
      if (status == Z_STREAM_ERROR) {
        error_ = std::make_error_code(std::errc::not_enough_memory);
        return;
      }
      if (last ? status == Z_STREAM_END : stream_.avail_in == 0 && stream_.avail_out != 0) return;
    }
  }
  z_stream stream_{};
};

}  // namespace

namespace {

// Each compression's name and file suffix, in the enum's order.
struct CompressionText {
  std::string_view name, suffix;
};
constexpr CompressionText compression_texts[] = {{"none", ""}, {"zstd", ".zst"}, {"gzip", ".gz"}};
static_assert(std::size(compression_texts) == std::size(compressions));

}  // namespace

std::string_view compression_suffix(compression c) noexcept { return compression_texts[static_cast<std::size_t>(c)].suffix; }

std::string_view compression_name(compression c) noexcept { return compression_texts[static_cast<std::size_t>(c)].name; }

std::optional<compression> compression_named(std::string_view name) noexcept {
  for (const compression c : compressions) {
    if (compression_name(c) == name) return c;
  }
  return std::nullopt;
}

CompressedFileWriter::CompressedFileWriter(DirectFileWriter file, std::unique_ptr<Compressor> compressor) noexcept
    : file_(std::move(file)), compressor_(std::move(compressor)) {}
CompressedFileWriter::CompressedFileWriter(CompressedFileWriter&&) noexcept = default;
CompressedFileWriter& CompressedFileWriter::operator=(CompressedFileWriter&&) noexcept = default;
CompressedFileWriter::~CompressedFileWriter() = default;

result<CompressedFileWriter> CompressedFileWriter::create(const char* path, compression c) noexcept {
  auto file = DirectFileWriter::create(path);
  if (!file) return file.error();
  std::unique_ptr<Compressor> compressor;
  try {
    if (c == compression::zstd) compressor = std::make_unique<ZstdCompressor>();
    if (c == compression::gzip) compressor = std::make_unique<GzipCompressor>();
  } catch (const std::bad_alloc&) {
    return std::make_error_code(std::errc::not_enough_memory);
  }
  return CompressedFileWriter(std::move(file).value(), std::move(compressor));
}

std::span<std::byte> CompressedFileWriter::lend(std::size_t n) { return compressor_ ? compressor_->lend(n, file_) : file_.lend(n); }

void CompressedFileWriter::commit(std::size_t n) noexcept {
  if (compressor_) {
    compressor_->commit(n);
  } else {
    file_.commit(n);
  }
}

result<void> CompressedFileWriter::write(std::span<const std::byte> bytes) {
  if (!compressor_) return file_.write(bytes);
  const std::span<std::byte> room = compressor_->lend(bytes.size(), file_);
  if (!bytes.empty()) std::memcpy(room.data(), bytes.data(), bytes.size());
  compressor_->commit(bytes.size());
  return success();  // a failure is kept for finish()
}

result<void> CompressedFileWriter::finish() noexcept {
  result<void> compressed = success();
  if (compressor_) {
    try {
      compressed = compressor_->finish(file_);
    } catch (const std::bad_alloc&) {
      compressed = std::make_error_code(std::errc::not_enough_memory);
    }
  }
  auto finished = file_.finish();  // closes the file whatever happened
  if (!compressed) return compressed;
  return finished;
}

namespace {

// The decompressed bytes' last `n`, kept as they stream past.
class Tail {
 public:
  explicit Tail(std::size_t n) : n_(n) {}
  void add(const std::byte* p, std::size_t size) {
    text_.append(reinterpret_cast<const char*>(p), size);
    if (text_.size() > n_ + std::max(n_, std::size_t{1} << 16)) text_.erase(0, text_.size() - n_);
  }
  std::string take() && {
    if (text_.size() > n_) text_.erase(0, text_.size() - n_);
    return std::move(text_);
  }

 private:
  std::size_t n_;
  std::string text_;
};

constexpr std::size_t chunk = 128 * 1024;

// The file's last n bytes as they are: read from there, not through.
result<std::string> plain_tail(FileReader& file, const char* path, std::size_t n) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return error(ec);
  const std::size_t want = static_cast<std::size_t>(std::min<std::uintmax_t>(size, n));
  std::string text(want, '\0');
  if (auto r = read_at(file.fd(), std::as_writable_bytes(std::span(text.data(), want)), size - want); !r) return r.error();
  return text;
}

result<std::string> zstd_tail(FileReader& file, std::size_t n) {
  const std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> stream(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (!stream) return std::make_error_code(std::errc::not_enough_memory);
  std::vector<std::byte> in(chunk), out(chunk);
  Tail tail(n);
  std::size_t left = 1;  // 0 once a frame has ended, and all of it is out
  for (;;) {
    auto got = file.read_some(in);
    if (!got) return got.error();
    if (got.value() == 0) break;
    ZSTD_inBuffer input{in.data(), got.value(), 0};
    // Until the input is taken and all that was decoded is out (a full
    // output may have more behind it, unless the frame just ended).
    for (bool more = true; input.pos < input.size || more;) {
      ZSTD_outBuffer output{out.data(), out.size(), 0};
      left = ZSTD_decompressStream(stream.get(), &output, &input);
      // Memory is not the file's fault: an error, not a reason to remake it.
      if (ZSTD_isError(left) && ZSTD_getErrorCode(left) == ZSTD_error_memory_allocation) {
        return std::make_error_code(std::errc::not_enough_memory);
      }
      if (ZSTD_isError(left)) return bad_stream();
      tail.add(out.data(), output.pos);
      more = output.pos == output.size && left != 0;
    }
  }
  if (left != 0) return bad_stream();  // cut short (or empty)
  return std::move(tail).take();
}

result<std::string> gzip_tail(FileReader& file, std::size_t n) {
  z_stream stream{};
  if (inflateInit2(&stream, 16 + 15) != Z_OK) return std::make_error_code(std::errc::not_enough_memory);
  const std::unique_ptr<z_stream, decltype(&inflateEnd)> end(&stream, &inflateEnd);
  std::vector<std::byte> in(chunk), out(chunk);
  Tail tail(n);
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    auto got = file.read_some(in);
    if (!got) return got.error();
    if (got.value() == 0) return bad_stream();  // cut short (or empty)
    stream.next_in = reinterpret_cast<Bytef*>(in.data());
    stream.avail_in = static_cast<uInt>(got.value());
    // Until the input is taken and the output did not fill (a full one
    // may have more behind it), or the stream ends.
    for (bool full = true; (stream.avail_in != 0 || full) && status != Z_STREAM_END;) {
      stream.next_out = reinterpret_cast<Bytef*>(out.data());
      stream.avail_out = static_cast<uInt>(out.size());
      status = inflate(&stream, Z_NO_FLUSH);
      if (status == Z_BUF_ERROR && stream.avail_in == 0) break;  // wants more input
      if (status == Z_MEM_ERROR) return std::make_error_code(std::errc::not_enough_memory);
      if (status != Z_OK && status != Z_STREAM_END) return bad_stream();
      tail.add(out.data(), out.size() - stream.avail_out);
      full = stream.avail_out == 0;
    }
  }
  return std::move(tail).take();
}

}  // namespace

result<std::string> decompressed_tail(const char* path, compression c, std::size_t n) {
  auto file = FileReader::open(path);
  if (!file) return file.error();
  switch (c) {
    case compression::none: return plain_tail(file.value(), path, n);
    case compression::zstd: return zstd_tail(file.value(), n);
    case compression::gzip: return gzip_tail(file.value(), n);
  }
  return std::make_error_code(std::errc::invalid_argument);
}

}  // namespace blockwire::tables
