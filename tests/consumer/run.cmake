# Installs the built project into a temporary prefix, then configures,
# builds and runs tests/consumer against it.
# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DCXX=... -DCXX_FLAGS=... -DWORK=... -P run.cmake
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK}/prefix"
                RESULT_VARIABLE r OUTPUT_QUIET)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${r}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer" -B "${WORK}/build" -G Ninja
                        -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
                        "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}"
                RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK}/build" RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "building the consumer failed:\n${out}")
endif()
execute_process(COMMAND "${WORK}/build/consumer" "${SOURCE_DIR}/tests/data/block413567.raw"
                RESULT_VARIABLE r OUTPUT_VARIABLE out)
set(expected "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069 1557")
string(STRIP "${out}" out)
if(NOT r EQUAL 0 OR NOT out STREQUAL expected)
  message(FATAL_ERROR "the consumer printed '${out}' (exit ${r}), expected '${expected}'")
endif()

# The same program built from pkg-config's flags alone (blockwire.pc).
find_program(PKG_CONFIG NAMES pkg-config pkgconf REQUIRED)
file(GLOB_RECURSE pc_file "${WORK}/prefix/*/blockwire.pc")
if(NOT pc_file)
  message(FATAL_ERROR "no blockwire.pc installed under ${WORK}/prefix")
endif()
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs blockwire RESULT_VARIABLE r OUTPUT_VARIABLE pc_flags ERROR_VARIABLE pc_error
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs blockwire failed: ${pc_error}")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
separate_arguments(compile_flags UNIX_COMMAND "${CXX_FLAGS} ${LINKER_FLAGS}")
execute_process(COMMAND ${CXX} -std=c++20 ${compile_flags} "${SOURCE_DIR}/tests/consumer/main.cpp" -o "${WORK}/pc-consumer" ${pc_flags}
                RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "building with pkg-config's flags failed:\n${out}")
endif()
execute_process(COMMAND "${WORK}/pc-consumer" "${SOURCE_DIR}/tests/data/block413567.raw" RESULT_VARIABLE r OUTPUT_VARIABLE pc_out)
string(STRIP "${pc_out}" pc_out)
if(NOT r EQUAL 0 OR NOT pc_out STREQUAL expected)
  message(FATAL_ERROR "the pkg-config consumer printed '${pc_out}' (exit ${r}), expected '${expected}'")
endif()
file(REMOVE_RECURSE "${WORK}")
message(STATUS "consumer (CMake package and pkg-config): ${out}")
