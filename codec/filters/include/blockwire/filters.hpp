// BIP158 compact block filters: Golomb-coded sets, and the basic filter of a
// block (the scripts its outputs create and the scripts its inputs spend),
// its hash and its header. Pure functions of a block's bytes and its undo
// data: no file is read here. A layer on the public API of io, codec and
// undo (BlockUndo, the coins a block spends); a directory's filters (read
// from its blk and rev files, kept in its filter file) are the directory
// layer's, <blockwire/directory.hpp>.
#pragma once

#include <blockwire/codec/block.hpp>
#include <blockwire/codec/view.hpp>
#include <blockwire/io/error.hpp>
#include <blockwire/io/hash256.hpp>
#include <blockwire/undo/block_undo.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <system_error>
#include <type_traits>
#include <vector>

namespace blockwire::filters {

enum class errc : int {
  too_many_elements = 1,  // an element count the bytes cannot hold, or 2^32 or more
  truncated_stream,       // the bit stream ends inside an element
  excess_bytes,           // bytes after the last element's
  // 4 and 5 are not used: what reads a directory's files fails with the
  // directory layer's codes.
};
const std::error_category& category() noexcept;
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

// A Golomb-coded set's parameters: the SipHash key and BIP158's P (the
// Golomb-Rice parameter) and M (the inverse false-positive rate).
struct Params {
  std::uint64_t k0 = 0;
  std::uint64_t k1 = 0;
  std::uint8_t p = 19;
  std::uint32_t m = 784931;
};

// The basic filter's parameters for a block: the key is the first 16 bytes
// of its hash (in the hash's own byte order), P = 19, M = 784931.
Params basic_params(const BlockHash& block_hash) noexcept;

// A set of byte strings as BIP158 encodes it: each distinct element hashed
// with SipHash-2-4, mapped into [0, N * M) by the 64x64->128-bit multiply,
// sorted, and the deltas Golomb-Rice coded behind a CompactSize N.
class GcsFilter {
 public:
  // An empty set (encoded: one 0x00 byte).
  explicit GcsFilter(const Params& params = {});
  // The set of `elements` (duplicates count once).
  static GcsFilter build(const Params& params, std::span<const std::span<const std::byte>> elements);
  // A serialized filter, checked as Core's decoder checks it (every element
  // decoded, no bytes left after the last one), with nothing allocated but
  // a copy of `encoded`. Errors: filters::errc, codec::errc for the count.
  static result<GcsFilter> decode(const Params& params, std::span<const std::byte> encoded);

  const Params& params() const noexcept { return params_; }
  std::uint64_t size() const noexcept { return n_; }  // N
  // N, then the bit stream (what the filter hash hashes, what cfilter sends).
  std::span<const std::byte> encoded() const noexcept { return encoded_; }

  // Whether `element` may be in the set (false positives at 1/M).
  bool match(std::span<const std::byte> element) const;
  // Whether any of `elements` may be in the set: one pass over the filter.
  bool match_any(std::span<const std::span<const std::byte>> elements) const;

  friend bool operator==(const GcsFilter& a, const GcsFilter& b) noexcept { return a.encoded_ == b.encoded_; }

 private:
  Params params_;
  std::uint64_t n_ = 0;
  std::vector<std::byte> encoded_;
};

// BIP158's basic filter elements of a block: the script of every output but
// the empty ones and those beginning with OP_RETURN, and every script the
// block's inputs spend (`spent`, or its undo data) but the empty ones, as
// spans into the block and `spent`; duplicates are left to build().
std::vector<std::span<const std::byte>> basic_elements(const BlockView& block, std::span<const std::span<const std::byte>> spent);
std::vector<std::span<const std::byte>> basic_elements(const BlockView& block, const BlockUndo& undo);

// The basic filter of a block: from its bytes and the scripts its inputs
// spend. With undo data whose shape is not the block's: undo::errc::wrong_shape.
GcsFilter basic_filter(const BlockView& block, std::span<const std::span<const std::byte>> spent);
result<GcsFilter> basic_filter(const BlockView& block, const BlockUndo& undo);

// BIP157: the filter's hash, SHA256d of its encoding; its header, SHA256d of
// that hash and the previous block's filter header (zero before genesis).
Hash256 filter_hash(const GcsFilter& filter);
Hash256 filter_header(const Hash256& filter_hash, const Hash256& previous_header);

}  // namespace blockwire::filters

template <>
struct std::is_error_code_enum<blockwire::filters::errc> : std::true_type {};
