// SPDX-License-Identifier: Apache-2.0
#pragma once
// Configuration switches. Every macro the library reads is spelled PALLAS_*.
//
//   PALLAS_CHECKED         1: run-time checks (bounds, poisoning, races, leaks, deadlocks).
//                          Defaults to 1 unless NDEBUG is defined.
//   PALLAS_USE_EIGEN       1: pl::dot runs on Eigen's GEMM; 0: on a plain loop, about 5-7x
//                          slower. Defaults to whether <Eigen/Core> is on the include path
//                          (dot.hpp).
//   PALLAS_WARN_NO_EIGEN   defined: a `#pragma message` when PALLAS_USE_EIGEN defaulted to
//                          0 (off by default, so that -Werror builds stay clean; clang
//                          reports it as a warning, g++ as a note).

#ifndef PALLAS_CHECKED
#  ifdef NDEBUG
#    define PALLAS_CHECKED 0
#  else
#    define PALLAS_CHECKED 1
#  endif
#endif

namespace pallas {

/// True when the library's run-time checks are compiled in.
inline constexpr bool checked_mode = PALLAS_CHECKED != 0;

}  // namespace pallas
