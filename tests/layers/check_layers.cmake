cmake_policy(VERSION 3.25)
# The layering rules, read from the sources themselves. Fails naming the file
# and the line that breaks one:
#  1. no public header includes a private one (detail/, src/);
#  2. nothing outside the codec library includes its private sources
#     (codec/primitives/src): every other library, the apps and the tests use
#     the public API only; the benchmarks alone instantiate the private
#     encoders, on purpose, to measure the templated approach;
#  3. the libraries form the chain stated below, which docs/design.md,
#     docs/api.md, CONTRIBUTING.md and the README draw: each library's
#     CMakeLists links exactly the libraries stated under it, the graph has
#     no cycle, and every source of a library includes headers of that
#     library and the ones below it only (io knows nothing of Bitcoin, the
#     formats nothing of the directory, the directory nothing of net);
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

set(public_dirs ${ROOT}/io/include ${ROOT}/codec/primitives/include ${ROOT}/codec/blockfiles/include ${ROOT}/codec/p2p/include
                ${ROOT}/codec/undo/include ${ROOT}/codec/filters/include ${ROOT}/codec/directory/include ${ROOT}/codec/net/include
                ${ROOT}/codec/tables/include ${ROOT}/codec/rest/include ${ROOT}/codec/electrum/include)
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
file(GLOB_RECURSE cmake_files ${ROOT}/io/CMakeLists.txt ${ROOT}/codec/blockfiles/CMakeLists.txt ${ROOT}/codec/p2p/CMakeLists.txt
     ${ROOT}/codec/undo/CMakeLists.txt ${ROOT}/codec/filters/CMakeLists.txt ${ROOT}/codec/directory/CMakeLists.txt
     ${ROOT}/codec/net/CMakeLists.txt ${ROOT}/codec/tables/CMakeLists.txt ${ROOT}/codec/rest/CMakeLists.txt ${ROOT}/codec/electrum/CMakeLists.txt ${ROOT}/apps/*CMakeLists.txt ${ROOT}/tests/*CMakeLists.txt)
foreach(cmake_file IN LISTS cmake_files)
  file(STRINGS "${cmake_file}" lines REGEX "codec/(primitives/)?src|blockwire_codec_templated")
  foreach(line IN LISTS lines)
    fail("${cmake_file} reaches into the codec's private sources: ${line}")
  endforeach()
endforeach()

# 3: the chain. Each library and the libraries it stands on directly
# (its CMakeLists' PUBLIC links): the one picture the docs draw.
#   io
#   codec       <- io
#   blockfiles  <- codec        p2p <- codec
#   undo        <- blockfiles
#   filters     <- undo
#   directory   <- filters
#   net         <- p2p, directory
#   tables      <- directory
#   rest        <- net, tables
#   electrum    <- net, tables
set(layers io codec blockfiles p2p undo filters directory net tables rest electrum)
set(below_io "")
set(below_codec io)
set(below_blockfiles codec)
set(below_p2p codec)
set(below_undo blockfiles)
set(below_filters undo)
set(below_directory filters)
set(below_net p2p directory)
set(below_tables directory)
set(below_rest net tables)
set(below_electrum net tables)
function(source_dir_of layer out)
  if(layer STREQUAL "io")
    set(${out} ${ROOT}/io PARENT_SCOPE)
  elseif(layer STREQUAL "codec")
    set(${out} ${ROOT}/codec/primitives PARENT_SCOPE)
  else()
    set(${out} ${ROOT}/codec/${layer} PARENT_SCOPE)
  endif()
endfunction()
# The links as the CMakeLists have them.
foreach(layer IN LISTS layers)
  source_dir_of(${layer} dir)
  file(STRINGS "${dir}/CMakeLists.txt" link_lines REGEX "target_link_libraries\\(blockwire_${layer} PUBLIC")
  set(linked "")
  foreach(line IN LISTS link_lines)
    string(REGEX MATCHALL "blockwire::[a-z0-9]+" targets "${line}")
    foreach(t IN LISTS targets)
      string(REPLACE "blockwire::" "" t "${t}")
      list(APPEND linked ${t})
    endforeach()
  endforeach()
  list(SORT linked)
  set(stated ${below_${layer}})
  list(SORT stated)
  if(NOT "${linked}" STREQUAL "${stated}")
    fail("${dir}/CMakeLists.txt: blockwire_${layer} links [${linked}], the chain says [${stated}]")
  endif()
endforeach()
# Each layer's closure (itself and everything below it), walked depth
# first: a layer met again on its own path is a cycle.
function(closure_of layer path out)
  if(layer IN_LIST path)
    string(REPLACE ";" " -> " shown "${path};${layer}")
    message(FATAL_ERROR "layering broken: a cycle among the libraries: ${shown}")
  endif()
  set(result ${layer})
  foreach(below IN LISTS below_${layer})
    closure_of(${below} "${path};${layer}" sub)
    list(APPEND result ${sub})
  endforeach()
  list(REMOVE_DUPLICATES result)
  set(${out} ${result} PARENT_SCOPE)
endfunction()
set(include_count 0)
foreach(layer IN LISTS layers)
  closure_of(${layer} "" allowed)
  source_dir_of(${layer} dir)
  file(GLOB_RECURSE layer_sources ${dir}/*.?pp)
  foreach(source IN LISTS layer_sources)
    includes_of("${source}" lines)
    foreach(line IN LISTS lines)
      if(NOT line MATCHES "<blockwire/([a-z0-9]+)")
        continue()
      endif()
      set(used ${CMAKE_MATCH_1})
      string(REGEX REPLACE "\\.hpp$" "" used "${used}")
      math(EXPR include_count "${include_count} + 1")
      if(NOT used IN_LIST allowed)
        fail("${source} (${layer}) includes ${used}, which is not below it: ${line}")
      endif()
    endforeach()
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
message(STATUS "layers: ${public_count} public headers, ${source_count} sources outside the codec, ${include_count} includes "
               "within the chain io <- codec <- blockfiles, p2p <- undo <- filters <- directory <- net, tables <- rest, electrum; "
               "<blockwire/codec.hpp> reaches ${closure} blockwire headers and not the wire toolkit")
