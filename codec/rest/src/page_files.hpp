// The explorer page's files, compiled in (made from codec/rest/page/ by
// embed_page.cmake).
#pragma once

#include <cstddef>
#include <string_view>

namespace blockwire::rest::detail {

struct PageFile {
  std::string_view path;  // as requested: "/", "/app.js"
  std::string_view content_type;
  std::string_view content;
};
extern const PageFile page_files[];
extern const std::size_t page_file_count;

}  // namespace blockwire::rest::detail
