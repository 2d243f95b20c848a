#include <blockwire/codec/decode_error.hpp>

#include <string>

namespace blockwire {
namespace {

class category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "blockwire.decode"; }
  std::string message(int value) const override {
    switch (static_cast<decode_errc>(value)) {
      case decode_errc::non_canonical_size: return "non-canonical CompactSize (a shorter form exists)";
      case decode_errc::size_too_large: return "CompactSize above 0x02000000 (MAX_SIZE)";
      case decode_errc::unknown_witness_flag: return "unknown transaction optional data (bad witness flag)";
      case decode_errc::superfluous_witness: return "superfluous witness record (witness flag set, every stack empty)";
      case decode_errc::trailing_bytes: return "trailing bytes after the object";
    }
    return "unknown decode error " + std::to_string(value);
  }
};

}  // namespace

const std::error_category& decode_category() noexcept {
  static const category instance;
  return instance;
}

}  // namespace blockwire
