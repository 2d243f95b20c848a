#include <blockwire/io/error.hpp>

#include <string>
#include <system_error>

namespace blockwire {
namespace {

const char* describe(int value) noexcept {
  using io::errc;
  switch (static_cast<errc>(value)) {
    case io::errc::end_of_stream: return "end of stream";
    case io::errc::no_room: return "no room left in the output buffer";
    case io::errc::truncated: return "input ends inside an object (truncated)";
    case io::errc::not_hex: return "not a hex digit";
    case io::errc::odd_hex_length: return "an odd number of hex digits";
    case io::errc::wrong_hex_length: return "the wrong number of hex digits";
    case io::errc::locked: return "another process holds its lock";
  }
  return nullptr;
}

}  // namespace

std::string enum_category::message(int value) const {
  if (const char* text = describe_(value)) return text;
  return std::string("unknown ") + name_ + " error " + std::to_string(value);
}

const std::error_category& io::category() noexcept {
  static const enum_category instance("blockwire.io", describe);
  return instance;
}

std::string error::message() const {
  std::string text = code_.message();
  if (has_offset()) text += " at byte " + std::to_string(offset_);
  return text;
}

void outcome_throw_as_system_error_with_payload(const error& e) { throw std::system_error(e.code(), e.message()); }

}  // namespace blockwire
