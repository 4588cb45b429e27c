# pallas_add_runtime(<target>)
#
# Separate compilation (PALLAS_SEPARATE_COMPILATION, include/pallas/config.hpp): a static
# library that compiles pallas' runtime once (launches, cores, the DMA engine, checked mode,
# the trace and reports, pl::dot's GEMM with Eigen), so that the translation units of the
# targets linking it neither parse nor optimize it. It brings pallas::pallas and the macro
# with it. Build it with the PALLAS_* settings of the targets that link it (link the same
# options target into it, or pallas::mpi for the MPI backend); a PALLAS_CHECKED or
# PALLAS_USE_MPI mismatch is a link error naming the runtime's settings.
#
#   find_package(pallas CONFIG REQUIRED)   # or add_subdirectory / FetchContent: pallas::runtime exists then
#   pallas_add_runtime(my_pallas_runtime)
#   add_executable(my_kernels a.cpp b.cpp)
#   target_link_libraries(my_kernels PRIVATE my_pallas_runtime)
function(pallas_add_runtime target)
  if(TARGET ${target})
    message(FATAL_ERROR "pallas_add_runtime: '${target}' exists already")
  endif()
  set(source "${CMAKE_CURRENT_BINARY_DIR}/${target}_runtime_source.cpp")
  file(CONFIGURE OUTPUT "${source}" CONTENT "#include <pallas/runtime_source.hpp>\n" @ONLY)
  add_library(${target} STATIC "${source}")
  target_compile_definitions(${target} PUBLIC PALLAS_SEPARATE_COMPILATION)
  target_link_libraries(${target} PUBLIC pallas::pallas)
endfunction()
