// pl::exp's float e^x (expr/exp_f32.hpp) against std::exp in long double: within 1 ulp
// (1.01: with fused multiply-adds, which -march=native lets the compiler use, one float in
// 2^31 is 1.002 ulp off) over a stride through every float from -110 to 90 and through the
// floats whose e^x is subnormal, with both ways of rounding n; its special values; and
// pl::exp on a block computes the same function.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/exp_f32.hpp>

namespace pl = pallas;

namespace {

/// |got - e^x| in ulps of the float nearest e^x (the subnormal ulp below the normal range).
double ulps_from_exp(float got, float x) {
  long double const exact = std::exp(static_cast<long double>(x));
  float const nearest = static_cast<float>(exact);
  if (std::isinf(nearest)) return std::isinf(got) && got > 0 ? 0.0 : 1e9;
  float const above = std::nextafter(nearest, std::numeric_limits<float>::infinity());
  double const ulp = static_cast<double>(above) - static_cast<double>(nearest);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact)) / ulp;
}

/// Floats in order: the key of -inf is below the key of every other float, and so on.
std::uint32_t key_of(float x) {
  auto const bits = std::bit_cast<std::uint32_t>(x);
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}
float float_of(std::uint32_t key) {
  return std::bit_cast<float>((key & 0x80000000u) != 0 ? key & 0x7FFFFFFFu : ~key);
}

/// Every stride-th float from lo to hi (and hi).
template <bool Rint>
void sweep(std::uint32_t stride, float lo, float hi) {
  double worst = 0;
  float worst_x = 0;
  long checked = 0;
  std::uint32_t const last = key_of(hi);
  for (std::uint64_t key = key_of(lo); key <= last; key += stride) {
    float const x = key + stride > last ? hi : float_of(static_cast<std::uint32_t>(key));
    double const u = ulps_from_exp(pl::detail::exp_f32_rounding<Rint>(x), x);
    ++checked;
    if (u > worst) {
      worst = u;
      worst_x = x;
    }
  }
  INFO("rint " << Rint << ", [" << lo << ", " << hi << "], stride " << stride << ": " << checked
               << " floats, worst " << worst << " ulp at x = " << worst_x);
  CHECK(checked > 1000);
  CHECK(worst < 1.01);
}

template <bool Rint>
void specials() {
  auto const e = [](float x) { return pl::detail::exp_f32_rounding<Rint>(x); };
  float const inf = std::numeric_limits<float>::infinity();
  CHECK(std::isnan(e(std::numeric_limits<float>::quiet_NaN())));
  CHECK(std::isnan(e(-std::numeric_limits<float>::quiet_NaN())));
  CHECK(e(inf) == inf);
  CHECK(e(-inf) == 0.0f);
  CHECK(e(0.0f) == 1.0f);
  CHECK(e(-0.0f) == 1.0f);
  CHECK(e(89.0f) == inf);
  CHECK(e(88.73f) == inf);                                            // e^88.73 > FLT_MAX
  CHECK(e(88.72f) == Approx(3.39321e38f).epsilon(1e-5));                // the largest results stay finite
  CHECK(e(-104.0f) == 0.0f);                                          // below half the smallest subnormal
  CHECK(e(-103.9f) == std::numeric_limits<float>::denorm_min());       // e^-103.9 rounds up to it
  CHECK(e(std::numeric_limits<float>::max()) == inf);
  CHECK(e(std::numeric_limits<float>::lowest()) == 0.0f);
  CHECK(e(1.0f) == Approx(2.718281828f).epsilon(1e-7));
}

}  // namespace

TEST_CASE("exp_f32 is within 1 ulp of e^x, rounding n either way", "[expr][exp]") {
  sweep<true>(4099, -110.0f, 90.0f);
  sweep<false>(4099, -110.0f, 90.0f);
  // every float whose e^x is subnormal or near it, and every tiny |x|
  sweep<true>(7, -104.0f, -86.0f);
  sweep<false>(7, -104.0f, -86.0f);
  sweep<false>(4093, -1e-3f, 1e-3f);
}

TEST_CASE("exp_f32: NaN, infinities, overflow and underflow", "[expr][exp]") {
  specials<true>();
  specials<false>();
}

TEST_CASE("pl::exp and pl::logistic on a block compute block_exp", "[expr][exp]") {
  pl::block<float, pl::shape<4, 64>> x;
  for (pl::index_t i = 0; i < x.size(); ++i) x.data()[i] = -90.0f + 0.7f * static_cast<float>(i);
  pl::block<float, pl::shape<4, 64>> const e = pl::exp(x);
  pl::block<float, pl::shape<4, 64>> const s = pl::logistic(x);
  for (pl::index_t i = 0; i < x.size(); ++i) {
    float const v = x.data()[i];
    INFO("x = " << v);
    CHECK(e.data()[i] == pl::detail::block_exp(v));
    CHECK(ulps_from_exp(e.data()[i], v) < 1.01);
    CHECK(s.data()[i] == 1.0f / (1.0f + pl::detail::block_exp(-v)));
  }
}
