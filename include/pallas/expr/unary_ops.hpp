// SPDX-License-Identifier: Apache-2.0
#pragma once
// The element-level unary ops (negation, abs, math functions, logical not, casts), as jnp
// computes them (square is mul_op on itself); the rules are summed up in ops.hpp.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <pallas/dtype.hpp>
#include <pallas/expr/binary_ops.hpp>
#include <pallas/expr/exp_f32.hpp>
#include <pallas/expr/op_helpers.hpp>

namespace pallas::detail {

// ---------------------------------------------------------------------------------------
// unary

struct neg_op {
  template <class T>
  using input_t = arith_t<T>;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a) noexcept {
    if constexpr (is_floating_v<T>)
      return -a;
    else
      return wrap<T>(0u - u32(a));
  }
};

struct abs_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static T apply(T a) noexcept {
    if constexpr (is_half_v<T>)
      return T::from_bits(static_cast<std::uint16_t>(a.bits() & 0x7FFFu));
    else if constexpr (std::is_same_v<T, float>)
      return std::fabs(a);
    else if constexpr (std::is_unsigned_v<T>)
      return a;
    else
      return a < 0 ? wrap<T>(0u - u32(a)) : a;
  }
};

/// jnp.sign: -1, 0 or 1; NaN stays NaN and -0.0 stays -0.0.
struct sign_op {
  template <class T>
  using input_t = arith_t<T>;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a) noexcept {
    if constexpr (is_floating_v<T>)
      return float_op(a, [](float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); });
    else
      return static_cast<T>(sign_of(a));
  }
};

struct square_op {
  template <class T>
  using input_t = arith_t<T>;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a) noexcept {
    return mul_op::apply(a, a);
  }
};

#define PALLAS_DETAIL_FLOAT_UNARY(name, expr)                          \
  struct name {                                                        \
    template <class T>                                                 \
    using input_t = floating_t<T>;                                     \
    template <class T>                                                 \
    using result_t = T;                                                \
    template <class T>                                                 \
    static T apply(T a) noexcept {                                     \
      return float_op(a, [](float x) { return expr; });                \
    }                                                                  \
  };
PALLAS_DETAIL_FLOAT_UNARY(exp_op, block_exp(x))
PALLAS_DETAIL_FLOAT_UNARY(exp2_op, std::exp2(x))
PALLAS_DETAIL_FLOAT_UNARY(expm1_op, std::expm1(x))
PALLAS_DETAIL_FLOAT_UNARY(log_op, std::log(x))
PALLAS_DETAIL_FLOAT_UNARY(log2_op, std::log2(x))
PALLAS_DETAIL_FLOAT_UNARY(log1p_op, std::log1p(x))
PALLAS_DETAIL_FLOAT_UNARY(sqrt_op, std::sqrt(x))
PALLAS_DETAIL_FLOAT_UNARY(rsqrt_op, 1.0f / std::sqrt(x))
PALLAS_DETAIL_FLOAT_UNARY(cbrt_op, std::cbrt(x))
PALLAS_DETAIL_FLOAT_UNARY(tanh_op, std::tanh(x))
PALLAS_DETAIL_FLOAT_UNARY(logistic_op, 1.0f / (1.0f + block_exp(-x)))
PALLAS_DETAIL_FLOAT_UNARY(sin_op, std::sin(x))
PALLAS_DETAIL_FLOAT_UNARY(cos_op, std::cos(x))
PALLAS_DETAIL_FLOAT_UNARY(tan_op, std::tan(x))
PALLAS_DETAIL_FLOAT_UNARY(erf_op, std::erf(x))
PALLAS_DETAIL_FLOAT_UNARY(floor_op, std::floor(x))
PALLAS_DETAIL_FLOAT_UNARY(ceil_op, std::ceil(x))
PALLAS_DETAIL_FLOAT_UNARY(round_op, std::rint(x))
PALLAS_DETAIL_FLOAT_UNARY(trunc_op, std::trunc(x))
PALLAS_DETAIL_FLOAT_UNARY(reciprocal_op, 1.0f / x)
#undef PALLAS_DETAIL_FLOAT_UNARY

struct logical_not_op {
  template <class T>
  using input_t = bool;
  template <class T>
  using result_t = bool;
  static constexpr bool apply(bool a) noexcept { return !a; }
};

struct bit_not_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a) noexcept {
    if constexpr (std::is_same_v<T, bool>)
      return !a;
    else
      return wrap<T>(~u32(a));
  }
};

struct isnan_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = bool;
  template <class T>
  static constexpr bool apply(T a) noexcept {
    return pallas::isnan(a);
  }
};

struct isinf_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = bool;
  template <class T>
  static constexpr bool apply(T a) noexcept {
    return pallas::isinf(a);
  }
};

struct isfinite_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = bool;
  template <class T>
  static constexpr bool apply(T a) noexcept {
    return pallas::isfinite(a);
  }
};

/// astype: jnp conversion semantics (pallas::convert).
template <class U>
struct cast_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = U;
  template <class T>
  static constexpr U apply(T a) noexcept {
    return convert<U>(a);
  }
};

}  // namespace pallas::detail
