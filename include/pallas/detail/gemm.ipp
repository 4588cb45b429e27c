// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::dot's f32 GEMM: BLIS's, Eigen's, mapped on strided buffers, or the plain loop.

#include <vector>

#include <pallas/detail/buffer_pool.hpp>
#include <pallas/detail/gemm.hpp>

#if PALLAS_USE_BLIS
// blis.h warns at -Wextra (unused parameters, comparisons always true) where its folder is
// not a system one (a plain -I).
#  if defined(__GNUC__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wunused-parameter"
#    pragma GCC diagnostic ignored "-Wtype-limits"
#  endif
#  include <blis.h>
#  if defined(__GNUC__)
#    pragma GCC diagnostic pop
#  endif
#elif PALLAS_USE_EIGEN
// g++ 12 warns inside its own AVX-512 intrinsics (_mm512_undefined_ps) when Eigen's GEMM
// is inlined at -O3 -march=native; the warning is a false positive.
#  if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#  endif
#  include <Eigen/Core>
#  if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic pop
#  endif
#endif

namespace pallas::detail {

#if PALLAS_USE_BLIS
/// Whether the rows x cols matrix with strides (rs, cs) is in a layout BLIS documents for
/// row- or column-stored matrices: one unit stride, the other at least the extent it steps
/// over. Others (a broadcast's zero stride, overlapping rows) are copied first: BLIS 0.9
/// computed them right when tried, but its documentation does not promise it.
constexpr bool blis_takes(index_t rows, index_t cols, index_t rs, index_t cs) noexcept {
  if (cs == 1) return rows == 1 || rs >= cols;
  if (rs == 1) return cols == 1 || cs >= rows;
  return false;
}

/// The strides BLIS is given for a matrix it takes: an extent-1 dimension's stride is
/// never stepped over, so it gets the value BLIS's checks expect.
constexpr void blis_strides(index_t rows, index_t cols, index_t& rs, index_t& cs) noexcept {
  if (rows == 1 && cs == 1) rs = cols;
  if (cols == 1 && rs == 1) cs = rows;
  if (rows == 1 && cols == 1) rs = cs = 1;
}

/// C (m x n, row stride ldc) = / += / -= A * B on BLIS's GEMM, one thread per call (each
/// TensorCore's matrix unit is the one CPU that runs the core), whatever BLIS_NUM_THREADS
/// says. BLIS is re-entrant, so the cores call it concurrently.
inline void blis_gemm(float* c, index_t ldc, matrix_view a, matrix_view b, index_t m, index_t n, index_t k,
                      int mode) {
  rntm_t rntm = BLIS_RNTM_INITIALIZER;
  bli_rntm_set_num_threads(1, &rntm);
  index_t rsc = ldc, csc = 1;
  blis_strides(m, n, rsc, csc);
  blis_strides(m, k, a.row_stride, a.col_stride);
  blis_strides(k, n, b.row_stride, b.col_stride);
  float alpha = mode >= 0 ? 1.0f : -1.0f, beta = mode == 0 ? 0.0f : 1.0f;
  bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &alpha, const_cast<float*>(a.data), a.row_stride,
               a.col_stride, const_cast<float*>(b.data), b.row_stride, b.col_stride, &beta, c, rsc, csc, nullptr,
               &rntm);
}
#endif

#if PALLAS_USE_EIGEN && !PALLAS_USE_BLIS
#  if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#  endif
#  if EIGEN_VERSION_AT_LEAST(3, 4, 0)
/// Eigen's GEMM blocking (its panel sizes) with the packing workspace from the buffer pool:
/// Eigen's own allocates the workspace at every product, and from 128 KiB up glibc may map
/// and fault in fresh pages each time (a (256, 256, 256) block dot then ran at 0.63x of
/// sgemm instead of 0.86x). Not a thread_local: a forked child's LeakSanitizer reports the
/// storage of the parent's other threads. For a row-major C, Eigen computes C^T = B^T A^T:
/// its rows are C's columns, as in its gemm_blocking_space.
class pooled_blocking : public Eigen::internal::level3_blocking<float, float> {
 public:
  /// Eigen's panel sizes for the product, and whether its workspace is on the heap (else
  /// Eigen keeps it on the stack, which costs nothing).
  pooled_blocking(index_t m, index_t n, index_t k) {
    this->m_mc = n;
    this->m_nc = m;
    this->m_kc = k;
    Eigen::internal::computeProductBlockingSizes<float, float, 1, Eigen::Index>(this->m_kc, this->m_mc, this->m_nc,
                                                                              Eigen::Index{1});
    bytes_a_ = static_cast<std::size_t>(this->m_mc * this->m_kc) * sizeof(float);
    bytes_b_ = static_cast<std::size_t>(this->m_kc * this->m_nc) * sizeof(float);
  }
  bool on_heap() const noexcept {
    return bytes_a_ > EIGEN_STACK_ALLOCATION_LIMIT || bytes_b_ > EIGEN_STACK_ALLOCATION_LIMIT;
  }
  /// Takes the workspace from the pool.
  void allocate() {
    this->m_blockA = static_cast<float*>(buffer_pool::instance().take(bytes_a_));
    try {
      this->m_blockB = static_cast<float*>(buffer_pool::instance().take(bytes_b_));
    } catch (...) {
      buffer_pool::instance().give(this->m_blockA, bytes_a_);
      this->m_blockA = nullptr;
      throw;
    }
  }
  ~pooled_blocking() {
    if (this->m_blockA) buffer_pool::instance().give(this->m_blockA, bytes_a_);
    if (this->m_blockB) buffer_pool::instance().give(this->m_blockB, bytes_b_);
  }
  pooled_blocking(pooled_blocking const&) = delete;
  pooled_blocking& operator=(pooled_blocking const&) = delete;

 private:
  std::size_t bytes_a_ = 0, bytes_b_ = 0;
};
#  endif

/// Row-major C (m x n) = / += / -= row-major A (m x k) * B (k x n) in storage order
/// BOrder, for mode 0, 1, -1. Two instantiations, not four: each order pair is another GEMM
/// for the compiler (about 0.5 s of g++ -O2 CPU time each). B comes in both orders (the
/// x @ y.T of attention kernels is a column-major B: copying it would cost a strided
/// transpose per call); gemm_f32 copies the rarer column-major A.
template <int BOrder, class Float>
void eigen_gemm(Float* c, index_t ldc, Float const* a, index_t lda, Float const* b, index_t ldb,
                index_t m, index_t n, index_t k, int mode) {
  using M = Eigen::Matrix<Float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using MB = Eigen::Matrix<Float, Eigen::Dynamic, Eigen::Dynamic, BOrder>;
  Eigen::Map<M const, Eigen::Unaligned, Eigen::OuterStride<>> const A(a, m, k, Eigen::OuterStride<>(lda));
  Eigen::Map<MB const, Eigen::Unaligned, Eigen::OuterStride<>> const B(b, k, n, Eigen::OuterStride<>(ldb));
  Eigen::Map<M, Eigen::Unaligned, Eigen::OuterStride<>> C(c, m, n, Eigen::OuterStride<>(ldc));
#  if EIGEN_VERSION_AT_LEAST(3, 4, 0)
  if (m > 1 && n > 1 && m + n + k >= EIGEN_GEMM_TO_COEFFBASED_THRESHOLD) {  // where Eigen runs its GEMM
    pooled_blocking blocking(m, n, k);
    if (blocking.on_heap()) {
      blocking.allocate();
      if (mode == 0) C.setZero();
      Eigen::internal::general_matrix_matrix_product<Eigen::Index, Float, Eigen::RowMajor, false, Float, BOrder, false,
                                                     Eigen::RowMajor, 1>::run(m, n, k, a, lda, b, ldb, c, 1, ldc,
                                                                              mode >= 0 ? Float(1) : Float(-1),
                                                                              blocking, nullptr);
      return;
    }
  }
#  endif
  if (mode == 0)
    C.noalias() = A * B;
  else if (mode > 0)
    C.noalias() += A * B;
  else
    C.noalias() -= A * B;
}
#  if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic pop
#  endif
#endif

/// The rows x cols matrix `v` copied row-major (contiguous) into `tile`.
PALLAS_DECL float const* row_major_copy(matrix_view const& v, index_t rows, index_t cols, std::vector<float>& tile) {
  tile.resize(static_cast<std::size_t>(rows * cols));
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j)
      tile[static_cast<std::size_t>(i * cols + j)] = v.data[i * v.row_stride + j * v.col_stride];
  return tile.data();
}

template <class Float>
  requires std::is_same_v<Float, float>
void gemm_f32(Float* c, index_t ldc, matrix_view const& a, matrix_view const& b, index_t m,
              index_t n, index_t k, int mode) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (mode == 0)
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j) c[i * ldc + j] = 0.0f;
    return;
  }
#if PALLAS_USE_BLIS
  // BLIS takes both storage orders and any stride it can step over; others are copied.
  std::vector<Float> a_tile, b_tile;
  matrix_view ra = a, rb = b;
  if (!blis_takes(m, k, a.row_stride, a.col_stride)) ra = {row_major_copy(a, m, k, a_tile), 0, k, 1};
  if (!blis_takes(k, n, b.row_stride, b.col_stride)) rb = {row_major_copy(b, k, n, b_tile), 0, n, 1};
  blis_gemm(c, ldc, ra, rb, m, n, k, mode);
#elif PALLAS_USE_EIGEN
  // A column-major A is copied into a tile of this call: O(m k) against the GEMM's O(m n k).
  // Not a thread_local: its destructor registration outlives the threads of a forked
  // parent, which LeakSanitizer then reports in the child (fork_test).
  std::vector<Float> a_tile;
  Float const* const ra = a.col_stride == 1 ? a.data : row_major_copy(a, m, k, a_tile);
  index_t const lda = a.col_stride == 1 ? a.row_stride : k;
  if (b.col_stride == 1)
    eigen_gemm<Eigen::RowMajor>(c, ldc, ra, lda, b.data, b.row_stride, m, n, k, mode);
  else
    eigen_gemm<Eigen::ColMajor>(c, ldc, ra, lda, b.data, b.col_stride, m, n, k, mode);
#else
  if (mode == 0)
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) c[i * ldc + j] = 0.0f;
  for (index_t i = 0; i < m; ++i) {
    float* crow = c + i * ldc;
    for (index_t p = 0; p < k; ++p) {
      float const x = a.data[i * a.row_stride + p * a.col_stride] * static_cast<float>(mode >= 0 ? 1 : -1);
      float const* brow = b.data + p * b.row_stride;
      for (index_t j = 0; j < n; ++j) crow[j] += x * brow[j * b.col_stride];
    }
  }
#endif
}

#if defined(PALLAS_SEPARATE_COMPILATION)
template void gemm_f32<float>(float*, index_t, matrix_view const&, matrix_view const&, index_t, index_t, index_t,
                              int);
#endif

}  // namespace pallas::detail
