# pallas.pc for pkg-config users: `c++ $(pkg-config --cflags pallas) app.cpp
# $(pkg-config --libs pallas)`. Included from CMakeLists.txt's install section.
#
# Header-only, so the file goes beside the CMake package under share/ and has no libdir.
# Its prefix is ${pcfiledir} plus a relative path, so `cmake --install --prefix <p>`
# (a prefix chosen after configuring) still gives a correct file. Dependencies: Eigen as
# `Requires: eigen3` when the eigen3.pc that Debian ships is found, otherwise as -I flags;
# BLIS as -I flags, -DPALLAS_USE_BLIS=1 and the library's path;
# Boost (no .pc file in Debian) as -I flags, unless it is on the compiler's default path.
set(PALLAS_PKGCONFIG_DIR "${CMAKE_INSTALL_DATADIR}/pkgconfig"
    CACHE STRING "Where pallas.pc is installed, relative to the prefix")
if(IS_ABSOLUTE "${PALLAS_PKGCONFIG_DIR}")
  message(FATAL_ERROR "pallas: PALLAS_PKGCONFIG_DIR must be relative to the install "
                      "prefix (it is '${PALLAS_PKGCONFIG_DIR}')")
endif()

# ${pcfiledir}/<this> is the prefix: one ".." per component of the directory.
set(PALLAS_PC_TO_PREFIX "")
string(REGEX REPLACE "/+$" "" _pallas_pc_dir "${PALLAS_PKGCONFIG_DIR}")
string(REPLACE "/" ";" _pallas_pc_parts "${_pallas_pc_dir}")
foreach(_part IN LISTS _pallas_pc_parts)
  if(_part STREQUAL "..")
    message(FATAL_ERROR "pallas: PALLAS_PKGCONFIG_DIR must not contain '..'")
  elseif(NOT _part STREQUAL "" AND NOT _part STREQUAL ".")
    string(APPEND PALLAS_PC_TO_PREFIX "../")
  endif()
endforeach()
string(REGEX REPLACE "/$" "" PALLAS_PC_TO_PREFIX "${PALLAS_PC_TO_PREFIX}")
if(PALLAS_PC_TO_PREFIX STREQUAL "")
  set(PALLAS_PC_TO_PREFIX ".")
endif()

if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(PALLAS_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(PALLAS_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()

# -I flags for the include directories of imported targets, without the compiler's own
# (an explicit -I/usr/include would break #include_next in the standard library).
function(_pallas_pc_include_flags out)
  set(_flags "")
  foreach(_target IN LISTS ARGN)
    get_target_property(_dirs ${_target} INTERFACE_INCLUDE_DIRECTORIES)
    if(NOT _dirs)
      continue()
    endif()
    foreach(_dir IN LISTS _dirs)
      if(_dir STREQUAL "" OR _dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES
         OR _dir MATCHES "^\\$<")
        continue()
      endif()
      string(APPEND _flags " -I${_dir}")
    endforeach()
  endforeach()
  set(${out} "${_flags}" PARENT_SCOPE)
endfunction()

set(PALLAS_PC_REQUIRES "")
set(_pallas_pc_targets Boost::headers)
if(PALLAS_EIGEN_FOUND)
  find_package(PkgConfig QUIET)
  set(_pallas_pc_eigen OFF)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(_PALLAS_PC_EIGEN3 QUIET eigen3>=3.3)
    if(_PALLAS_PC_EIGEN3_FOUND)
      set(_pallas_pc_eigen ON)
    endif()
  endif()
  if(_pallas_pc_eigen)
    set(PALLAS_PC_REQUIRES "eigen3 >= 3.3")
  else()
    list(APPEND _pallas_pc_targets Eigen3::Eigen)
  endif()
endif()
_pallas_pc_include_flags(PALLAS_PC_EXTRA_CFLAGS ${_pallas_pc_targets})
# BLIS (no .pc file in Debian) as its -I folder, the macro that selects it, and its library.
set(PALLAS_PC_EXTRA_LIBS "")
if(PALLAS_BLIS_FOUND)
  _pallas_pc_include_flags(_pallas_pc_blis_cflags pallas::blis)
  string(APPEND PALLAS_PC_EXTRA_CFLAGS "${_pallas_pc_blis_cflags} -DPALLAS_USE_BLIS=1")
  string(APPEND PALLAS_PC_EXTRA_LIBS " ${PALLAS_BLIS_LIBRARY}")
endif()

configure_file("${CMAKE_CURRENT_LIST_DIR}/pallas.pc.in"
               "${CMAKE_CURRENT_BINARY_DIR}/pallas.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/pallas.pc" DESTINATION "${PALLAS_PKGCONFIG_DIR}")
