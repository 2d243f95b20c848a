#include <blockwire/io/number_text.hpp>

namespace blockwire {

std::string with_commas(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string count_of(std::uint64_t n, std::string_view noun) {
  std::string text = with_commas(n) + " ";
  text += noun;
  if (n != 1) text += 's';
  return text;
}

}  // namespace blockwire
