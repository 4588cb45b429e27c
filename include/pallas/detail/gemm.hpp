// SPDX-License-Identifier: Apache-2.0
#pragma once
// The GEMM kernels behind pl::dot (dot.hpp): f32 on BLIS's GEMM (PALLAS_USE_BLIS, which
// the CMake target defines where BLIS is found), on Eigen's mapped on strided buffers (when
// <Eigen/Core> is on the include path: PALLAS_USE_EIGEN, see config.hpp) or on a plain
// loop, and integers in wrapping 32-bit arithmetic.

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/shape.hpp>

#ifndef PALLAS_USE_BLIS
#  define PALLAS_USE_BLIS 0
#endif

#if PALLAS_USE_BLIS
#  if !__has_include(<blis.h>)
#    error "pallas: PALLAS_USE_BLIS=1 makes BLIS pl::dot's matrix unit, but <blis.h> is not on the include path (Debian: libblis-pthread-dev, -I/usr/include/<multiarch>/blis-pthread, and link libblis)"
#  endif
#  undef PALLAS_USE_EIGEN
#  define PALLAS_USE_EIGEN 0  // BLIS is the matrix unit: Eigen is not parsed
#elif !defined(PALLAS_USE_EIGEN)
#  if __has_include(<Eigen/Core>)
#    define PALLAS_USE_EIGEN 1
#  else
#    define PALLAS_USE_EIGEN 0
// Silent by default (a -Werror build must not break); PALLAS_WARN_NO_EIGEN opts in.
#    ifdef PALLAS_WARN_NO_EIGEN
#      pragma message("pallas: <Eigen/Core> is not on the include path, so pl::dot uses " \
                      "a plain loop, about 5-7x slower than Eigen's GEMM; add Eigen's "  \
                      "directory (Debian: libeigen3-dev, -I/usr/include/eigen3), or "    \
                      "define PALLAS_USE_EIGEN=0 to choose the loop")
#    endif
#  endif
#endif

namespace pallas::detail {

/// A canonical (batch, rows, cols) strided float matrix.
struct matrix_view {
  float const* data;
  index_t batch_stride, row_stride, col_stride;
};

/// C (m x n, row stride ldc, unit column stride) = / += / -= A (m x k) * B (k x n), for
/// mode 0, 1, -1. A and B have a unit stride along one of their dimensions. A template on
/// the (float) element type, so that a translation unit which never calls pl::dot on floats
/// does not instantiate and compile Eigen's GEMM (about a second of every build); under
/// separate compilation only the runtime's translation unit compiles it (and includes Eigen).
template <class Float>
  requires std::is_same_v<Float, float>
void gemm_f32(Float* c, index_t ldc, matrix_view const& a, matrix_view const& b, index_t m,
              index_t n, index_t k, int mode);
#if defined(PALLAS_SEPARATE_COMPILATION)
extern template void gemm_f32<float>(float*, index_t, matrix_view const&, matrix_view const&, index_t, index_t,
                                     index_t, int);
#endif

/// Integer GEMM in wrapping uint32 arithmetic: C (contiguous) = A * B.
inline void gemm_u32(std::uint32_t* c, std::uint32_t const* a, std::uint32_t const* b, index_t m,
                     index_t n, index_t k) {
  for (index_t i = 0; i < m * n; ++i) c[i] = 0u;
  for (index_t i = 0; i < m; ++i) {
    std::uint32_t* crow = c + i * n;
    for (index_t p = 0; p < k; ++p) {
      std::uint32_t const x = a[i * k + p];
      std::uint32_t const* brow = b + p * n;
      for (index_t j = 0; j < n; ++j) crow[j] += x * brow[j];
    }
  }
}

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/gemm.ipp>
#endif
