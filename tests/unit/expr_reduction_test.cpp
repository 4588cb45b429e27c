// Reductions against naive loops written here. Tolerances: integer and bool results exact;
// f32 sums |got - ref| <= 1e-5 * sum(|x|) (accumulation order differs); bf16 sums within
// one bf16 ulp of the double sum (they accumulate in float and round once); max, min,
// argmax exact.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>

// Only the block-compute headers: cheaper to compile than pallas.hpp.
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/reduction.hpp>
#include <pallas/expr/shape_ops.hpp>

namespace pl = pallas;

namespace {

template <class T, pl::index_t... D>
pl::block<T, pl::shape<D...>> random_block(unsigned seed) {
  pl::block<T, pl::shape<D...>> b;
  std::mt19937 gen(seed);
  for (auto& v : b) {
    if constexpr (std::is_same_v<T, bool>)
      v = (gen() & 1u) != 0;
    else if constexpr (std::is_integral_v<T>)
      v = static_cast<T>(std::uniform_int_distribution<long long>(std::numeric_limits<T>::min(),
                                                                   std::numeric_limits<T>::max())(gen));
    else
      v = T(std::uniform_real_distribution<float>(-4.0f, 4.0f)(gen));
  }
  return b;
}

}  // namespace

TEST_CASE("sum over each axis, all axes, several axes, keepdims", "[expr][reduction]") {
  auto x = random_block<float, 3, 5, 7>(1);
  double total = 0, mag = 0;
  for (float v : x) total += v, mag += std::abs(v);
  auto all = pl::sum(x);
  STATIC_REQUIRE(std::is_same_v<decltype(all), pl::block<float, pl::shape<>>>);
  CHECK(std::abs(all.item() - total) <= 1e-5 * mag);

  auto s1 = pl::sum(x, pl::axis<1>);
  STATIC_REQUIRE(std::is_same_v<decltype(s1)::shape_type, pl::shape<3, 7>>);
  auto s1k = pl::sum(x, pl::axis<1>, pl::keepdims);
  STATIC_REQUIRE(std::is_same_v<decltype(s1k)::shape_type, pl::shape<3, 1, 7>>);
  auto sl = pl::sum(x, pl::axis<-1>);
  STATIC_REQUIRE(std::is_same_v<decltype(sl)::shape_type, pl::shape<3, 5>>);
  auto s02 = pl::sum(x, pl::axis<0, 2>);
  STATIC_REQUIRE(std::is_same_v<decltype(s02)::shape_type, pl::shape<5>>);
  auto allk = pl::sum(x, pl::keepdims);
  STATIC_REQUIRE(std::is_same_v<decltype(allk)::shape_type, pl::shape<1, 1, 1>>);
  CHECK(std::abs(allk(0, 0, 0) - total) <= 1e-5 * mag);
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 7; ++c) {
      double s = 0, m = 0;
      for (int b = 0; b < 5; ++b) s += x(a, b, c), m += std::abs(x(a, b, c));
      CHECK(std::abs(s1(a, c) - s) <= 1e-5 * m);
      CHECK(s1k(a, 0, c) == s1(a, c));
    }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 5; ++b) {
      double s = 0, m = 0;
      for (int c = 0; c < 7; ++c) s += x(a, b, c), m += std::abs(x(a, b, c));
      CHECK(std::abs(sl(a, b) - s) <= 1e-5 * m);
    }
  for (int b = 0; b < 5; ++b) {
    double s = 0, m = 0;
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 7; ++c) s += x(a, b, c), m += std::abs(x(a, b, c));
    CHECK(std::abs(s02(b) - s) <= 1e-5 * m);
  }
}

TEST_CASE("a long row sum (partial sums) and softmax", "[expr][reduction]") {
  auto x = random_block<float, 8, 256>(2);
  auto m = pl::max(x, pl::axis<1>, pl::keepdims);
  auto e = pl::eval(pl::exp(x - m));
  auto p = pl::eval(e / pl::sum(e, pl::axis<1>, pl::keepdims));
  for (int i = 0; i < 8; ++i) {
    float mx = -1e30f;
    for (int j = 0; j < 256; ++j) mx = std::max(mx, x(i, j));
    CHECK(m(i, 0) == mx);
    double z = 0;
    for (int j = 0; j < 256; ++j) z += std::exp(double(x(i, j)) - mx);
    double row = 0;
    for (int j = 0; j < 256; ++j) {
      double const want = std::exp(double(x(i, j)) - mx) / z;
      CHECK(std::abs(p(i, j) - want) <= 1e-6 + 1e-5 * want);
      row += p(i, j);
    }
    CHECK(std::abs(row - 1.0) <= 1e-5);
  }
}

TEMPLATE_TEST_CASE("integer sums and products wrap, with jnp's result dtypes",
                   "[expr][reduction]", std::int8_t, std::int16_t, std::int32_t, std::uint32_t, bool) {
  using T = TestType;
  using R = std::conditional_t<std::is_same_v<T, std::uint32_t>, std::uint32_t, std::int32_t>;
  auto x = random_block<T, 4, 9>(3);
  auto s = pl::sum(x, pl::axis<1>);
  auto p = pl::prod(x, pl::axis<0>);
  STATIC_REQUIRE(std::is_same_v<typename decltype(s)::value_type, R>);
  STATIC_REQUIRE(std::is_same_v<typename decltype(p)::value_type, R>);
  for (int i = 0; i < 4; ++i) {
    unsigned long long acc = 0;
    for (int j = 0; j < 9; ++j) acc += static_cast<unsigned long long>(static_cast<long long>(x(i, j)));
    CHECK(s(i) == static_cast<R>(static_cast<std::uint32_t>(acc)));
  }
  for (int j = 0; j < 9; ++j) {
    unsigned long long acc = 1;
    for (int i = 0; i < 4; ++i) acc *= static_cast<unsigned long long>(static_cast<long long>(x(i, j)));
    CHECK(p(j) == static_cast<R>(static_cast<std::uint32_t>(acc)));
  }
}

TEMPLATE_TEST_CASE("max, min, argmax, argmin keep exact values", "[expr][reduction]", float,
                   pl::bfloat16, std::int8_t, std::int32_t, std::uint32_t) {
  using T = TestType;
  auto x = random_block<T, 5, 6>(4);
  x(2, 3) = x(2, 1);  // a tie: the first index wins
  auto mx = pl::max(x, pl::axis<1>);
  auto mn = pl::min(x, pl::axis<0>);
  auto am = pl::argmax(x, pl::axis<1>);
  auto an = pl::argmin(x, pl::axis<0>, pl::keepdims);
  auto af = pl::argmax(x);
  STATIC_REQUIRE(std::is_same_v<typename decltype(mx)::value_type, T>);
  STATIC_REQUIRE(std::is_same_v<decltype(am), pl::block<std::int32_t, pl::shape<5>>>);
  STATIC_REQUIRE(std::is_same_v<decltype(an), pl::block<std::int32_t, pl::shape<1, 6>>>);
  STATIC_REQUIRE(std::is_same_v<decltype(af), pl::block<std::int32_t, pl::shape<>>>);
  auto f = [](T v) { return static_cast<double>(v); };
  int best_flat = 0;
  for (int i = 0; i < 5; ++i) {
    int best = 0;
    for (int j = 1; j < 6; ++j)
      if (f(x(i, j)) > f(x(i, best))) best = j;
    CHECK(am(i) == best);
    CHECK(f(mx(i)) == f(x(i, best)));
    for (int j = 0; j < 6; ++j)
      if (f(x(i, j)) > f(x(best_flat / 6, best_flat % 6))) best_flat = i * 6 + j;
  }
  CHECK(af.item() == best_flat);
  for (int j = 0; j < 6; ++j) {
    int best = 0;
    for (int i = 1; i < 5; ++i)
      if (f(x(i, j)) < f(x(best, j))) best = i;
    CHECK(an(0, j) == best);
    CHECK(f(mn(j)) == f(x(best, j)));
  }
}

TEST_CASE("NaN propagates through max and min, argmax picks the first NaN", "[expr][reduction]") {
  pl::block<float, pl::shape<2, 4>> x = pl::iota<float, pl::shape<2, 4>>(1);
  x(1, 2) = std::numeric_limits<float>::quiet_NaN();
  x(1, 3) = std::numeric_limits<float>::quiet_NaN();
  auto mx = pl::max(x, pl::axis<1>);
  auto mn = pl::min(x, pl::axis<1>);
  CHECK(mx(0) == 3.0f);
  CHECK(std::isnan(mx(1)));
  CHECK(std::isnan(mn(1)));
  CHECK(pl::argmax(x, pl::axis<1>)(1) == 2);
  CHECK(pl::argmin(x, pl::axis<1>)(1) == 2);
  CHECK(std::isnan(pl::sum(x).item()));
  pl::block<float, pl::shape<3>> inf;
  inf(0) = 1, inf(1) = std::numeric_limits<float>::infinity(), inf(2) = -inf(1);
  CHECK(std::isnan(pl::sum(inf).item()));
  CHECK(pl::max(inf).item() == inf(1));
}

TEST_CASE("max and min along long rows (the lane-parallel path) match a serial loop, NaN anywhere", "[expr][reduction]") {
  // 100 = 6 * 16 + 4: NaNs in the first lane, a middle lane, the last whole lane and the
  // remainder; one row of infinities; one row with no NaN.
  constexpr pl::index_t cols = 100;
  auto x = random_block<float, 6, cols>(11);
  float const nan = std::numeric_limits<float>::quiet_NaN();
  float const inf = std::numeric_limits<float>::infinity();
  x(0, 0) = nan;
  x(1, 37) = nan;
  x(2, 95) = nan;
  x(3, 98) = nan;
  for (pl::index_t j = 0; j < cols; ++j) x(4, j) = j % 2 ? inf : -inf;
  auto const mx = pl::max(x, pl::axis<1>);
  auto const mn = pl::min(x, pl::axis<1>, pl::keepdims);
  for (pl::index_t i = 0; i < 6; ++i) {
    bool has_nan = false;
    float hi = -inf, lo = inf;
    for (pl::index_t j = 0; j < cols; ++j) {
      has_nan |= std::isnan(x(i, j));
      if (!std::isnan(x(i, j))) hi = std::max(hi, x(i, j)), lo = std::min(lo, x(i, j));
    }
    CAPTURE(i);
    CHECK(std::isnan(mx(i)) == has_nan);
    CHECK(std::isnan(mn(i, 0)) == has_nan);
    if (!has_nan) {
      CHECK(mx(i) == hi);
      CHECK(mn(i, 0) == lo);
    }
  }
  CHECK(mx(4) == inf);
  CHECK(mn(4, 0) == -inf);
}

TEST_CASE("bf16 sums accumulate in float and round once, mean, any, all", "[expr][reduction]") {
  auto x = random_block<pl::bfloat16, 4, 64>(5);
  auto s = pl::sum(x, pl::axis<1>);
  STATIC_REQUIRE(std::is_same_v<decltype(s)::value_type, pl::bfloat16>);
  for (int i = 0; i < 4; ++i) {
    double ref = 0, mag = 0;
    for (int j = 0; j < 64; ++j) ref += float(x(i, j)), mag += std::abs(float(x(i, j)));
    CHECK(std::abs(float(s(i)) - ref) <= std::abs(ref) / 128 + 1e-6 * mag);
  }
  pl::block<std::int32_t, pl::shape<2, 3>> n = pl::iota<std::int32_t, pl::shape<2, 3>>(1);
  auto m = pl::mean(n, pl::axis<1>);
  STATIC_REQUIRE(std::is_same_v<decltype(m)::value_type, float>);
  CHECK(m(0) == 1.0f);
  auto b = pl::eval(n > 0);
  auto any = pl::any(b, pl::axis<1>);
  auto all = pl::all(b, pl::axis<0>);
  CHECK(any(0));
  CHECK(!all(0));
  CHECK(all(2));
  CHECK(pl::any(n > 1).item());
  CHECK(!pl::all(n > 1).item());
}

TEST_CASE("reductions of lazy expressions and views", "[expr][reduction]") {
  float mem[24];
  for (int i = 0; i < 24; ++i) mem[i] = float(i);
  pl::Ref<float, pl::shape<4, 6>, pl::memory_space::vmem> r(mem, pl::shape<4, 6>{});
  // columns 1..4 of the transposed block, squared
  auto t = pl::slice(pl::transpose(r[pl::ellipsis]), pl::ds<4>(1), pl::full_extent);
  auto s = pl::sum(t * t, pl::axis<1>);
  for (int c = 1; c < 5; ++c) {
    float want = 0;
    for (int i = 0; i < 4; ++i) want += mem[i * 6 + c] * mem[i * 6 + c];
    CHECK(s(c - 1) == want);
  }
}
