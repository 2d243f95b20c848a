// A text's characters as bytes, as a file holding the text reads.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace test {

inline std::vector<std::byte> text_bytes(std::string_view s) {
  std::vector<std::byte> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = static_cast<std::byte>(s[i]);
  return out;
}

}  // namespace test
