// pl::dot / pl::dot_general against naive triple loops written here, accumulated in double
// (floats) or wrapping 64-bit (integers). Tolerances: f32 results |got - ref| <= 1e-5 *
// sum_k |a_ik * b_kj| (+1e-6); bf16/f16 operands are exact in f32, so the same bound holds
// for preferred_element_type=f32; bf16 results add one bf16 ulp (2^-8 relative); integer
// results are exact and wrap.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>

// Only the block-compute headers: cheaper to compile than pallas.hpp.
#include <pallas/block_view.hpp>
#include <pallas/dot.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/shape_ops.hpp>

namespace pl = pallas;
using pl::index_t;

namespace {

template <class T, index_t... D>
pl::block<T, pl::shape<D...>> random_block(unsigned seed) {
  pl::block<T, pl::shape<D...>> b;
  std::mt19937 gen(seed);
  for (auto& v : b) {
    if constexpr (std::is_integral_v<T>)
      v = static_cast<T>(std::uniform_int_distribution<int>(-100, 100)(gen));
    else
      v = T(std::uniform_real_distribution<float>(-1.0f, 1.0f)(gen));
  }
  return b;
}

/// The naive product of (M, K) and (K, N) given as element functions, with the error
/// bound sum |a b|.
template <class A, class B>
void naive(index_t m, index_t n, index_t k, A a, B b, double* out, double* bound) {
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      double s = 0, mag = 0;
      for (index_t p = 0; p < k; ++p) {
        double const t = double(a(i, p)) * double(b(p, j));
        s += t;
        mag += std::abs(t);
      }
      out[i * n + j] = s;
      bound[i * n + j] = mag;
    }
}

template <index_t M, index_t N, index_t K, class T, class Out>
void check_product(Out const& got, pl::block<T, pl::shape<M, K>> const& a,
                   pl::block<T, pl::shape<K, N>> const& b, double rel = 1e-5) {
  static double ref[M * N], bound[M * N];
  naive(M, N, K, [&](index_t i, index_t p) { return static_cast<double>(static_cast<float>(a(i, p))); },
        [&](index_t p, index_t j) { return static_cast<double>(static_cast<float>(b(p, j))); }, ref, bound);
  for (index_t i = 0; i < M; ++i)
    for (index_t j = 0; j < N; ++j) {
      INFO(i << ", " << j);
      CHECK(std::abs(double(static_cast<float>(got(i, j))) - ref[i * N + j]) <=
            rel * bound[i * N + j] + 1e-6);
    }
}

}  // namespace

TEST_CASE("f32 dot at kernel block sizes", "[dot]") {
  auto a = random_block<float, 128, 128>(1);
  auto b = random_block<float, 128, 128>(2);
  auto c = pl::dot(a, b).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(c), pl::block<float, pl::shape<128, 128>>>);
  check_product<128, 128, 128>(c, a, b);
  auto x = random_block<float, 24, 40>(3);
  auto y = random_block<float, 40, 8>(4);
  check_product<24, 8, 40>(pl::dot(x, y).eval(), x, y);
  check_product<24, 8, 40>(pl::matmul(x, y).eval(), x, y);
}

TEST_CASE("acc[...] += dot(x, y) accumulates in place, = and -= too", "[dot]") {
  auto x = random_block<float, 16, 32>(5);
  auto y = random_block<float, 32, 24>(6);
  auto acc0 = random_block<float, 16, 24>(7);
  auto acc = acc0;
  auto view = acc[pl::ellipsis];
  view += pl::dot(x[pl::ellipsis], y[pl::ellipsis]);
  auto prod = pl::dot(x, y).eval();
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 24; ++j) CHECK(acc(i, j) == Approx(acc0(i, j) + prod(i, j)).margin(1e-5));
  view -= pl::dot(x, y);
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 24; ++j) CHECK(acc(i, j) == Approx(acc0(i, j)).margin(1e-5));
  view = pl::dot(x, y);
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 24; ++j) CHECK(acc(i, j) == prod(i, j));
  view *= pl::dot(x, y);  // other assignments go through a temporary
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 24; ++j) CHECK(acc(i, j) == Approx(prod(i, j) * prod(i, j)).margin(1e-5));
  // into a window of a larger buffer (row stride 40) and into a column-major view
  pl::block<float, pl::shape<20, 40>> big;
  big.at(pl::ds<16>(2), pl::ds<24>(8))[pl::ellipsis] = pl::dot(x, y);
  pl::block<float, pl::shape<24, 16>> t;
  pl::Ref<float, pl::shape<16, 24>, pl::memory_space::vmem, pl::strides<1, 16>> tt(
      t.data(), pl::shape<16, 24>{}, pl::strides<1, 16>{});
  tt[pl::ellipsis] = pl::dot(x, y);
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 24; ++j) {
      CHECK(big(2 + i, 8 + j) == prod(i, j));
      CHECK(t(j, i) == Approx(prod(i, j)).margin(1e-5));
    }
  CHECK(big(0, 0) == 0.0f);
  CHECK(big(18, 8) == 0.0f);
}

TEST_CASE("transposed operands: trans_a, trans_b, transposed views, dot_general", "[dot]") {
  auto a = random_block<float, 12, 20>(8);   // (M, K)
  auto b = random_block<float, 20, 9>(9);    // (K, N)
  auto at = pl::transpose(a).eval();         // (K, M)
  auto bt = pl::transpose(b).eval();         // (N, K)
  auto want = pl::dot(a, b).eval();
  auto close = [&](auto const& got) {
    for (index_t i = 0; i < 12; ++i)
      for (index_t j = 0; j < 9; ++j) CHECK(got(i, j) == Approx(want(i, j)).margin(1e-5));
  };
  close(pl::dot(at, b, pl::trans_a).eval());
  close(pl::dot(a, bt, pl::trans_b).eval());
  close(pl::dot(at, bt, pl::trans_a, pl::trans_b).eval());
  close(pl::dot(pl::transpose(at), pl::transpose(bt)).eval());
  close(pl::dot_general(a, bt, pl::contracting_dims<1, 1>).eval());
  close(pl::dot_general(at, b, pl::contracting_dims<0, 0>).eval());
  close(pl::dot_general(at, bt, pl::contracting_dims<-2, -1>).eval());
  check_product<12, 9, 20>(want, a, b);
}

TEST_CASE("vectors: matrix-vector, vector-matrix, vector-vector", "[dot]") {
  auto m = random_block<float, 6, 5>(10);
  auto v = random_block<float, 5>(11);
  auto w = random_block<float, 6>(12);
  auto mv = pl::dot(m, v).eval();
  auto wm = pl::dot(w, m).eval();
  auto vv = pl::dot(v, v).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(mv)::shape_type, pl::shape<6>>);
  STATIC_REQUIRE(std::is_same_v<decltype(wm)::shape_type, pl::shape<5>>);
  STATIC_REQUIRE(std::is_same_v<decltype(vv)::shape_type, pl::shape<>>);
  double s = 0;
  for (int k = 0; k < 5; ++k) s += double(v(k)) * v(k);
  CHECK(vv.item() == Approx(s).margin(1e-5));
  for (int i = 0; i < 6; ++i) {
    double r = 0;
    for (int k = 0; k < 5; ++k) r += double(m(i, k)) * v(k);
    CHECK(mv(i) == Approx(r).margin(1e-5));
  }
  for (int j = 0; j < 5; ++j) {
    double r = 0;
    for (int i = 0; i < 6; ++i) r += double(w(i)) * m(i, j);
    CHECK(wm(j) == Approx(r).margin(1e-5));
  }
}

TEST_CASE("batched dot_general (einsum bqd,bkd->bqk)", "[dot]") {
  auto q = random_block<float, 3, 8, 16>(13);
  auto k = random_block<float, 3, 10, 16>(14);
  auto s = pl::dot_general(q, k, pl::contracting_dims<2, 2>, pl::batch_dims<0, 0>).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(s)::shape_type, pl::shape<3, 8, 10>>);
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 10; ++j) {
        double r = 0;
        for (int d = 0; d < 16; ++d) r += double(q(b, i, d)) * k(b, j, d);
        CHECK(s(b, i, j) == Approx(r).margin(1e-5));
      }
  // the batch dimension elsewhere: (d, b, k) and (b, d, q) style
  auto kt = pl::transpose<2, 0, 1>(k).eval();  // (16, 3, 10)
  auto s2 = pl::dot_general(q, kt, pl::contracting_dims<2, 0>, pl::batch_dims<0, 1>).eval();
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 10; ++j) CHECK(s2(b, i, j) == Approx(s(b, i, j)).margin(1e-5));
}

TEST_CASE("bf16 and f16 operands: preferred f32, or rounded to the operand dtype", "[dot]") {
  auto a = random_block<pl::bfloat16, 32, 64>(15);
  auto b = random_block<pl::bfloat16, 64, 16>(16);
  auto f = pl::dot(a, b, pl::preferred_element_type<float>).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(f)::value_type, float>);
  check_product<32, 16, 64>(f, a, b);
  auto h = pl::dot(a, b).eval();  // jnp: bf16 x bf16 -> bf16 (accumulated in f32, rounded once)
  STATIC_REQUIRE(std::is_same_v<decltype(h)::value_type, pl::bfloat16>);
  for (index_t i = 0; i < 32; ++i)
    for (index_t j = 0; j < 16; ++j) CHECK(float(h(i, j)) == float(pl::bfloat16(f(i, j))));
  // accumulate bf16 products into an f32 scratch accumulator, as the Pallas matmul does
  pl::block<float, pl::shape<32, 16>> acc;
  acc[pl::ellipsis] += pl::dot(a[pl::ellipsis], b[pl::ellipsis], pl::preferred_element_type<float>);
  acc[pl::ellipsis] += pl::dot(a[pl::ellipsis], b[pl::ellipsis], pl::preferred_element_type<float>);
  for (index_t i = 0; i < 32; ++i)
    for (index_t j = 0; j < 16; ++j) CHECK(acc(i, j) == Approx(2 * f(i, j)).margin(1e-5));
  auto x = random_block<pl::float16, 8, 24>(17);
  auto y = random_block<pl::float16, 24, 8>(18);
  auto z = pl::dot(x, y, pl::preferred_element_type<float>).eval();
  check_product<8, 8, 24>(z, x, y);
}

TEST_CASE("int8 x int8 -> int32 is exact, integer products wrap", "[dot]") {
  auto a = random_block<std::int8_t, 16, 48>(19);
  auto b = random_block<std::int8_t, 48, 12>(20);
  auto c = pl::dot(a, b, pl::preferred_element_type<std::int32_t>).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(c)::value_type, std::int32_t>);
  auto c8 = pl::dot(a, b).eval();  // jnp: int8 result, wrapped
  STATIC_REQUIRE(std::is_same_v<decltype(c8)::value_type, std::int8_t>);
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 12; ++j) {
      long long s = 0;
      for (index_t p = 0; p < 48; ++p) s += static_cast<long long>(a(i, p)) * b(p, j);
      CHECK(c(i, j) == s);
      CHECK(c8(i, j) == static_cast<std::int8_t>(static_cast<std::uint8_t>(s)));
    }
  pl::block<std::int32_t, pl::shape<1, 2>> big = pl::full<std::int32_t, pl::shape<1, 2>>(65536);
  pl::block<std::int32_t, pl::shape<2, 1>> big2 = pl::full<std::int32_t, pl::shape<2, 1>>(65536);
  auto w = pl::dot(big, big2).eval();  // 2 * 2^32 wraps to 0
  CHECK(w(0, 0) == 0);
  // a float preferred type on integer operands
  auto fl = pl::dot(a, b, pl::preferred_element_type<float>).eval();
  CHECK(fl(3, 4) == float(c(3, 4)));
}

// Small integer products run on the f32 GEMM where every partial sum is exact in f32
// (|sum| <= 2^24), in chunks of that length past it (int8), and on the integer loop where
// the chunks would be short: both sides of each bound, at the values that reach it, with
// =, += and -=, checked against a loop in 64-bit integers.
template <class TA, class TB, index_t M, index_t K, index_t N>
void check_integer_dot(TA fill_a, TB fill_b) {
  INFO(sizeof(TA) << "-byte x " << sizeof(TB) << "-byte integers, k = " << K);
  // Mostly the extreme value (so sums reach the bound), with a varied element in each row
  // and column so that a transposed or misplaced operand shows.
  pl::block<TA, pl::shape<M, K>> a = pl::full<TA, pl::shape<M, K>>(fill_a);
  pl::block<TB, pl::shape<K, N>> b = pl::full<TB, pl::shape<K, N>>(fill_b);
  for (index_t i = 0; i < M; ++i) a(i, (i * 7) % K) = static_cast<TA>(i % 5);
  for (index_t j = 0; j < N; ++j) b((j * 3) % K, j) = static_cast<TB>(j % 4);
  auto ref = [&](index_t i, index_t j) {
    long long s = 0;
    for (index_t p = 0; p < K; ++p) s += static_cast<long long>(a(i, p)) * static_cast<long long>(b(p, j));
    return s;
  };
  auto c = pl::dot(a, b, pl::preferred_element_type<std::int32_t>).eval();
  pl::block<std::int32_t, pl::shape<M, N>> acc = pl::full<std::int32_t, pl::shape<M, N>>(7);
  acc[pl::ellipsis] += pl::dot(a, b, pl::preferred_element_type<std::int32_t>);
  pl::block<std::int32_t, pl::shape<M, N>> dec = pl::full<std::int32_t, pl::shape<M, N>>(7);
  dec[pl::ellipsis] -= pl::dot(a, b, pl::preferred_element_type<std::int32_t>);
  auto narrow = pl::dot(a, b).eval();  // jnp: the promoted operand type, wrapped
  using narrow_t = typename decltype(narrow)::value_type;
  long long worst = 0;
  for (index_t i = 0; i < M; ++i)
    for (index_t j = 0; j < N; ++j) {
      long long const s = ref(i, j);
      worst = std::max(worst, s < 0 ? -s : s);
      REQUIRE(c(i, j) == s);
      REQUIRE(acc(i, j) == 7 + s);
      REQUIRE(dec(i, j) == 7 - s);
      REQUIRE(narrow(i, j) == static_cast<narrow_t>(static_cast<std::make_unsigned_t<narrow_t>>(s)));
    }
  INFO("largest |sum| " << worst);
  CHECK(worst > 0);
}

TEST_CASE("integer products on both sides of the f32-exact bound", "[dot]") {
  // int8 x int8: 128 * 128 * 1024 = 2^24 (one GEMM, sums of -128 * -128 reach it), then
  // chunks of 1024.
  check_integer_dot<std::int8_t, std::int8_t, 3, 1024, 5>(-128, -128);
  check_integer_dot<std::int8_t, std::int8_t, 3, 1025, 5>(-128, -128);
  check_integer_dot<std::int8_t, std::int8_t, 4, 1024, 2>(-128, 127);
  check_integer_dot<std::int8_t, std::int8_t, 3, 1101, 2>(-127, 127);  // odd sums past 2^24: two chunks
  check_integer_dot<std::int8_t, std::int8_t, 2, 2500, 3>(-128, -128);  // three chunks, the last short
  // int8 x int16: 128 * 32768 * 4 = 2^24, then the loop (chunks of 4 are too short);
  // int16 x int16: always the loop.
  check_integer_dot<std::int8_t, std::int16_t, 3, 4, 2>(-128, -32768);
  check_integer_dot<std::int8_t, std::int16_t, 3, 5, 2>(-128, -32768);
  check_integer_dot<std::int16_t, std::int16_t, 2, 3, 2>(-32767, 301);  // |sum| 2^24.4: not exact in f32
  // size-1 dimensions in every position
  check_integer_dot<std::int8_t, std::int8_t, 1, 64, 9>(-128, 127);
  check_integer_dot<std::int8_t, std::int8_t, 9, 64, 1>(127, -128);
  check_integer_dot<std::int8_t, std::int8_t, 6, 1, 7>(-128, -128);
}

TEST_CASE("dots that read their destination, and dots inside expressions", "[dot]") {
  auto m0 = random_block<float, 8, 8>(21);
  auto m = m0;
  auto want = pl::dot(m0, m0).eval();
  m[pl::ellipsis] = pl::dot(m[pl::ellipsis], m[pl::ellipsis]);
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 8; ++j) CHECK(m(i, j) == Approx(want(i, j)).margin(1e-5));
  auto y = random_block<float, 8, 8>(22);
  auto acc = m0;
  acc[pl::ellipsis] += pl::dot(acc[pl::ellipsis], y);
  auto add = pl::dot(m0, y).eval();
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 8; ++j) CHECK(acc(i, j) == Approx(m0(i, j) + add(i, j)).margin(1e-5));
  // a dot inside an expression is computed first; expressions as operands
  auto e = (pl::dot(m0 * 2, pl::transpose(y)) + 1).eval();
  auto ref = pl::dot(m0, y, pl::trans_b).eval();
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 8; ++j) CHECK(e(i, j) == Approx(2 * ref(i, j) + 1).margin(1e-5));
  // a relu(x @ w + b) layer
  auto bias = random_block<float, 1, 8>(23);
  auto layer = pl::maximum(pl::dot(m0, y) + bias, 0).eval();
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 8; ++j) CHECK(layer(i, j) == Approx(std::max(add(i, j) + bias(0, j), 0.0f)).margin(1e-5));
}
