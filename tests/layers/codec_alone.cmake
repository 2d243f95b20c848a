# A user of the codec alone: io and codec configured with LevelDB, RapidJSON
# and Threads out of reach (as on a machine without them), and what they
# would install (the CMake package, blockwire.pc) asks for none of them.
# Asking for the tests as well is refused with the reason.
# cmake -DSOURCE_DIR=... -DWORK=... -P codec_alone.cmake
file(REMOVE_RECURSE "${WORK}")
set(out_of_reach -DCMAKE_DISABLE_FIND_PACKAGE_leveldb=ON -DCMAKE_DISABLE_FIND_PACKAGE_RapidJSON=ON -DCMAKE_DISABLE_FIND_PACKAGE_Threads=ON)
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK}/build" -G Ninja -DBLOCKWIRE_LAYERS=codec ${out_of_reach}
                RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "configuring io and codec alone failed:\n${out}")
endif()
file(READ "${WORK}/build/blockwireConfig.cmake" config)
foreach(absent leveldb RapidJSON Threads)
  if(config MATCHES "${absent}")
    message(FATAL_ERROR "the package of io and codec asks for ${absent}:\n${config}")
  endif()
endforeach()
file(READ "${WORK}/build/blockwire.pc" pc)
if(NOT pc MATCHES "\nLibs: -L\\\${libdir} -lblockwire_codec -lblockwire_io *\n" OR NOT pc MATCHES "\nRequires: libcrypto libsecp256k1\n")
  message(FATAL_ERROR "blockwire.pc of io and codec:\n${pc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK}/build" --target help RESULT_VARIABLE r OUTPUT_VARIABLE targets)
if(targets MATCHES "blockwire_blockfiles|blockwire_directory|blockwire_tables")
  message(FATAL_ERROR "a library above codec is a target:\n${targets}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK}/with-tests" -G Ninja -DBLOCKWIRE_LAYERS=codec -DBLOCKWIRE_BUILD_TESTS=ON
                RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(r EQUAL 0 OR NOT out MATCHES "need[ \n]+every library")
  message(FATAL_ERROR "the tests with io and codec alone: not refused with the reason (exit ${r}):\n${out}")
endif()
file(REMOVE_RECURSE "${WORK}")
message(STATUS "io and codec alone: configured without LevelDB, RapidJSON or Threads")
