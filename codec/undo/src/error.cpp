#include <blockwire/undo/error.hpp>

namespace blockwire {
namespace {

const char* describe(int value) noexcept {
  switch (static_cast<undo_errc>(value)) {
    case undo_errc::varint_overflow: return "a VARINT past the range of its field";
    case undo_errc::invalid_compressed_key: return "a compressed public key whose x is not on the curve";
    case undo_errc::wrong_shape: return "undo data whose transaction or input counts are not the block's";
    case undo_errc::missing_coin: return "an input spends an output that is not in the coin set";
    case undo_errc::truncated_record: return "the rev file ends inside a record";
    case undo_errc::bad_magic: return "no network magic where a rev record should begin";
    case undo_errc::height_too_large: return "a coin height past 2^31 - 1";
  }
  return nullptr;
}

}  // namespace

const std::error_category& undo_category() noexcept {
  static const enum_category instance("blockwire.undo", describe);
  return instance;
}

}  // namespace blockwire
