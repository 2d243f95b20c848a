#include <blockwire/codec/decode_error.hpp>
#include <blockwire/io/error.hpp>

namespace blockwire {
namespace {

const char* describe(int value) noexcept {
  switch (static_cast<decode_errc>(value)) {
    case decode_errc::non_canonical_size: return "non-canonical CompactSize (a shorter form exists)";
    case decode_errc::size_too_large: return "CompactSize above 0x02000000 (MAX_SIZE)";
    case decode_errc::unknown_witness_flag: return "unknown transaction optional data (bad witness flag)";
    case decode_errc::superfluous_witness: return "superfluous witness record (witness flag set, every stack empty)";
    case decode_errc::trailing_bytes: return "trailing bytes after the object";
  }
  return nullptr;
}

}  // namespace

const std::error_category& decode_category() noexcept {
  static const enum_category instance("blockwire.decode", describe);
  return instance;
}

}  // namespace blockwire
