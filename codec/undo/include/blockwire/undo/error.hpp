// What can be wrong with undo data. Each code means one thing; decoding
// failures of the shared kind are the lower layers' codes (truncated
// input io::errc::truncated, trailing bytes or bad counts codec::errc),
// I/O failures std::system_category codes.
#pragma once

#include <blockwire/io/error.hpp>

#include <system_error>
#include <type_traits>

namespace blockwire {

namespace undo {

enum class errc : int {
  varint_overflow = 1,     // a VARINT past its field's range (32 or 64 bits)
  invalid_compressed_key,  // a compressed-script key (type 4 or 5) whose x is not on the curve
  wrong_shape,             // undo data whose transaction or input counts are not the block's
  missing_coin,            // an input spends an output the coin set does not hold
  truncated_record,        // a rev file that ends inside a record
  bad_magic,               // no network magic where a rev record should begin
  // 7 was height_too_large, retired: a Height holds only what Core's coins can.
  no_rev_file = 8,  // a directory with rev files, but not the one of this block's blk file
  no_record,        // the block's rev file holds no record that pairs with it (damaged, or not written yet)
  bad_checksum,     // the record where an index puts it does not check against the block's parent (damaged, or another's)
};

const std::error_category& category() noexcept;
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

}  // namespace undo

}  // namespace blockwire

template <>
struct std::is_error_code_enum<blockwire::undo::errc> : std::true_type {};
