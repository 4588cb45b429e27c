# cmake -P script behind the compile_fail.* tests.
#   -DCOMPILER=<c++>  -DSOURCE=<tests/compile_fail/rule.cpp>  -DMODE=fail|twin|pch
#   -DFLAGS=<a|b|...>  -DINCLUDES=<dir|dir|...>  -DIMPLICIT_INCLUDES=<dir|...>
#   -DPROJECT_INCLUDE=<include/ of pallas: -I; every other directory is -isystem>
#   -DPCH_HEADER=<header that includes the umbrella>  -DPCH_FILE=<its precompiled form>
# MODE=fail: compile with -DPALLAS_COMPILE_FAIL; pass only if the compiler fails, its
#            output matches the regex on the file's first line, `// expect-error: <regex>`,
#            and it prints one error (or the count on the second line,
#            `// expect-error-count: gcc=<n> clang=<n>`).
# MODE=twin: compile without it; pass only if the compiler succeeds.
# MODE=pch:  precompile PCH_HEADER (SOURCE) into OUTPUT with the same flags (build step).
# With PCH_FILE present, fail/twin pre-include PCH_HEADER so the compiler loads the
# umbrella header instead of parsing it; a stale or unusable PCH falls back to parsing.
cmake_minimum_required(VERSION 3.21)

foreach(_var COMPILER SOURCE MODE)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "compile_fail.cmake: -D${_var}=... is required")
  endif()
endforeach()

string(REPLACE "|" ";" _flags "${FLAGS}")
string(REPLACE "|" ";" _includes "${INCLUDES}")
string(REPLACE "|" ";" _implicit "${IMPLICIT_INCLUDES}")
list(REMOVE_DUPLICATES _includes)
set(_include_flags "")
foreach(_dir IN LISTS _includes)
  # -I/usr/include and friends would break #include_next in the standard library.
  if(_dir STREQUAL "" OR _dir IN_LIST _implicit)
    continue()
  endif()
  # As in the CMake build: the project's headers with -I, dependencies (Boost, Eigen) as
  # system headers, whose warnings -Werror must not turn into errors.
  if(PROJECT_INCLUDE AND _dir STREQUAL PROJECT_INCLUDE)
    list(APPEND _include_flags "-I${_dir}")
  else()
    list(APPEND _include_flags -isystem "${_dir}")
  endif()
endforeach()

set(_base "${COMPILER}" ${_flags} ${_include_flags})

if(MODE STREQUAL "pch")
  set(_command ${_base} -x c++-header "${SOURCE}" -o "${OUTPUT}")
  execute_process(COMMAND ${_command} RESULT_VARIABLE _result
                  OUTPUT_VARIABLE _output ERROR_VARIABLE _output)
  if(NOT _result EQUAL 0)
    file(REMOVE "${OUTPUT}")
    list(JOIN _command " " _shown)
    message(NOTICE "command: ${_shown}\n${_output}")
    message(FATAL_ERROR "Precompiling <pallas/pallas.hpp> failed (output above).")
  endif()
  return()
endif()

file(STRINGS "${SOURCE}" _first LIMIT_COUNT 1)
if(NOT _first MATCHES "^// expect-error: (.+)$")
  message(FATAL_ERROR "${SOURCE}: the first line must be `// expect-error: <regex>`, "
                      "got: ${_first}")
endif()
set(_regex "${CMAKE_MATCH_1}")
string(STRIP "${_regex}" _regex)

# How many `error:` lines the compiler may print: 1, unless the second line says otherwise
# for this compiler (`// expect-error-count: gcc=2 clang=1`): a known cascade, written down
# so that a new one fails the test and a fixed one is noticed.
set(_expected_errors 1)
file(STRINGS "${SOURCE}" _head LIMIT_COUNT 2)
list(LENGTH _head _head_lines)
if(_head_lines EQUAL 2)
  list(GET _head 1 _second)
  if(COMPILER MATCHES "clang")
    set(_compiler_key clang)
  else()
    set(_compiler_key gcc)
  endif()
  if(_second MATCHES "^// expect-error-count:.*${_compiler_key}=([0-9]+)")
    set(_expected_errors "${CMAKE_MATCH_1}")
  endif()
endif()

set(_command ${_base} -fsyntax-only)
if(MODE STREQUAL "fail")
  list(APPEND _command -DPALLAS_COMPILE_FAIL)
elseif(NOT MODE STREQUAL "twin")
  message(FATAL_ERROR "compile_fail.cmake: MODE must be fail, twin or pch, got ${MODE}")
endif()

macro(compile)
  execute_process(COMMAND ${_command} "${SOURCE}"
                  RESULT_VARIABLE _result
                  OUTPUT_VARIABLE _output
                  ERROR_VARIABLE _output)
  list(JOIN _command " " _shown)
  string(APPEND _shown " ${SOURCE}")
endmacro()

set(_plain_command ${_command})
if(PCH_HEADER AND EXISTS "${PCH_FILE}")
  list(APPEND _command -include "${PCH_HEADER}")
endif()
compile()
if(NOT _result EQUAL 0 AND _output MATCHES "precompiled header|PCH file|PLEASE submit a bug report")
  # clang rejects a PCH older than the headers (ctest run without a rebuild), and clang 14
  # crashes on some files (the several-chips ones) against it; both compile without it.
  message(STATUS "the precompiled header is unusable; compiling without it")
  set(_command ${_plain_command})
  compile()
endif()

# The command and the compiler's output, unformatted (FATAL_ERROR would re-wrap them).
macro(report)
  message(NOTICE "command: ${_shown}\n--- compiler output ---\n${_output}--- end ---")
endmacro()

if(MODE STREQUAL "twin")
  if(NOT _result EQUAL 0)
    report()
    message(FATAL_ERROR "The positive twin (no PALLAS_COMPILE_FAIL) of ${SOURCE} "
                        "does not compile.")
  endif()
  message(STATUS "twin compiles: ${SOURCE}")
  return()
endif()

if(_result EQUAL 0)
  report()
  message(FATAL_ERROR "${SOURCE} compiled with -DPALLAS_COMPILE_FAIL; expected an error "
                      "matching `${_regex}`.")
endif()
if(NOT _output MATCHES "${_regex}")
  report()
  message(FATAL_ERROR "${SOURCE} failed to compile, but the compiler output (above) does "
                      "not match `${_regex}`.")
endif()
string(REGEX MATCHALL "error:" _error_lines "${_output}")
list(LENGTH _error_lines _errors)
if(NOT _errors EQUAL _expected_errors)
  report()
  message(FATAL_ERROR "${SOURCE}: the compiler printed ${_errors} errors (above), expected "
                      "${_expected_errors}: one mistake, one error.")
endif()
message(STATUS "failed to compile as expected (matched `${_regex}`; errors: ${_errors}): ${SOURCE}")
