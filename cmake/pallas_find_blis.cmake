# pallas_find_blis(): looks for BLIS (blis.h and libblis) and, when found, defines the
# imported target pallas::blis and sets PALLAS_BLIS_FOUND, PALLAS_BLIS_INCLUDE_DIR and
# PALLAS_BLIS_LIBRARY in the caller's scope. Used by CMakeLists.txt and by the installed
# package config (a consumer finds BLIS again where it lives on its own machine).
#
# BLIS ships no CMake or pkg-config file in Debian; its packages put each threading
# variant in its own folder (libblis-pthread-dev: <multiarch>/blis-pthread). Any variant
# serves: pallas runs each call on one thread (bli_sgemm_ex with its own runtime object),
# and BLIS is re-entrant. -DPALLAS_BLIS_ROOT=<prefix> points at a BLIS built by hand.
function(pallas_find_blis)
  set(_suffixes blis-pthread blis-openmp blis-serial blis)
  if(CMAKE_LIBRARY_ARCHITECTURE)
    set(_arch_suffixes "")
    foreach(_s IN LISTS _suffixes)
      list(APPEND _arch_suffixes "${CMAKE_LIBRARY_ARCHITECTURE}/${_s}")
    endforeach()
    list(PREPEND _suffixes ${_arch_suffixes})
  endif()
  set(_hints "")
  if(PALLAS_BLIS_ROOT)
    set(_hints HINTS "${PALLAS_BLIS_ROOT}/include" "${PALLAS_BLIS_ROOT}/lib")
  endif()
  find_path(PALLAS_BLIS_INCLUDE_DIR blis.h ${_hints} PATH_SUFFIXES ${_suffixes}
            DOC "pallas: the folder of blis.h (pl::dot's matrix unit)")
  find_library(PALLAS_BLIS_LIBRARY NAMES blis ${_hints} PATH_SUFFIXES ${_suffixes}
               DOC "pallas: libblis (pl::dot's matrix unit)")
  set(_found OFF)
  if(PALLAS_BLIS_INCLUDE_DIR AND PALLAS_BLIS_LIBRARY)
    set(_found ON)
    if(NOT TARGET pallas::blis)
      add_library(pallas::blis INTERFACE IMPORTED)
      # An imported target's include folder is a system one: blis.h's own warnings
      # (unused parameters) stay out of -Werror builds.
      set_target_properties(pallas::blis PROPERTIES
          INTERFACE_INCLUDE_DIRECTORIES "${PALLAS_BLIS_INCLUDE_DIR}"
          INTERFACE_LINK_LIBRARIES "${PALLAS_BLIS_LIBRARY}")
    endif()
  endif()
  set(PALLAS_BLIS_FOUND ${_found} PARENT_SCOPE)
  set(PALLAS_BLIS_INCLUDE_DIR "${PALLAS_BLIS_INCLUDE_DIR}" PARENT_SCOPE)
  set(PALLAS_BLIS_LIBRARY "${PALLAS_BLIS_LIBRARY}" PARENT_SCOPE)
endfunction()
