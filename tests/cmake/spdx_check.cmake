# cmake -P script behind the lint.spdx test: every header must begin with the project's
# licence line, exactly, as line 1 (before `#pragma once`).
#   -DROOT=<directory>   every *.hpp and *.ipp below it is checked
#   -DFILES=<a|b|...>    and these files too (the generated single header)
# Fails naming each file whose first line is something else.
cmake_minimum_required(VERSION 3.21)

set(_expected "// SPDX-License-Identifier: Apache-2.0")

if(NOT DEFINED ROOT OR NOT IS_DIRECTORY "${ROOT}")
  message(FATAL_ERROR "spdx_check.cmake: -DROOT=<directory> is required ('${ROOT}')")
endif()
file(GLOB_RECURSE _headers LIST_DIRECTORIES false "${ROOT}/*.hpp" "${ROOT}/*.ipp")
string(REPLACE "|" ";" _extra "${FILES}")
list(APPEND _headers ${_extra})
list(SORT _headers)
list(LENGTH _headers _count)
if(_count EQUAL 0)
  message(FATAL_ERROR "spdx_check.cmake: no header under ${ROOT}")
endif()

set(_bad "")
foreach(_file IN LISTS _headers)
  if(NOT EXISTS "${_file}")
    list(APPEND _bad "${_file} (missing)")
    continue()
  endif()
  # file(STRINGS) would skip blank lines; read the first bytes and cut at the newline.
  file(READ "${_file}" _head LIMIT 256)
  string(FIND "${_head}" "\n" _eol)
  if(_eol GREATER_EQUAL 0)
    string(SUBSTRING "${_head}" 0 ${_eol} _first)
  else()
    set(_first "${_head}")
  endif()
  if(NOT _first STREQUAL _expected)
    list(APPEND _bad "${_file} (line 1: '${_first}')")
  endif()
endforeach()

if(_bad)
  list(LENGTH _bad _nbad)
  list(JOIN _bad "\n  " _shown)
  message(FATAL_ERROR "${_nbad} of ${_count} headers lack the SPDX line "
                      "'${_expected}' as line 1:\n  ${_shown}")
endif()
message(STATUS "spdx: all ${_count} headers begin with '${_expected}'")
