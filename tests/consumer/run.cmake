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
file(REMOVE_RECURSE "${WORK}")
message(STATUS "consumer: ${out}")
