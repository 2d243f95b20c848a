# Writes the explorer page's files into a C++ source, so that the binary
# serves them wherever it is installed:
#   cmake -DOUT=page_files.cpp -DDIR=codec/rest/page -P embed_page.cmake
set(entries "index.html|/|text/html\\; charset=utf-8" "style.css|/style.css|text/css\\; charset=utf-8"
            "app.js|/app.js|text/javascript\\; charset=utf-8")
set(body "// Made at build time from codec/rest/page/ (embed_page.cmake): edit those.\n#include \"page_files.hpp\"\n\nnamespace blockwire::rest::detail {\n\nconst PageFile page_files[] = {\n")
foreach(entry IN LISTS entries)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 file)
  list(GET parts 1 path)
  list(GET parts 2 type)
  file(READ "${DIR}/${file}" content)
  string(FIND "${content}" ")bwpage\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${DIR}/${file} holds the raw string's end, )bwpage\"")
  endif()
  string(APPEND body "    {\"${path}\", \"${type}\", R\"bwpage(${content})bwpage\"},\n")
endforeach()
string(APPEND body "};\nconst std::size_t page_file_count = sizeof page_files / sizeof page_files[0];\n\n}  // namespace blockwire::rest::detail\n")
file(WRITE "${OUT}.new" "${body}")
file(COPY_FILE "${OUT}.new" "${OUT}" ONLY_IF_DIFFERENT)
