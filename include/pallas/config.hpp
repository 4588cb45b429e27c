// SPDX-License-Identifier: Apache-2.0
#pragma once
// Configuration switches. Every macro the library reads is spelled PALLAS_*.
//
//   PALLAS_CHECKED         1: run-time checks (bounds, poisoning, races, leaks, deadlocks).
//                          Defaults to 1 unless NDEBUG is defined.
//   PALLAS_USE_BLIS        1: pl::dot runs on BLIS's GEMM (bli_sgemm_ex, one thread a call;
//                          blis.h on the include path and libblis linked: the CMake target
//                          defines it where it finds BLIS). Defaults to 0 (detail/gemm.hpp).
//   PALLAS_USE_EIGEN       1: pl::dot runs on Eigen's GEMM; 0: on a plain loop, about 5-7x
//                          slower. Defaults to whether <Eigen/Core> is on the include path
//                          (detail/gemm.hpp); 0 when PALLAS_USE_BLIS is 1.
//   PALLAS_WARN_NO_EIGEN   defined: a `#pragma message` when PALLAS_USE_EIGEN defaulted to
//                          0 (off by default, so that -Werror builds stay clean; clang
//                          reports it as a warning, g++ as a note).
//   PALLAS_SEPARATE_COMPILATION
//                          defined: the runtime (launches, cores, the DMA engine, checked
//                          mode's bookkeeping, the trace and reports) is declared by the
//                          headers and compiled once, in the translation unit that defines
//                          PALLAS_RUNTIME_SOURCE before including <pallas/pallas.hpp>
//                          (<pallas/runtime_source.hpp>; CMake: link pallas::runtime, or
//                          pallas::runtime_mpi). Kernel translation units then neither
//                          parse nor optimize it. Every
//                          translation unit of the program, the runtime's included, must be
//                          built with the same PALLAS_CHECKED and PALLAS_USE_MPI: a mismatch
//                          is a link error naming the runtime's settings.

#ifndef PALLAS_CHECKED
#  ifdef NDEBUG
#    define PALLAS_CHECKED 0
#  else
#    define PALLAS_CHECKED 1
#  endif
#endif

// PALLAS_DECL marks a function the runtime defines out of line (in a .ipp beside its
// header): `inline` when every translation unit defines it (header-only), nothing when one
// does. PALLAS_DEFINE_RUNTIME is 1 in the translation units that include the definitions.
#if defined(PALLAS_SEPARATE_COMPILATION)
#  define PALLAS_DECL
#  if defined(PALLAS_RUNTIME_SOURCE)
#    define PALLAS_DEFINE_RUNTIME 1
#  else
#    define PALLAS_DEFINE_RUNTIME 0
#  endif
#else
#  define PALLAS_DECL inline
#  define PALLAS_DEFINE_RUNTIME 1
#endif

namespace pallas {

/// True when the library's run-time checks are compiled in.
inline constexpr bool checked_mode = PALLAS_CHECKED != 0;

}  // namespace pallas
