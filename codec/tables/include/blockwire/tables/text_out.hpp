// Text into a file through the library's BufferedWriter: numbers, hex and
// quoted strings appended in place, with no string made for each, into a
// DirectFileWriter (past the page cache: gigabytes of tables would
// otherwise cost a copy into fresh pages each, and push the blk files
// being read out of the cache), compressed on the way when asked
// (compressed_file.hpp). What blockwire export writes its rows with.
#pragma once

#include <blockwire/io/buffered_writer.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/tables/compressed_file.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace blockwire::tables {

class TextOut {
 public:
  explicit TextOut(CompressedFileWriter file) : file_(std::move(file)), out_(file_) {}
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;

  void put(char c) { out_.write(std::span<const std::byte, 1>{reinterpret_cast<const std::byte*>(&c), 1}); }
  void raw(std::string_view s) { out_.write(std::as_bytes(std::span{s.data(), s.size()})); }
  // A string literal: its length a constant, so the copy is a store or two.
  template <std::size_t N>
  void literal(const char (&s)[N]) {
    fixed<N - 1>(s);
  }
  template <std::size_t K>
  void fixed(const char* s) {
    out_.write(std::span<const std::byte, K>{reinterpret_cast<const std::byte*>(s), K});
  }
  void uint(std::uint64_t v) {
    char text[20];
    raw({text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, v).ptr - text)});
  }
  void integer(std::int64_t v) {
    char text[20];
    raw({text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, v).ptr - text)});
  }
  // Two lower-case digits a byte, in order.
  void hex(std::span<const std::byte> bytes);
  // A hash as Bitcoin shows it: its bytes in reverse order.
  void hash(const Hash256& h);
  // A JSON string, quoted, with what JSON requires escaped.
  void json_string(std::string_view s);
  // A CSV field (RFC 4180): quoted only when it holds a comma, a quote or a
  // line break.
  void csv_text(std::string_view s);

  // Everything written is in the file and on the disk, and the file
  // closed; the first error of any write, the sync or the close.
  result<void> finish();
  std::uint64_t bytes_written() const noexcept { return out_.bytes_written(); }

 private:
  CompressedFileWriter file_;
  BufferedWriter<CompressedFileWriter&> out_;
};

}  // namespace blockwire::tables
