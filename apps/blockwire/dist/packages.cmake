# Debian packages of the install rules' three components, made by CPack's
# DEB generator (scripts/package; docs/install.md says why CPack): the
# command (component blockwire), the libraries for developers (dev:
# libblockwire-dev) and the Python module (python: python3-blockwire).
# The versions are the project's one; the shared libraries each binary
# links are found by dpkg-shlibdeps.
set(blockwire_dist ${CMAKE_CURRENT_LIST_DIR})

# Each package's /usr/share/doc: its copyright (the licence) and a
# changelog, as Debian's policy asks of every package.
set(blockwire_changelog ${PROJECT_BINARY_DIR}/dist/changelog)
string(TIMESTAMP blockwire_changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${blockwire_changelog}.in "@name@ (${PROJECT_VERSION}) unstable; urgency=medium

  * blockwire ${PROJECT_VERSION}: see the project's history for what it holds.

 -- The blockwire developers <blockwire@users.noreply.github.com>  @date@
")
set(blockwire_package_names blockwire libblockwire-dev python3-blockwire)
set(blockwire_package_components blockwire dev python)
set(blockwire_changelogs "")
foreach(name component IN ZIP_LISTS blockwire_package_names blockwire_package_components)
  if(component STREQUAL "python" AND NOT BLOCKWIRE_PYTHON)
    continue()
  endif()
  set(date "${blockwire_changelog_date}")
  configure_file(${blockwire_changelog}.in ${blockwire_changelog}-${name} @ONLY)
  add_custom_command(OUTPUT ${blockwire_changelog}-${name}.gz
    COMMAND gzip -9nc ${blockwire_changelog}-${name} > ${blockwire_changelog}-${name}.gz
    DEPENDS ${blockwire_changelog}-${name})
  list(APPEND blockwire_changelogs ${blockwire_changelog}-${name}.gz)
  install(FILES ${blockwire_changelog}-${name}.gz DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${name}
    RENAME changelog.gz COMPONENT ${component})  # (a native package's name)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${name}
    RENAME copyright COMPONENT ${component})
  list(APPEND blockwire_components ${component})
endforeach()
add_custom_target(blockwire_changelogs ALL DEPENDS ${blockwire_changelogs})

# (empty: each package's description says its own summary on its first
# line; CPackDeb would put the project's before it)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
set(CPACK_PACKAGE_NAME blockwire)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The blockwire developers")
set(CPACK_PACKAGE_CONTACT "The blockwire developers <blockwire@users.noreply.github.com>")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_OUTPUT_FILE_PREFIX ${PROJECT_SOURCE_DIR}/build/packages)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL ${blockwire_components})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/blockwire/blockwire")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)

set(CPACK_DEBIAN_BLOCKWIRE_PACKAGE_NAME blockwire)
set(CPACK_DEBIAN_BLOCKWIRE_PACKAGE_SECTION net)
set(CPACK_COMPONENT_BLOCKWIRE_DESCRIPTION "Bitcoin blocks, Core's block files, and servers over them
blockwire reads Bitcoin blocks and transactions and Bitcoin Core's block
files (XOR-obfuscated blk and rev files, its block index and chainstate)
without a node: inspect, scan, export to analytics tables, fetch from a
node over P2P, and serve a node's directory as Bitcoin Core's REST
interface, to Bitcoin peers, and to Electrum wallets. This package has the
command, its man pages and bash completion, systemd units for its servers
and a settings file in /etc/blockwire.")
set(CPACK_DEBIAN_BLOCKWIRE_PACKAGE_CONTROL_EXTRA ${blockwire_dist}/deb-blockwire/conffiles ${blockwire_dist}/deb-blockwire/postinst
  ${blockwire_dist}/deb-blockwire/postrm)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libblockwire-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# What its headers include and its static libraries link.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libboost-dev (>= 1.74), libssl-dev (>= 3), libsecp256k1-dev, libleveldb-dev, libsnappy-dev, libzstd-dev, zlib1g-dev")
set(CPACK_COMPONENT_DEV_DESCRIPTION "Bitcoin wire format library (C++20): headers and static libraries
blockwire's libraries: the Bitcoin wire format behind a compile boundary
(plain entry points, type-erased writers and readers), Bitcoin Core's
block files, P2P, undo data, BIP158 filters, the REST and Electrum
servers. Headers, static libraries, the CMake package
(find_package(blockwire)) and pkg-config's blockwire.pc.")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-blockwire)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
# The module is built for one Python: that version's python3.
if(BLOCKWIRE_PYTHON)
  math(EXPR blockwire_python_next "${Python_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}~), python3 (<< ${Python_VERSION_MAJOR}.${blockwire_python_next})")
endif()
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA ${blockwire_dist}/deb-python/postinst ${blockwire_dist}/deb-python/prerm)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "python3-pandas, python3-distributed")  # (Directory.table; blockwire.distributed)
set(CPACK_COMPONENT_PYTHON_DESCRIPTION "Bitcoin blocks and Core's block files from Python
The blockwire module for Python 3: blocks and transactions decoded,
Bitcoin Core's blocks directories read, tables as pandas DataFrames, and
export on a Dask cluster (blockwire.distributed).")

include(CPack)
