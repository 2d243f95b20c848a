#include <blockwire/undo/error.hpp>

namespace blockwire {
namespace {

const char* describe(int value) noexcept {
  switch (static_cast<undo::errc>(value)) {
    case undo::errc::varint_overflow: return "a VARINT past the range of its field";
    case undo::errc::invalid_compressed_key: return "a compressed public key whose x is not on the curve";
    case undo::errc::wrong_shape: return "undo data whose transaction or input counts are not the block's";
    case undo::errc::missing_coin: return "an input spends an output that is not in the coin set";
    case undo::errc::truncated_record: return "the rev file ends inside a record";
    case undo::errc::bad_magic: return "no network magic where a rev record should begin";
    case undo::errc::no_rev_file: return "the directory has rev files, but not the one that would hold this block's undo data";
    case undo::errc::no_record: return "no record of the block's rev file pairs with it (damaged, or not written yet)";
    case undo::errc::bad_checksum: return "the undo record there does not check against the block's parent (damaged, or another block's)";
  }
  return nullptr;
}

}  // namespace

namespace {
// Every failure here is the data's.
condition classify(int) noexcept { return condition::bad_data; }
}  // namespace

const std::error_category& undo::category() noexcept {
  static const enum_category instance("blockwire.undo", describe, classify);
  return instance;
}

}  // namespace blockwire
