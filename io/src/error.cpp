#include <blockwire/io/error.hpp>

#include <string>
#include <system_error>

namespace blockwire {
namespace {

class category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "blockwire"; }
  std::string message(int value) const override {
    switch (static_cast<errc>(value)) {
      case errc::end_of_stream: return "end of stream";
      case errc::no_room: return "no room left in the output buffer";
      case errc::truncated: return "input ends inside an object (truncated)";
      case errc::bad_argument: return "bad argument";
    }
    return "unknown blockwire error " + std::to_string(value);
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  static const category instance;
  return instance;
}

std::string error::message() const {
  std::string text = code_.message();
  if (has_offset()) text += " at byte " + std::to_string(offset_);
  return text;
}

void outcome_throw_as_system_error_with_payload(const error& e) {
  throw std::system_error(e.code(), e.message());
}

}  // namespace blockwire
