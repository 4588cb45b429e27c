# cmake -P script behind lint.header_only_emits_nothing: the object file of a translation
# unit that includes <pallas/pallas.hpp> and uses none of it defines no symbol of the library.
#   -DNM=<nm>              the toolchain's nm
#   -DOBJECTS=<a|b|...>    the object files to read
# Fails listing the library's symbols that were compiled anyway (the first 20).
cmake_minimum_required(VERSION 3.21)

if(NOT NM OR NOT OBJECTS)
  message(FATAL_ERROR "emits_nothing.cmake: -DNM=<nm> and -DOBJECTS=<a|b|...> are required")
endif()
string(REPLACE "|" ";" _objects "${OBJECTS}")
set(_found "")
foreach(_object IN LISTS _objects)
  execute_process(COMMAND "${NM}" -C --defined-only "${_object}"
                  OUTPUT_VARIABLE _symbols RESULT_VARIABLE _status)
  if(NOT _status EQUAL 0)
    message(FATAL_ERROR "emits_nothing.cmake: '${NM}' failed on ${_object}")
  endif()
  string(REPLACE "\n" ";" _lines "${_symbols}")
  foreach(_line IN LISTS _lines)
    if(_line MATCHES "pallas::")
      list(APPEND _found "${_line}")
    endif()
  endforeach()
endforeach()
list(LENGTH _found _count)
if(_count GREATER 0)
  list(SUBLIST _found 0 20 _shown)
  list(JOIN _shown "\n  " _shown)
  message(FATAL_ERROR "a translation unit that uses nothing of the library compiled ${_count} of "
                      "its symbols (a vtable whose key function is defined in a header?):\n  ${_shown}")
endif()
message(STATUS "no symbol of the library in ${OBJECTS}")
