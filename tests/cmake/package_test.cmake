# cmake -P script behind the package.* tests: builds and runs a consumer project.
#   -DMODE=find_package|add_subdirectory|fetchcontent|install_only|pkg_config
#   -DPALLAS_SOURCE_DIR=...  -DPALLAS_BINARY_DIR=...  -DWORK_DIR=...
#   -DGENERATOR=...  -DMAKE_PROGRAM=...  -DCXX_COMPILER=...
#   -DPALLAS_VERSION=<project version>  -DEIGEN=ON|OFF (pallas::pallas carries Eigen)
#   -DBLIS=ON|OFF (pallas::pallas carries BLIS)
#   -DPKG_CONFIG=<pkg-config executable>  (pkg_config)
# find_package and pkg_config install PALLAS_BINARY_DIR into WORK_DIR/prefix and give
# the consumer only that prefix. install_only configures the source afresh with tests and
# examples off, installs that without building anything, and checks that neither Catch2
# nor Google Benchmark was looked for; the find_package consumer then uses that prefix.
cmake_minimum_required(VERSION 3.21)

function(run)
  list(JOIN ARGN " " _shown)
  message(STATUS "$ ${_shown}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "failed (${_result}): ${_shown}")
  endif()
endfunction()

# Runs a command and returns its standard output, stripped; fails on a non-zero exit.
function(run_output out)
  list(JOIN ARGN " " _shown)
  message(STATUS "$ ${_shown}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _result OUTPUT_VARIABLE _output
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "failed (${_result}): ${_shown}")
  endif()
  message(STATUS "  -> ${_output}")
  set(${out} "${_output}" PARENT_SCOPE)
endfunction()

# What every installed prefix must hold, and an installed config with no literal
# `if(ON)` / `if(OFF)` (a configure-time value pasted into a condition).
function(check_installed prefix)
  foreach(_file include/pallas/pallas.hpp include/pallas/npy.hpp include/pallas/runtime_source.hpp
                include/pallas/detail/runtime/core_set.ipp
                share/cmake/pallas/pallasConfig.cmake
                share/cmake/pallas/pallasConfigVersion.cmake
                share/cmake/pallas/pallasTargets.cmake
                share/cmake/pallas/pallas_runtime.cmake
                share/pkgconfig/pallas.pc share/doc/pallas/LICENSE)
    if(NOT EXISTS "${prefix}/${_file}")
      message(FATAL_ERROR "not installed: ${prefix}/${_file}")
    endif()
  endforeach()
  file(GLOB _configs "${prefix}/share/cmake/pallas/*.cmake")
  foreach(_config IN LISTS _configs)
    file(STRINGS "${_config}" _literal REGEX "if *\\( *(ON|OFF|TRUE|FALSE|YES|NO|1|0) *\\)")
    if(_literal)
      message(FATAL_ERROR "${_config} tests a literal: ${_literal}")
    endif()
  endforeach()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(_common -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Debug)
if(MAKE_PROGRAM)
  list(APPEND _common "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(EIGEN)
  set(_expect_eigen 1)
else()
  set(_expect_eigen 0)
endif()
if(BLIS)
  set(_expect_blis 1)
else()
  set(_expect_blis 0)
endif()
set(_prefix "${WORK_DIR}/prefix")

if(MODE STREQUAL "find_package")
  run("${CMAKE_COMMAND}" --install "${PALLAS_BINARY_DIR}" --prefix "${_prefix}")
  check_installed("${_prefix}")
  set(_source "${PALLAS_SOURCE_DIR}/tests/package/find_package_consumer")
  set(_args "-DCMAKE_PREFIX_PATH=${_prefix}" "-DEXPECT_EIGEN=${_expect_eigen}" "-DEXPECT_BLIS=${_expect_blis}")
elseif(MODE STREQUAL "install_only")
  set(_pallas_build "${WORK_DIR}/pallas-build")
  run("${CMAKE_COMMAND}" -S "${PALLAS_SOURCE_DIR}" -B "${_pallas_build}" ${_common}
      -DPALLAS_BUILD_TESTS=OFF -DPALLAS_BUILD_EXAMPLES=OFF)
  file(STRINGS "${_pallas_build}/CMakeCache.txt" _looked_for REGEX "^(Catch2|benchmark)_DIR")
  if(_looked_for)
    message(FATAL_ERROR "configuring without tests and examples looked for a test "
                        "dependency: ${_looked_for}")
  endif()
  run("${CMAKE_COMMAND}" --install "${_pallas_build}" --prefix "${_prefix}")
  check_installed("${_prefix}")
  set(_source "${PALLAS_SOURCE_DIR}/tests/package/find_package_consumer")
  set(_args "-DCMAKE_PREFIX_PATH=${_prefix}" "-DEXPECT_EIGEN=${_expect_eigen}" "-DEXPECT_BLIS=${_expect_blis}")
elseif(MODE STREQUAL "pkg_config")
  run("${CMAKE_COMMAND}" --install "${PALLAS_BINARY_DIR}" --prefix "${_prefix}")
  check_installed("${_prefix}")
  # Only the scratch prefix and the system's own .pc files (eigen3.pc).
  set(ENV{PKG_CONFIG_PATH} "${_prefix}/share/pkgconfig")
  run_output(_version "${PKG_CONFIG}" --modversion pallas)
  if(NOT _version STREQUAL PALLAS_VERSION)
    message(FATAL_ERROR "pkg-config --modversion pallas: '${_version}', the project is "
                        "'${PALLAS_VERSION}'")
  endif()
  run_output(_cflags "${PKG_CONFIG}" --cflags pallas)
  run_output(_libs "${PKG_CONFIG}" --libs pallas)
  if(NOT _cflags MATCHES "-std=c\\+\\+20" OR NOT _cflags MATCHES "-pthread")
    message(FATAL_ERROR "pkg-config --cflags pallas lacks -std=c++20 or -pthread: ${_cflags}")
  endif()
  separate_arguments(_cflags UNIX_COMMAND "${_cflags}")
  separate_arguments(_libs UNIX_COMMAND "${_libs}")
  # No CMake and no include path but what pkg-config gave; warnings are errors, as a
  # consumer's -Werror build would have them.
  run("${CXX_COMPILER}" ${_cflags} -Wall -Wextra -Wpedantic -Werror
      "-DPALLAS_CONSUMER_EXPECT_EIGEN=${_expect_eigen}" "-DPALLAS_CONSUMER_EXPECT_BLIS=${_expect_blis}"
      "${PALLAS_SOURCE_DIR}/tests/package/consumer.cpp" -o "${WORK_DIR}/consumer" ${_libs})
  run("${WORK_DIR}/consumer")
  return()
elseif(MODE STREQUAL "add_subdirectory" OR MODE STREQUAL "fetchcontent")
  set(_source "${PALLAS_SOURCE_DIR}/tests/package/add_subdirectory_consumer")
  set(_args "-DPALLAS_SOURCE_DIR=${PALLAS_SOURCE_DIR}" "-DCONSUME_WITH=${MODE}")
else()
  message(FATAL_ERROR "package_test.cmake: unknown MODE '${MODE}'")
endif()

run("${CMAKE_COMMAND}" -S "${_source}" -B "${WORK_DIR}/build" ${_common} ${_args})
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer")
run("${WORK_DIR}/build/consumer_separate")
