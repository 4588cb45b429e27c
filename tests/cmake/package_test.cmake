# cmake -P script behind the package.* tests: builds and runs a consumer project.
#   -DMODE=find_package|add_subdirectory|fetchcontent
#   -DPALLAS_SOURCE_DIR=...  -DPALLAS_BINARY_DIR=...  -DWORK_DIR=...
#   -DGENERATOR=...  -DMAKE_PROGRAM=...  -DCXX_COMPILER=...
# find_package installs PALLAS_BINARY_DIR into WORK_DIR/prefix first and gives the
# consumer only that prefix.
cmake_minimum_required(VERSION 3.21)

function(run)
  list(JOIN ARGN " " _shown)
  message(STATUS "$ ${_shown}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "failed (${_result}): ${_shown}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(_common -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Debug)
if(MAKE_PROGRAM)
  list(APPEND _common "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()

if(MODE STREQUAL "find_package")
  set(_prefix "${WORK_DIR}/prefix")
  run("${CMAKE_COMMAND}" --install "${PALLAS_BINARY_DIR}" --prefix "${_prefix}")
  foreach(_file include/pallas/pallas.hpp share/cmake/pallas/pallasConfig.cmake
                share/cmake/pallas/pallasConfigVersion.cmake
                share/cmake/pallas/pallasTargets.cmake)
    if(NOT EXISTS "${_prefix}/${_file}")
      message(FATAL_ERROR "not installed: ${_prefix}/${_file}")
    endif()
  endforeach()
  set(_source "${PALLAS_SOURCE_DIR}/tests/package/find_package_consumer")
  set(_args "-DCMAKE_PREFIX_PATH=${_prefix}")
elseif(MODE STREQUAL "add_subdirectory" OR MODE STREQUAL "fetchcontent")
  set(_source "${PALLAS_SOURCE_DIR}/tests/package/add_subdirectory_consumer")
  set(_args "-DPALLAS_SOURCE_DIR=${PALLAS_SOURCE_DIR}" "-DCONSUME_WITH=${MODE}")
else()
  message(FATAL_ERROR "package_test.cmake: unknown MODE '${MODE}'")
endif()

run("${CMAKE_COMMAND}" -S "${_source}" -B "${WORK_DIR}/build" ${_common} ${_args})
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/consumer")
