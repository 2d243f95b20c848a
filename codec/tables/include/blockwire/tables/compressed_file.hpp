// A table's file compressed on its way to the disk: a zstd frame (.zst) or
// a gzip member (.gz), as `zstd -d`, `gzip -d` and DuckDB read them (and
// BigQuery the gzip one); or, with compression::none, the bytes as they
// come. Export's text is about five times the blocks' bytes; compressed,
// about their size (docs/export.md has the figures).
//
// CompressedFileWriter is a LendingWriter, as DirectFileWriter is: a
// BufferedWriter formats into its memory, a full buffer is compressed
// straight into the file's own (O_DIRECT) memory, and no byte is copied on
// the way but by the compressor reading it.
#pragma once

#include <blockwire/io/direct_file.hpp>
#include <blockwire/io/error.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace blockwire::tables {

enum class compression { none, zstd, gzip };
inline constexpr compression compressions[] = {compression::none, compression::zstd, compression::gzip};

// "" / ".zst" / ".gz": what a compressed file's name ends with.
std::string_view compression_suffix(compression c) noexcept;
// "none" / "zstd" / "gzip", and back (nothing for another name).
std::string_view compression_name(compression c) noexcept;
std::optional<compression> compression_named(std::string_view name) noexcept;

class CompressedFileWriter {
 public:
  // Creates or truncates `path` (DirectFileWriter::create), its bytes to
  // be compressed by `c` at its fastest usual level (zstd's 1, zlib's 1):
  // what export makes a second must be compressed in that second.
  static result<CompressedFileWriter> create(const char* path, compression c) noexcept;
  CompressedFileWriter(CompressedFileWriter&&) noexcept;
  CompressedFileWriter& operator=(CompressedFileWriter&&) noexcept;
  ~CompressedFileWriter();

  // LendingWriter (DirectFileWriter's rules): a failed compression or
  // write is kept and given by finish(); what comes after it is dropped.
  std::span<std::byte> lend(std::size_t n);
  void commit(std::size_t n) noexcept;
  result<void> write(std::span<const std::byte> bytes);

  // Compresses what is held and ends the frame, then finishes the file
  // (written, synced, closed): the first error of any of it. The file is
  // whole only when this succeeds.
  result<void> finish() noexcept;

  class Compressor;  // zstd's or zlib's stream, and the memory it reads (compressed_file.cpp's)

 private:
  CompressedFileWriter(DirectFileWriter file, std::unique_ptr<Compressor> compressor) noexcept;
  DirectFileWriter file_;
  std::unique_ptr<Compressor> compressor_;  // null: compression::none
};

// The last `n` bytes (or fewer: the whole) of a file written by a
// CompressedFileWriter with `c`, decompressed. Errors: the system's, and
// std::errc::illegal_byte_sequence for bytes that are not a whole frame of
// `c` (a file cut short).
result<std::string> decompressed_tail(const char* path, compression c, std::size_t n);

}  // namespace blockwire::tables
