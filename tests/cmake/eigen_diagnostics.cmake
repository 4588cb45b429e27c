# cmake -P script behind the diagnostics.no_eigen.* tests: what a user without Eigen is told.
#   -DMODE=configure  configure PALLAS_SOURCE_DIR (tests and examples off) with Eigen hidden
#                     and BLIS not looked for:
#                     the output must give the cost (5-7x) and the fix (libeigen3-dev)
#   -DMODE=header     compile <pallas/dot.hpp> three ways with COMPILER:
#                     no Eigen + PALLAS_WARN_NO_EIGEN   -> the message, PALLAS_USE_EIGEN 0
#                     no Eigen, warnings as errors      -> compiles, prints nothing
#                     Eigen + PALLAS_WARN_NO_EIGEN      -> prints nothing, PALLAS_USE_EIGEN 1
#   -DPALLAS_SOURCE_DIR=...  -DWORK_DIR=...  -DGENERATOR=...  -DCOMPILER=<c++>
#   -DINCLUDES=<dir|...> (Boost)  -DEIGEN_INCLUDES=<dir|...> (empty: skip the third)
#   -DIMPLICIT_INCLUDES=<dir|...> (the compiler's own, never passed as -I)
cmake_minimum_required(VERSION 3.21)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(_message "pl::dot uses a plain loop, about 5-7x slower")

if(MODE STREQUAL "configure")
  execute_process(
      COMMAND "${CMAKE_COMMAND}" -S "${PALLAS_SOURCE_DIR}" -B "${WORK_DIR}/build"
              -G "${GENERATOR}" -DPALLAS_BUILD_TESTS=OFF -DPALLAS_BUILD_EXAMPLES=OFF
              -DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON -DPALLAS_USE_BLIS=OFF
      RESULT_VARIABLE _result OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  set(_all "${_out}${_err}")
  string(REGEX REPLACE "[ \n]+" " " _flat "${_all}")  # CMake wraps warnings
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "configuring without Eigen failed (${_result}):\n${_all}")
  endif()
  foreach(_needle "Eigen 3.3 or newer was not found" "falls back to a plain loop"
                  "about 5-7x slower" "apt-get install libeigen3-dev" "-DPALLAS_USE_EIGEN=OFF")
    string(FIND "${_flat}" "${_needle}" _at)
    if(_at LESS 0)
      message(FATAL_ERROR "configuring without Eigen did not say '${_needle}':\n${_all}")
    endif()
  endforeach()
  message(STATUS "configure without Eigen warns with the cost and the fix")
  return()
elseif(NOT MODE STREQUAL "header")
  message(FATAL_ERROR "eigen_diagnostics.cmake: unknown MODE '${MODE}'")
endif()

string(REPLACE "|" ";" _implicit "${IMPLICIT_INCLUDES}")
function(include_flags out)
  set(_flags "")
  foreach(_joined IN LISTS ARGN)
    string(REPLACE "|" ";" _dirs "${_joined}")
    foreach(_dir IN LISTS _dirs)
      if(NOT _dir STREQUAL "" AND NOT _dir IN_LIST _implicit)
        list(APPEND _flags "-isystem" "${_dir}")
      endif()
    endforeach()
  endforeach()
  set(${out} ${_flags} PARENT_SCOPE)
endfunction()
include_flags(_boost "${INCLUDES}")
include_flags(_eigen "${EIGEN_INCLUDES}")

set(_tu "${WORK_DIR}/dot_tu.cpp")
file(WRITE "${_tu}" "#include <pallas/dot.hpp>
static_assert(PALLAS_USE_EIGEN == EXPECT_EIGEN, \"PALLAS_USE_EIGEN is not what the flags imply\");
int main() {}
")

# compile(<name> <expect message: ON|OFF> <warnings as errors: ON|OFF> <flags>...)
function(compile name expect_message werror)
  set(_cmd "${COMPILER}" -std=c++20 -fsyntax-only "-I${PALLAS_SOURCE_DIR}/include" ${ARGN})
  if(werror)
    list(APPEND _cmd -Wall -Wextra -Wpedantic -Werror)
  endif()
  list(APPEND _cmd "${_tu}")
  list(JOIN _cmd " " _shown)
  message(STATUS "${name}: $ ${_shown}")
  execute_process(COMMAND ${_cmd} RESULT_VARIABLE _result OUTPUT_VARIABLE _out
                  ERROR_VARIABLE _err)
  set(_all "${_out}${_err}")
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "${name}: the compile failed (${_result}):\n${_all}")
  endif()
  string(FIND "${_all}" "${_message}" _at)
  if(expect_message AND _at LESS 0)
    message(FATAL_ERROR "${name}: no '${_message}' in the compiler's output:\n${_all}")
  elseif(NOT expect_message AND NOT _all STREQUAL "")
    message(FATAL_ERROR "${name}: expected a silent compile, got:\n${_all}")
  endif()
endfunction()

compile("no Eigen, PALLAS_WARN_NO_EIGEN" ON OFF ${_boost} -DPALLAS_WARN_NO_EIGEN -DEXPECT_EIGEN=0)
compile("no Eigen, -Werror" OFF ON ${_boost} -DEXPECT_EIGEN=0)
compile("no Eigen, PALLAS_USE_EIGEN=0 chosen" OFF ON ${_boost} -DPALLAS_USE_EIGEN=0
        -DPALLAS_WARN_NO_EIGEN -DEXPECT_EIGEN=0)
if(_eigen)
  compile("Eigen, PALLAS_WARN_NO_EIGEN" OFF ON ${_boost} ${_eigen} -DPALLAS_WARN_NO_EIGEN
          -DEXPECT_EIGEN=1)
else()
  message(STATUS "Eigen not found at configure time: the with-Eigen compile is skipped")
endif()
