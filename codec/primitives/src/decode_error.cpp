#include <blockwire/codec/decode_error.hpp>
#include <blockwire/io/error.hpp>

namespace blockwire {
namespace {

const char* describe(int value) noexcept {
  switch (static_cast<codec::errc>(value)) {
    case codec::errc::non_canonical_size: return "non-canonical CompactSize (a shorter form exists)";
    case codec::errc::size_too_large: return "CompactSize above 0x02000000 (MAX_SIZE)";
    case codec::errc::unknown_witness_flag: return "unknown transaction optional data (bad witness flag)";
    case codec::errc::superfluous_witness: return "superfluous witness record (witness flag set, every stack empty)";
    case codec::errc::trailing_bytes: return "trailing bytes after the object";
  }
  return nullptr;
}

}  // namespace

namespace {
// Every failure here is the data's.
condition classify(int) noexcept { return condition::bad_data; }
}  // namespace

const std::error_category& codec::category() noexcept {
  static const enum_category instance("blockwire.codec", describe, classify);
  return instance;
}

}  // namespace blockwire
