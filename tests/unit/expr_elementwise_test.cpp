// Elementwise block expressions against scalar references written here (naive loops,
// double-precision math, explicit wrap-around). Tolerances:
//   exact: + - * / % comparisons bitwise shifts min max abs neg sign floor ceil round
//          trunc where (every dtype; bf16/f16 references are the double result rounded once)
//   transcendental: |got - ref| <= rtol * |ref| + atol against the double result, with
//          f32 rtol 4e-6; bf16 rtol 2^-7 (one ulp); f16 rtol 2^-10 (one ulp); atol the
//          dtype's smallest subnormal
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <type_traits>

// Only the block-compute headers: cheaper to compile than pallas.hpp.
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/elementwise.hpp>

namespace pl = pallas;

namespace {

using pl::index_t;
using vmem = std::integral_constant<pl::memory_space, pl::memory_space::vmem>;

/// A VMEM buffer of shape (R, C) on the heap, and a ref to it.
template <class T, index_t R, index_t C>
struct buf {
  using S = pl::shape<R, C>;
  static constexpr index_t n = R * C;
  std::unique_ptr<T[]> mem{new T[n]{}};
  pl::Ref<T, S, pl::memory_space::vmem> ref() const { return {mem.get(), S{}}; }
  auto view() const { return ref()[pl::ellipsis]; }
  T& operator[](index_t i) { return mem[i]; }
  T operator[](index_t i) const { return mem[i]; }
};

float const nan_f = std::numeric_limits<float>::quiet_NaN();
float const inf_f = std::numeric_limits<float>::infinity();

/// Values that exercise a dtype: specials first, then random ones.
template <class T>
void fill(T* p, index_t n, unsigned seed, bool allow_zero = true) {
  std::mt19937 gen(seed);
  if constexpr (std::is_same_v<T, bool>) {
    for (index_t i = 0; i < n; ++i) p[i] = (gen() & 1u) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    T const specials[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0),
                          T(1), T(-1), T(7), T(-7), T(3)};
    std::uniform_int_distribution<long long> u(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    for (index_t i = 0; i < n; ++i) {
      T v = i < 8 ? specials[(i + seed) % 8] : (i % 3 ? T(u(gen)) : T(static_cast<int>(gen() % 21) - 10));
      if (!allow_zero && v == 0) v = 1;
      p[i] = v;
    }
  } else {
    float const specials[] = {nan_f, inf_f, -inf_f, 0.0f, -0.0f, 1.0f, -2.5f, 1e-3f};
    std::uniform_real_distribution<float> u(-10.0f, 10.0f);
    for (index_t i = 0; i < n; ++i) {
      float v = i < 8 ? specials[(i + seed) % 8] : u(gen);
      if (!allow_zero && v == 0.0f) v = 0.5f;
      p[i] = T(v);
    }
  }
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (pl::Dtype<T> && !std::is_integral_v<T>) {
    float const x = static_cast<float>(a), y = static_cast<float>(b);
    if (x != x || y != y) return x != x && y != y;
    return x == y;  // +0 == -0: the sign of zero is checked by hand where it matters
  } else {
    return a == b;
  }
}

/// The double result rounded once to T (floats), as jnp computes each op.
template <class T>
T round_to(double d) {
  if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(d);
  else
    return T(d);
}

template <class T>
double to_double(T v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<double>(v);
  else
    return static_cast<double>(static_cast<float>(v));
}

/// Wraps an integer computed exactly in 64 bits to T, as jnp's int32 arithmetic does.
template <class T>
T wrap64(long long v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<unsigned long long>(v)));
}

template <class T>
double rtol() {
  if constexpr (std::is_same_v<T, pl::bfloat16>)
    return 1.0 / 128;
  else if constexpr (std::is_same_v<T, pl::float16>)
    return 1.0 / 1024;
  else
    return 4e-6;
}

template <class T>
bool close_to(T got, double ref) {
  double const g = to_double(got);
  if (ref != ref) return g != g;
  if (std::isinf(ref)) return g == ref;
  if (std::isinf(g)) {  // the reference may overflow only a little later than the dtype
    return std::abs(ref) > 0.99 * to_double(std::numeric_limits<T>::max());
  }
  // absolute part: the dtype's smallest subnormal (results that round into subnormals)
  return std::abs(g - ref) <= rtol<T>() * std::abs(ref) + to_double(std::numeric_limits<T>::denorm_min());
}

constexpr index_t R = 4, C = 40;

/// o = f(x, y) elementwise against ref(x[i], y[i]) for every element.
template <class T, class U = T, class F, class Ref>
void check_binary(F f, Ref ref, bool nonzero_y = false) {
  buf<T, R, C> x, y;
  fill(x.mem.get(), R * C, 1);
  fill(y.mem.get(), R * C, 2, !nonzero_y);
  auto e = f(x.view(), y.view());
  using V = typename decltype(e)::value_type;
  STATIC_REQUIRE(std::is_same_v<V, U>);
  buf<U, R, C> o;
  o.ref()[pl::ellipsis] = e;
  for (index_t i = 0; i < R * C; ++i) {
    U const want = ref(x[i], y[i]);
    INFO("element " << i << ": x " << to_double(x[i]) << ", y " << to_double(y[i]) << ", got "
                    << to_double(o[i]) << ", want " << to_double(want));
    CHECK(same_value(o[i], want));
  }
}

template <class T, class F, class Ref>
void check_unary_exact(F f, Ref ref) {
  buf<T, R, C> x;
  fill(x.mem.get(), R * C, 3);
  auto e = f(x.view());
  using V = typename decltype(e)::value_type;
  buf<V, R, C> o;
  o.ref()[pl::ellipsis] = e;
  for (index_t i = 0; i < R * C; ++i) {
    V const want = ref(x[i]);
    INFO("element " << i << ": x " << to_double(x[i]) << ", got " << to_double(o[i]) << ", want "
                    << to_double(want));
    CHECK(same_value(o[i], want));
  }
}

template <class T, class F>
void check_unary_math(F f, double (*ref)(double)) {
  buf<T, R, C> x;
  fill(x.mem.get(), R * C, 4);
  auto e = f(x.view());
  using V = typename decltype(e)::value_type;
  STATIC_REQUIRE(std::is_same_v<V, T>);
  buf<V, R, C> o;
  o.ref()[pl::ellipsis] = e;
  for (index_t i = 0; i < R * C; ++i) {
    double const want = ref(to_double(x[i]));
    INFO("element " << i << ": x " << to_double(x[i]) << ", got " << to_double(o[i]) << ", want " << want);
    CHECK(close_to(o[i], want));
  }
}

}  // namespace

TEMPLATE_TEST_CASE("elementwise float arithmetic is exact and propagates NaN and Inf", "[expr]",
                   float, pl::bfloat16, pl::float16) {
  using T = TestType;
  auto d = [](T v) { return to_double(v); };
  check_binary<T>([](auto x, auto y) { return x + y; }, [&](T a, T b) { return round_to<T>(d(a) + d(b)); });
  check_binary<T>([](auto x, auto y) { return x - y; }, [&](T a, T b) { return round_to<T>(d(a) - d(b)); });
  check_binary<T>([](auto x, auto y) { return x * y; }, [&](T a, T b) { return round_to<T>(d(a) * d(b)); });
  check_binary<T>([](auto x, auto y) { return x / y; }, [&](T a, T b) {
    return round_to<T>(static_cast<double>(static_cast<float>(d(a) / d(b))));
  });
  // Python's %: the sign of the divisor
  check_binary<T>([](auto x, auto y) { return x % y; }, [&](T a, T b) {
    double m = std::fmod(d(a), d(b));
    if (m != 0 && ((m < 0) != (d(b) < 0))) m += d(b);
    return round_to<T>(m);
  });
  check_binary<T>([](auto x, auto y) { return pl::maximum(x, y); }, [&](T a, T b) {
    return (d(a) != d(a) || d(b) != d(b)) ? round_to<T>(std::nan("")) : (d(a) > d(b) ? a : b);
  });
  check_binary<T>([](auto x, auto y) { return pl::minimum(x, y); }, [&](T a, T b) {
    return (d(a) != d(a) || d(b) != d(b)) ? round_to<T>(std::nan("")) : (d(a) < d(b) ? a : b);
  });
}

TEMPLATE_TEST_CASE("elementwise comparisons and where", "[expr]", float, pl::bfloat16, pl::float16,
                   std::int8_t, std::int16_t, std::int32_t, std::uint32_t) {
  using T = TestType;
  auto d = [](T v) { return to_double(v); };
  check_binary<T, bool>([](auto x, auto y) { return x == y; }, [&](T a, T b) { return d(a) == d(b); });
  check_binary<T, bool>([](auto x, auto y) { return x != y; }, [&](T a, T b) { return d(a) != d(b); });
  check_binary<T, bool>([](auto x, auto y) { return x < y; }, [&](T a, T b) { return d(a) < d(b); });
  check_binary<T, bool>([](auto x, auto y) { return x <= y; }, [&](T a, T b) { return d(a) <= d(b); });
  check_binary<T, bool>([](auto x, auto y) { return x > y; }, [&](T a, T b) { return d(a) > d(b); });
  check_binary<T, bool>([](auto x, auto y) { return x >= y; }, [&](T a, T b) { return d(a) >= d(b); });
  check_binary<T>([](auto x, auto y) { return pl::where(x > y, x, y); },
                  [&](T a, T b) { return d(a) > d(b) ? a : b; });
  check_binary<T>([](auto x, auto y) { return pl::select(x <= y, y, x); },
                  [&](T a, T b) { return d(a) <= d(b) ? b : a; });
}

TEMPLATE_TEST_CASE("integer arithmetic wraps like jnp's int32, without undefined behaviour",
                   "[expr]", std::int8_t, std::int16_t, std::int32_t, std::uint32_t) {
  using T = TestType;
  using L = long long;
  check_binary<T>([](auto x, auto y) { return x + y; }, [](T a, T b) { return wrap64<T>(L(a) + L(b)); });
  check_binary<T>([](auto x, auto y) { return x - y; }, [](T a, T b) { return wrap64<T>(L(a) - L(b)); });
  check_binary<T>([](auto x, auto y) { return x * y; }, [](T a, T b) {
    return wrap64<T>(static_cast<L>(static_cast<unsigned long long>(L(a)) * static_cast<unsigned long long>(L(b))));
  });
  check_binary<T>([](auto x, auto y) { return pl::maximum(x, y); }, [](T a, T b) { return a > b ? a : b; });
  check_binary<T>([](auto x, auto y) { return pl::minimum(x, y); }, [](T a, T b) { return a < b ? a : b; });
  check_binary<T>([](auto x, auto y) { return x & y; }, [](T a, T b) { return static_cast<T>(a & b); });
  check_binary<T>([](auto x, auto y) { return x | y; }, [](T a, T b) { return static_cast<T>(a | b); });
  check_binary<T>([](auto x, auto y) { return x ^ y; }, [](T a, T b) { return static_cast<T>(a ^ b); });
  check_unary_exact<T>([](auto x) { return -x; }, [](T a) { return wrap64<T>(-L(a)); });
  check_unary_exact<T>([](auto x) { return pl::abs(x); }, [](T a) { return wrap64<T>(L(a) < 0 ? -L(a) : L(a)); });
  check_unary_exact<T>([](auto x) { return ~x; }, [](T a) { return wrap64<T>(~L(a)); });
  check_unary_exact<T>([](auto x) { return pl::sign(x); }, [](T a) { return static_cast<T>(a > 0 ? 1 : (a < 0 ? -1 : 0)); });
  check_unary_exact<T>([](auto x) { return pl::square(x); }, [](T a) {
    return wrap64<T>(static_cast<L>(static_cast<unsigned long long>(L(a)) * static_cast<unsigned long long>(L(a))));
  });
}

TEMPLATE_TEST_CASE("integer / is Python's //, % takes the divisor's sign, by zero as XLA",
                   "[expr]", std::int8_t, std::int16_t, std::int32_t, std::uint32_t) {
  using T = TestType;
  using L = long long;
  // XLA: x / 0 = -1 (all bits), x % 0 = x; INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
  auto xla_div = [](L a, L b) -> L {
    if (b == 0) return -1;
    return a / b;  // in 64 bits INT_MIN / -1 does not overflow; wrap64 makes it INT_MIN
  };
  auto xla_rem = [](L a, L b) -> L { return b == 0 ? a : a % b; };
  auto sgn = [](L v) { return (v > 0) - (v < 0); };
  check_binary<T>([](auto x, auto y) { return x / y; }, [&](T a, T b) {
    if constexpr (std::is_unsigned_v<T>) {
      return b == 0 ? std::numeric_limits<T>::max() : static_cast<T>(a / b);
    } else {
      L q = xla_div(a, b);
      if (sgn(a) != sgn(b) && xla_rem(a, b) != 0) q -= 1;  // jnp.floor_divide's correction
      return wrap64<T>(q);
    }
  });
  check_binary<T>([](auto x, auto y) { return x % y; }, [&](T a, T b) {
    L m = xla_rem(a, b);
    if (m != 0 && ((m < 0) != (L(b) < 0))) m += b;
    return wrap64<T>(m);
  });
  check_binary<T>([](auto x, auto y) { return pl::floor_divide(x, y); }, [&](T a, T b) {
    if constexpr (std::is_unsigned_v<T>) {
      return b == 0 ? std::numeric_limits<T>::max() : static_cast<T>(a / b);
    } else {
      L q = xla_div(a, b);
      if (sgn(a) != sgn(b) && xla_rem(a, b) != 0) q -= 1;
      return wrap64<T>(q);
    }
  });
}

TEST_CASE("integer division and remainder by hand", "[expr]") {
  buf<std::int32_t, 1, 8> x, y;
  std::int32_t const xs[8] = {7, -7, 7, -7, 0, std::numeric_limits<std::int32_t>::min(), 5, -5};
  std::int32_t const ys[8] = {2, 2, -2, -2, 3, -1, 0, 0};
  for (int i = 0; i < 8; ++i) x[i] = xs[i], y[i] = ys[i];
  auto q = pl::eval(x.view() / y.view());
  auto r = pl::eval(x.view() % y.view());
  std::int32_t const q_want[8] = {3, -4, -4, 3, 0, std::numeric_limits<std::int32_t>::min(), -2, -2};
  std::int32_t const r_want[8] = {1, 1, -1, -1, 0, 0, 5, -5};
  for (int i = 0; i < 8; ++i) {
    CHECK(q(0, i) == q_want[i]);
    CHECK(r(0, i) == r_want[i]);
  }
  auto t = pl::eval(pl::true_divide(x.view(), 2));
  STATIC_REQUIRE(std::is_same_v<decltype(t)::value_type, float>);
  CHECK(t(0, 1) == -3.5f);
}

TEMPLATE_TEST_CASE("shifts saturate like jnp", "[expr]", std::int8_t, std::int32_t, std::uint32_t) {
  using T = TestType;
  constexpr int bits = 8 * sizeof(T);
  buf<T, 1, 8> x, s;
  T const xs[8] = {T(1), T(-1), std::numeric_limits<T>::min(), T(5), T(-8), T(3), T(-3), T(1)};
  T const ss[8] = {T(1), T(1), T(1), T(bits), T(bits + 3), T(0), T(2), T(bits - 1)};
  for (int i = 0; i < 8; ++i) x[i] = xs[i], s[i] = ss[i];
  auto l = pl::eval(x.view() << s.view());
  auto r = pl::eval(x.view() >> s.view());
  for (int i = 0; i < 8; ++i) {
    long long const a = xs[i];
    unsigned const k = static_cast<unsigned>(ss[i]);
    T const lw = k >= bits ? T(0) : wrap64<T>(static_cast<long long>(static_cast<unsigned long long>(a) << k));
    T rw;
    if constexpr (std::is_unsigned_v<T>)
      rw = k >= bits ? T(0) : T(static_cast<T>(a) >> k);
    else
      rw = static_cast<T>(a >> (k >= bits ? bits - 1 : k));  // arithmetic on long long
    INFO("x " << a << " shift " << k);
    CHECK(l(0, i) == lw);
    CHECK(r(0, i) == rw);
  }
}

TEMPLATE_TEST_CASE("float unary ops", "[expr]", float, pl::bfloat16, pl::float16) {
  using T = TestType;
  check_unary_math<T>([](auto x) { return pl::exp(x); }, [](double v) { return std::exp(v); });
  check_unary_math<T>([](auto x) { return pl::exp2(x); }, [](double v) { return std::exp2(v); });
  check_unary_math<T>([](auto x) { return pl::expm1(x); }, [](double v) { return std::expm1(v); });
  check_unary_math<T>([](auto x) { return pl::log(x); }, [](double v) { return std::log(v); });
  check_unary_math<T>([](auto x) { return pl::log2(x); }, [](double v) { return std::log2(v); });
  check_unary_math<T>([](auto x) { return pl::log1p(x); }, [](double v) { return std::log1p(v); });
  check_unary_math<T>([](auto x) { return pl::sqrt(x); }, [](double v) { return std::sqrt(v); });
  check_unary_math<T>([](auto x) { return pl::rsqrt(x); }, [](double v) { return 1.0 / std::sqrt(v); });
  check_unary_math<T>([](auto x) { return pl::tanh(x); }, [](double v) { return std::tanh(v); });
  check_unary_math<T>([](auto x) { return pl::logistic(x); }, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  check_unary_math<T>([](auto x) { return pl::sigmoid(x); }, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  check_unary_math<T>([](auto x) { return pl::sin(x); }, [](double v) { return std::sin(v); });
  check_unary_math<T>([](auto x) { return pl::cos(x); }, [](double v) { return std::cos(v); });
  check_unary_math<T>([](auto x) { return pl::erf(x); }, [](double v) { return std::erf(v); });
  check_unary_math<T>([](auto x) { return pl::reciprocal(x); }, [](double v) { return 1.0 / v; });
  check_unary_math<T>([](auto x) { return pl::pow(x, 2.5f); }, [](double v) { return std::pow(v, 2.5); });
  check_unary_math<T>([](auto x) { return pl::cbrt(x); }, [](double v) { return std::cbrt(v); });
  auto d = [](T v) { return to_double(v); };
  check_unary_exact<T>([](auto x) { return -x; }, [&](T a) { return round_to<T>(-d(a)); });
  check_unary_exact<T>([](auto x) { return pl::abs(x); }, [&](T a) { return round_to<T>(std::fabs(d(a))); });
  check_unary_exact<T>([](auto x) { return pl::floor(x); }, [&](T a) { return round_to<T>(std::floor(d(a))); });
  check_unary_exact<T>([](auto x) { return pl::ceil(x); }, [&](T a) { return round_to<T>(std::ceil(d(a))); });
  check_unary_exact<T>([](auto x) { return pl::trunc(x); }, [&](T a) { return round_to<T>(std::trunc(d(a))); });
  check_unary_exact<T>([](auto x) { return pl::round(x); }, [&](T a) { return round_to<T>(std::nearbyint(d(a))); });
  check_unary_exact<T>([](auto x) { return pl::sign(x); }, [&](T a) {
    double const v = d(a);
    return round_to<T>(v > 0 ? 1.0 : (v < 0 ? -1.0 : v));
  });
  check_unary_exact<T>([](auto x) { return pl::isnan(x); }, [&](T a) { return d(a) != d(a); });
  check_unary_exact<T>([](auto x) { return pl::isinf(x); }, [&](T a) { return std::isinf(d(a)); });
  check_unary_exact<T>([](auto x) { return pl::isfinite(x); }, [&](T a) { return std::isfinite(d(a)); });
}

TEST_CASE("round is half to even, sign keeps -0 and NaN", "[expr]") {
  buf<float, 1, 6> x;
  float const xs[6] = {0.5f, 1.5f, 2.5f, -0.5f, -0.0f, nan_f};
  for (int i = 0; i < 6; ++i) x[i] = xs[i];
  auto r = pl::eval(pl::round(x.view()));
  auto s = pl::eval(pl::sign(x.view()));
  CHECK(r(0, 0) == 0.0f);
  CHECK(r(0, 1) == 2.0f);
  CHECK(r(0, 2) == 2.0f);
  CHECK(r(0, 3) == 0.0f);
  CHECK(std::signbit(s(0, 4)));
  CHECK(std::isnan(s(0, 5)));
}

TEMPLATE_TEST_CASE("transcendental ops on integers compute in float32", "[expr]", std::int8_t,
                   std::int32_t, bool) {
  buf<TestType, 1, 4> x;
  for (int i = 0; i < 4; ++i) x[i] = static_cast<TestType>(i % 2);
  auto e = pl::exp(x.view());
  STATIC_REQUIRE(std::is_same_v<typename decltype(e)::value_type, float>);
  auto v = pl::eval(e);
  CHECK(v(0, 0) == 1.0f);
  CHECK(v(0, 1) == Approx(std::exp(1.0)).epsilon(1e-6));
}

TEST_CASE("integer pow is exact and wraps", "[expr]") {
  buf<std::int32_t, 1, 6> x, y;
  std::int32_t const xs[6] = {3, -2, 2, 1, -1, 5};
  std::int32_t const ys[6] = {4, 3, 31, -3, -3, -1};
  for (int i = 0; i < 6; ++i) x[i] = xs[i], y[i] = ys[i];
  auto p = pl::eval(pl::pow(x.view(), y.view()));
  CHECK(p(0, 0) == 81);
  CHECK(p(0, 1) == -8);
  CHECK(p(0, 2) == std::numeric_limits<std::int32_t>::min());  // 2^31 wraps
  CHECK(p(0, 3) == 1);
  CHECK(p(0, 4) == -1);
  CHECK(p(0, 5) == 0);
}

TEST_CASE("logical ops on bool blocks", "[expr]") {
  check_binary<bool>([](auto x, auto y) { return x & y; }, [](bool a, bool b) { return a && b; });
  check_binary<bool>([](auto x, auto y) { return x | y; }, [](bool a, bool b) { return a || b; });
  check_binary<bool>([](auto x, auto y) { return x ^ y; }, [](bool a, bool b) { return a != b; });
  check_binary<bool>([](auto x, auto y) { return pl::logical_and(x, y); }, [](bool a, bool b) { return a && b; });
  check_binary<bool>([](auto x, auto y) { return pl::logical_or(x, !y); }, [](bool a, bool b) { return a || !b; });
  check_binary<bool>([](auto x, auto y) { return pl::logical_xor(x, y); }, [](bool a, bool b) { return a != b; });
  check_unary_exact<bool>([](auto x) { return ~x; }, [](bool a) { return !a; });
  check_unary_exact<bool>([](auto x) { return pl::logical_not(x); }, [](bool a) { return !a; });
  // logical ops convert numbers to bool (x != 0)
  buf<float, 1, 3> f;
  f[0] = 0.0f, f[1] = 2.0f, f[2] = nan_f;
  auto b = pl::eval(pl::logical_and(f.view(), true));
  CHECK(!b(0, 0));
  CHECK(b(0, 1));
  CHECK(b(0, 2));
}

TEST_CASE("NaN and Inf propagate as in numpy", "[expr]") {
  buf<float, 1, 4> x;
  x[0] = inf_f, x[1] = -inf_f, x[2] = nan_f, x[3] = 0.0f;
  auto v = pl::eval(x.view() - x.view());
  CHECK(std::isnan(v(0, 0)));
  CHECK(std::isnan(v(0, 2)));
  CHECK(v(0, 3) == 0.0f);
  auto q = pl::eval(1.0f / x.view());
  CHECK(q(0, 0) == 0.0f);
  CHECK(q(0, 3) == inf_f);
  auto c = pl::eval(x.view() != x.view());
  CHECK(!c(0, 0));
  CHECK(c(0, 2));
  auto m = pl::eval(pl::maximum(x.view(), 1.0f));
  CHECK(m(0, 0) == inf_f);
  CHECK(m(0, 1) == 1.0f);
  CHECK(std::isnan(m(0, 2)));
  auto n = pl::eval(pl::minimum(1.0f, x.view()));  // NaN on either side
  CHECK(std::isnan(n(0, 2)));
  CHECK(n(0, 1) == -inf_f);
  auto l = pl::eval(pl::log(pl::full<float, pl::shape<2>>(-1.0f)));
  CHECK(std::isnan(l(0)));
}

TEST_CASE("C++ scalars are weakly typed like Python scalars", "[expr]") {
  buf<pl::bfloat16, 2, 3> xb;
  buf<std::int32_t, 2, 3> xi;
  buf<std::int8_t, 2, 3> x8;
  buf<bool, 2, 3> xq;
  buf<float, 2, 3> xf;
  buf<pl::float16, 2, 3> xh;
  auto bf = xb.view();
  auto i32 = xi.view();
  STATIC_REQUIRE(std::is_same_v<decltype(bf * 2)::value_type, pl::bfloat16>);
  STATIC_REQUIRE(std::is_same_v<decltype(2.5 * bf)::value_type, pl::bfloat16>);
  STATIC_REQUIRE(std::is_same_v<decltype(i32 * 2)::value_type, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(i32 * 0.5f)::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(x8.view() + 1000)::value_type, std::int8_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(xq.view() + 1)::value_type, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(xq.view() & true)::value_type, bool>);
  STATIC_REQUIRE(std::is_same_v<decltype(xq.view() * 1.0)::value_type, float>);
  // arrays promote as jnp.promote_types
  STATIC_REQUIRE(std::is_same_v<decltype(x8.view() + i32)::value_type, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(bf + xh.view())::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(bf + xf.view())::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(i32 + bf)::value_type, pl::bfloat16>);
  // bfloat16/float16 values are strongly typed (0-d arrays)
  STATIC_REQUIRE(std::is_same_v<decltype(xf.view() * pl::bfloat16(2.0f))::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(i32 * pl::bfloat16(2.0f))::value_type, pl::bfloat16>);
  // a weak int wraps into the array's dtype
  x8[0] = 100;
  auto v = pl::eval(x8.view() + 100);
  CHECK(v(0, 0) == static_cast<std::int8_t>(-56));
  // a weak float rounds into bf16 once
  xb[0] = pl::bfloat16(1.0f);
  auto w = pl::eval(bf + 0.00390625);  // 1 + 2^-8: a tie, rounds to even (1.0)
  CHECK(static_cast<float>(w(0, 0)) == 1.0f);
}

TEST_CASE("numpy broadcasting of scalars and size-1 dimensions", "[expr]") {
  buf<float, 8, 16> x;
  buf<float, 1, 16> row;
  buf<float, 8, 1> col;
  fill(x.mem.get(), 8 * 16, 5);
  for (int j = 0; j < 16; ++j) row[j] = float(j);
  for (int i = 0; i < 8; ++i) col[i] = float(100 * i);
  pl::block<float, pl::shape<16>> vec = pl::arange<float, 16>() * 1000;
  pl::block<float, pl::shape<>> s = pl::eval(0.5f);
  buf<float, 8, 16> o;
  o.ref()[pl::ellipsis] = x.view() * s + row.view() + col.view() + vec;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j) {
      float const want = x[i * 16 + j] * 0.5f + float(j) + float(100 * i) + float(1000 * j);
      INFO(i << ", " << j);
      CHECK(same_value(o[i * 16 + j], want));
    }
  // outer product by broadcasting: (8, 1) * (1, 16)
  auto outer = pl::eval(col.view() * row.view());
  STATIC_REQUIRE(std::is_same_v<decltype(outer)::shape_type, pl::shape<8, 16>>);
  CHECK(outer(3, 5) == 1500.0f);
  // ranks broadcast too: (2, 1, 4) + (3, 1) -> (2, 3, 4)
  pl::block<float, pl::shape<2, 1, 4>> a = pl::iota<float, pl::shape<2, 1, 4>>(2);
  pl::block<float, pl::shape<3, 1>> b = pl::iota<float, pl::shape<3, 1>>(0) * 10;
  auto c = pl::eval(a + b);
  STATIC_REQUIRE(std::is_same_v<decltype(c)::shape_type, pl::shape<2, 3, 4>>);
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 3; ++q)
      for (int r = 0; r < 4; ++r) CHECK(c(p, q, r) == float(r + 10 * q));
}

TEST_CASE("broadcasting through strided views", "[expr]") {
  // a (4, 8) block seen through a column slice of a (4, 16) buffer and a row of a
  // (3, 8) buffer, stored into a transposed-order destination
  buf<std::int32_t, 4, 16> wide;
  buf<std::int32_t, 3, 8> rows;
  for (int i = 0; i < 64; ++i) wide[i] = i;
  for (int i = 0; i < 24; ++i) rows[i] = 1000 * i;
  auto x = wide.ref().at(pl::full_extent, pl::ds<8>(4))[pl::ellipsis];          // strides (16, 1)
  auto r = rows.ref().at(pl::ds<1>(2), pl::full_extent)[pl::ellipsis];          // (1, 8)
  buf<std::int32_t, 8, 4> t;
  auto tv = t.ref();
  // store a (4, 8) value into columns of t via a transposed view: dst strides (1, 4)
  pl::Ref<std::int32_t, pl::shape<4, 8>, pl::memory_space::vmem, pl::strides<1, 4>> tt(
      tv.data(), pl::shape<4, 8>{}, pl::strides<1, 4>{});
  tt[pl::ellipsis] = x + r;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) CHECK(t[j * 4 + i] == (i * 16 + 4 + j) + 1000 * (16 + j));
}

TEST_CASE("clip, where with scalars, and mixed dtypes in where", "[expr]") {
  buf<float, 2, 4> x;
  for (int i = 0; i < 8; ++i) x[i] = float(i) - 3.5f;
  auto c = pl::eval(pl::clip(x.view(), -1, 2));
  CHECK(c(0, 0) == -1.0f);
  CHECK(c(0, 3) == -0.5f);
  CHECK(c(1, 3) == 2.0f);
  auto w = pl::eval(pl::where(x.view() > 0, 1, 0));
  STATIC_REQUIRE(std::is_same_v<decltype(w)::value_type, std::int32_t>);
  CHECK(w(1, 0) == 1);
  CHECK(w(0, 0) == 0);
  auto m = pl::eval(pl::where(x.view() > 0, x.view(), 0));
  STATIC_REQUIRE(std::is_same_v<decltype(m)::value_type, float>);
  CHECK(m(0, 2) == 0.0f);
  CHECK(m(1, 1) == 1.5f);
}

TEST_CASE("a long expression is evaluated in one pass with the right result", "[expr]") {
  buf<float, 16, 128> x, y, o;
  fill(x.mem.get(), 16 * 128, 7);
  fill(y.mem.get(), 16 * 128, 8);
  o.ref()[pl::ellipsis] = pl::tanh(x.view() * 2 + y.view()) - pl::exp(-pl::abs(y.view())) / 3 + 1;
  for (int i = 0; i < 16 * 128; ++i) {
    double const a = x[i], b = y[i];
    double const want = std::tanh(double(float(a * 2) + float(b))) - std::exp(-std::fabs(b)) / 3 + 1;
    INFO(i << ": " << a << ", " << b << ": got " << o[i] << ", want " << want);
    if (want != want)
      CHECK(std::isnan(o[i]));
    else if (std::isinf(want))
      CHECK(o[i] == want);
    else
      CHECK(std::abs(o[i] - want) <= 1e-5);  // absolute: the result crosses zero
  }
}
