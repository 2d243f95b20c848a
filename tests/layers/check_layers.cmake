cmake_policy(VERSION 3.25)
# The layering rules, read from the sources themselves. Fails naming the file
# and the line that breaks one:
#  1. no public header includes a private one (detail/, src/);
#  2. nothing outside the codec library includes its private sources
#     (codec/primitives/src): every other library, the apps and the tests use
#     the public API only; the benchmarks alone instantiate the private
#     encoders, on purpose, to measure the templated approach;
#  3. io knows nothing of Bitcoin (no codec or blockfiles include), the
#     codec primitives know nothing of the formats above them, and the
#     formats (block files, P2P) nothing of the connections (net);
#  4. <blockwire/codec.hpp> does not bring in the wire toolkit (opt-in).
# Run as: cmake -DROOT=<source dir> -P check_layers.cmake
set(failures "")
macro(fail text)
  string(APPEND failures "\n  ${text}")
endmacro()

function(includes_of file out)
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

set(public_dirs ${ROOT}/io/include ${ROOT}/codec/primitives/include ${ROOT}/codec/blockfiles/include ${ROOT}/codec/p2p/include ${ROOT}/codec/net/include ${ROOT}/codec/undo/include ${ROOT}/codec/filters/include)
set(public_count 0)
foreach(dir IN LISTS public_dirs)
  file(GLOB_RECURSE headers "${dir}/*.hpp")
  foreach(header IN LISTS headers)
    math(EXPR public_count "${public_count} + 1")
    includes_of("${header}" lines)
    foreach(line IN LISTS lines)
      if(line MATCHES "detail/|/src/|\"")
        fail("${header} (public) includes a private header: ${line}")
      endif()
    endforeach()
  endforeach()
endforeach()

# 2: every source of the project but the codec's own and the benchmarks'.
file(GLOB_RECURSE sources ${ROOT}/io/*.?pp ${ROOT}/codec/*.?pp ${ROOT}/apps/*.?pp ${ROOT}/tests/*.?pp)
set(source_count 0)
foreach(source IN LISTS sources)
  if(source MATCHES "^${ROOT}/codec/primitives/")
    continue()
  endif()
  math(EXPR source_count "${source_count} + 1")
  includes_of("${source}" lines)
  foreach(line IN LISTS lines)
    if(line MATCHES "detail/(encoders|decoders)|codec/primitives/src|codec/src")
      fail("${source} includes the codec's private sources: ${line}")
    endif()
    if(source MATCHES "^${ROOT}/io/" AND line MATCHES "blockwire/(codec|blockfiles)")
      fail("${source} (io) includes a Bitcoin layer: ${line}")
    endif()
  endforeach()
endforeach()
file(GLOB_RECURSE cmake_files ${ROOT}/io/CMakeLists.txt ${ROOT}/codec/blockfiles/CMakeLists.txt ${ROOT}/codec/p2p/CMakeLists.txt ${ROOT}/codec/net/CMakeLists.txt ${ROOT}/codec/undo/CMakeLists.txt ${ROOT}/apps/*CMakeLists.txt ${ROOT}/tests/*CMakeLists.txt)
foreach(cmake_file IN LISTS cmake_files)
  file(STRINGS "${cmake_file}" lines REGEX "codec/(primitives/)?src|blockwire_codec_templated")
  foreach(line IN LISTS lines)
    fail("${cmake_file} reaches into the codec's private sources: ${line}")
  endforeach()
endforeach()

# 3: the primitives use nothing above them.
file(GLOB_RECURSE primitives ${ROOT}/codec/primitives/*.?pp)
foreach(source IN LISTS primitives)
  includes_of("${source}" lines)
  foreach(line IN LISTS lines)
    if(line MATCHES "blockwire/(blockfiles|p2p|net|undo)")
      fail("${source} (codec primitives) includes a format above it: ${line}")
    endif()
  endforeach()
endforeach()

# 3b: block files and P2P messages know nothing of the connections (net)
# built on them.
file(GLOB_RECURSE formats ${ROOT}/codec/blockfiles/*.?pp ${ROOT}/codec/p2p/*.?pp)
foreach(source IN LISTS formats)
  includes_of("${source}" lines)
  foreach(line IN LISTS lines)
    if(line MATCHES "blockwire/net")
      fail("${source} (a format) includes the layer above it: ${line}")
    endif()
  endforeach()
endforeach()

# 4: the include closure of <blockwire/codec.hpp>, followed by hand.
set(todo blockwire/codec.hpp)
set(seen "")
while(todo)
  list(POP_FRONT todo name)
  if(name IN_LIST seen)
    continue()
  endif()
  list(APPEND seen ${name})
  foreach(dir IN LISTS public_dirs)
    if(EXISTS "${dir}/${name}")
      includes_of("${dir}/${name}" lines)
      foreach(line IN LISTS lines)
        if(line MATCHES "<(blockwire/[^>]+)>")
          list(APPEND todo ${CMAKE_MATCH_1})
        endif()
      endforeach()
    endif()
  endforeach()
endwhile()
if("blockwire/codec/wire.hpp" IN_LIST seen)
  fail("<blockwire/codec.hpp> includes the wire toolkit, which is opt-in")
endif()

if(failures)
  message(FATAL_ERROR "layering broken:${failures}")
endif()
list(LENGTH seen closure)
message(STATUS "layers: ${public_count} public headers, ${source_count} sources outside the codec, "
               "<blockwire/codec.hpp> reaches ${closure} blockwire headers and not the wire toolkit")
