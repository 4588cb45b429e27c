// pl::dot's matrix unit (detail/gemm.hpp) called directly, against a naive loop: every
// storage order and stride an operand view can have (row- and column-major, padded, a
// broadcast's zero stride, extent-1 dimensions with any stride), the three accumulation
// modes (mode 0 over a C of NaNs: C must not be read), padded C rows, and shapes with
// size-1 dimensions in every position. The same file runs on BLIS, on Eigen and on the
// plain loop (tests/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <pallas/pallas.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace {

using pallas::index_t;
using pallas::detail::matrix_view;

struct layout {
  char const* name;
  index_t rs, cs;  // strides for a rows x cols matrix
};

// The layouts of a rows x cols operand that the dot path hands over (one unit stride).
std::vector<layout> layouts(index_t rows, index_t cols) {
  return {{"row-major", cols, 1},
          {"row-major, padded rows", cols + 3, 1},
          {"column-major", 1, rows},
          {"column-major, padded columns", 1, rows + 2},
          {"rows broadcast (zero row stride)", 0, 1},
          {"columns broadcast (zero column stride)", 1, 0},
          {"row-major, row stride 7 over any width", 7, 1}};
}

// Values small enough that every sum of products is exact in float.
float value(index_t i, index_t j, int salt) { return static_cast<float>((i * 7 + j * 3 + salt) % 7 - 3); }

std::vector<float> fill(index_t rows, index_t cols, layout const& l, int salt) {
  index_t const span = (rows - 1) * l.rs + (cols - 1) * l.cs + 1;
  std::vector<float> buf(static_cast<std::size_t>(span), 99.0f);
  // A broadcast layout repeats one row (or column): the matrix is what the strides read.
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) buf[static_cast<std::size_t>(i * l.rs + j * l.cs)] = value(i, j, salt);
  return buf;
}

float at(std::vector<float> const& buf, layout const& l, index_t i, index_t j) {
  return buf[static_cast<std::size_t>(i * l.rs + j * l.cs)];
}

void check(index_t m, index_t n, index_t k, layout const& la, layout const& lb, int mode, index_t pad) {
  std::vector<float> const a = fill(m, k, la, 1), b = fill(k, n, lb, 2);
  index_t const ldc = n + pad;
  std::vector<float> c(static_cast<std::size_t>(m * ldc));
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < ldc; ++j)
      c[static_cast<std::size_t>(i * ldc + j)] = j < n ? (mode == 0 ? std::nanf("") : value(i, j, 3)) : -42.0f;
  std::vector<float> expect = c;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      float s = 0.0f;
      for (index_t p = 0; p < k; ++p) s += at(a, la, i, p) * at(b, lb, p, j);
      float& e = expect[static_cast<std::size_t>(i * ldc + j)];
      e = mode == 0 ? s : mode > 0 ? e + s : e - s;
    }
  matrix_view const va{a.data(), 0, la.rs, la.cs}, vb{b.data(), 0, lb.rs, lb.cs};
  pallas::detail::gemm_f32(c.data(), ldc, va, vb, m, n, k, mode);
  INFO("m " << m << " n " << n << " k " << k << ", A " << la.name << ", B " << lb.name << ", mode " << mode
            << ", C row padding " << pad);
  // Exact: small integers; the padding is untouched. One assertion a call (the sweep makes
  // ten thousand calls), naming the first wrong element.
  std::size_t q = 0;
  while (q < c.size() && (c[q] == expect[q])) ++q;
  if (q < c.size())
    UNSCOPED_INFO("C element " << q / static_cast<std::size_t>(ldc) << ", " << q % static_cast<std::size_t>(ldc) << ": "
                               << c[q] << ", expected " << expect[q]);
  REQUIRE(q == c.size());
}

}  // namespace

TEST_CASE("gemm_f32: every operand layout, mode and size-1 dimension against a loop", "[dot][gemm]") {
  index_t const sizes[] = {1, 2, 3, 5};
  int const modes[] = {0, 1, -1};
  for (index_t m : sizes)
    for (index_t n : sizes)
      for (index_t k : sizes)
        for (layout const& la : layouts(m, k))
          for (layout const& lb : layouts(k, n))
            for (int mode : modes) check(m, n, k, la, lb, mode, m == 1 ? 0 : 2);
}

TEST_CASE("gemm_f32: blocks large enough for the packed kernels", "[dot][gemm]") {
  // Past Eigen's coefficient-based threshold and BLIS's small-matrix path, with ragged
  // edges against every register-tile size.
  struct mnk {
    index_t m, n, k;
  };
  for (mnk s : {mnk{67, 45, 81}, mnk{1, 130, 70}, mnk{130, 1, 70}, mnk{70, 90, 1}, mnk{96, 64, 48}})
    for (layout const& la : layouts(s.m, s.k))
      for (layout const& lb : layouts(s.k, s.n))
        for (int mode : {0, 1, -1}) check(s.m, s.n, s.k, la, lb, mode, 5);
}

TEST_CASE("gemm_f32: k == 0 writes zeros (mode 0) or leaves C (modes 1, -1)", "[dot][gemm]") {
  std::vector<float> c(6, 5.0f);
  float const dummy = 0.0f;
  matrix_view const v{&dummy, 0, 0, 1};
  pallas::detail::gemm_f32(c.data(), 3, v, v, 2, 3, 0, 1);
  for (float x : c) REQUIRE(x == 5.0f);
  pallas::detail::gemm_f32(c.data(), 3, v, v, 2, 3, 0, 0);
  for (float x : c) REQUIRE(x == 0.0f);
}
