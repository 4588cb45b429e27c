# pallas_precompile_headers(<target>... [REUSE_FROM <pch-target>])
#
# Compiles <pallas/pallas.hpp> once per target as a precompiled header, so that the
# target's translation units stop parsing it each (about 2 s of g++ CPU time a TU; the
# README's "Build times" gives the measured figures). Each target must link pallas::pallas.
# With REUSE_FROM, the targets use <pch-target>'s precompiled header instead of building
# their own (CMake's target_precompile_headers(REUSE_FROM); the compile flags must match).
#
#   find_package(pallas CONFIG REQUIRED)   # or add_subdirectory / FetchContent
#   add_executable(my_kernels kernels.cpp)
#   target_link_libraries(my_kernels PRIVATE pallas::pallas)
#   pallas_precompile_headers(my_kernels)
function(pallas_precompile_headers)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "REUSE_FROM" "")
  if(NOT arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pallas_precompile_headers: name at least one target")
  endif()
  foreach(target IN LISTS arg_UNPARSED_ARGUMENTS)
    if(NOT TARGET ${target})
      message(FATAL_ERROR "pallas_precompile_headers: '${target}' is not a target")
    endif()
    if(arg_REUSE_FROM AND NOT target STREQUAL arg_REUSE_FROM)
      target_precompile_headers(${target} REUSE_FROM ${arg_REUSE_FROM})
    else()
      target_precompile_headers(${target} PRIVATE <pallas/pallas.hpp>)
    endif()
  endforeach()
endfunction()
