// SPDX-License-Identifier: Apache-2.0
#pragma once
// The element-level binary ops (arithmetic, comparisons, bitwise and logical), as jnp
// computes them; the rules are summed up in ops.hpp.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <pallas/dtype.hpp>
#include <pallas/expr/op_helpers.hpp>

namespace pallas::detail {

// ---------------------------------------------------------------------------------------
// binary arithmetic

struct add_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    if constexpr (is_floating_v<T>)
      return float_op(a, b, [](float x, float y) { return x + y; });
    else if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else
      return wrap<T>(u32(a) + u32(b));
  }
};

struct sub_op {
  template <class T>
  using input_t = arith_t<T>;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    if constexpr (is_floating_v<T>)
      return float_op(a, b, [](float x, float y) { return x - y; });
    else
      return wrap<T>(u32(a) - u32(b));
  }
};

struct mul_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    if constexpr (is_floating_v<T>)
      return float_op(a, b, [](float x, float y) { return x * y; });
    else if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else
      return wrap<T>(u32(a) * u32(b));
  }
};

/// XLA's integer division and remainder: x / 0 = -1 (all bits set), x % 0 = x,
/// INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
template <class T>
constexpr T xla_div(T a, T b) noexcept {
  if (b == 0) return static_cast<T>(~T{0});
  if constexpr (std::is_signed_v<T>)
    if (b == T{-1}) return wrap<T>(0u - u32(a));
  return static_cast<T>(a / b);
}

template <class T>
constexpr T xla_rem(T a, T b) noexcept {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>)
    if (b == T{-1}) return T{0};
  return static_cast<T>(a % b);
}

template <class T>
constexpr int sign_of(T x) noexcept {
  return (x > T{0}) - (x < T{0});
}

/// jnp.floor_divide (Python's //).
struct floor_divide_op {
  template <class T>
  using input_t = arith_t<T>;
  template <class T>
  using result_t = T;
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (is_floating_v<T>) {
      return float_op(a, b, [](float x, float y) {
        float const mod = std::fmod(x, y);
        float div = (x - mod) / y;
        if (mod != 0.0f && sign_of(y) != sign_of(mod)) div -= 1.0f;
        return std::rint(div);
      });
    } else if constexpr (std::is_unsigned_v<T>) {
      return xla_div(a, b);
    } else {
      T const q = xla_div(a, b);
      if (sign_of(a) != sign_of(b) && xla_rem(a, b) != 0) return wrap<T>(u32(q) - 1u);
      return q;
    }
  }
};

/// `/`: true division on floats, jnp's `//` on integers.
struct div_op {
  template <class T>
  using input_t = arith_t<T>;
  template <class T>
  using result_t = T;
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (is_floating_v<T>)
      return float_op(a, b, [](float x, float y) { return x / y; });
    else
      return floor_divide_op::apply(a, b);
  }
};

/// jnp.true_divide: integers are divided as float32.
struct true_divide_op {
  template <class T>
  using input_t = floating_t<T>;
  template <class T>
  using result_t = T;
  template <class T>
  static T apply(T a, T b) noexcept {
    return float_op(a, b, [](float x, float y) { return x / y; });
  }
};

/// jnp.remainder (Python's %): the result has the sign of the divisor.
struct rem_op {
  template <class T>
  using input_t = arith_t<T>;
  template <class T>
  using result_t = T;
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (is_floating_v<T>) {
      return float_op(a, b, [](float x, float y) {
        float const m = std::fmod(x, y);
        return (m != 0.0f && ((m < 0.0f) != (y < 0.0f))) ? m + y : m;
      });
    } else {
      T const m = xla_rem(a, b);
      if (m != 0 && ((m < T{0}) != (b < T{0}))) return wrap<T>(u32(m) + u32(b));
      return m;
    }
  }
};

/// jnp.power: float pow on floats; exact wrapping powers on integers (a negative
/// exponent gives 0 unless the base is 1 or -1).
struct pow_op {
  template <class T>
  using input_t = arith_t<T>;
  template <class T>
  using result_t = T;
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (is_floating_v<T>) {
      return float_op(a, b, [](float x, float y) { return std::pow(x, y); });
    } else {
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) {
          if (a == 1) return T{1};
          if (a == -1) return (u32(b) & 1u) ? T{-1} : T{1};
          return T{0};
        }
      }
      std::uint32_t base = u32(a), result = 1u, e = u32(b);
      while (e) {
        if (e & 1u) result *= base;
        base *= base;
        e >>= 1;
      }
      return wrap<T>(result);
    }
  }
};

/// jnp.maximum: NaN if either operand is NaN.
struct max_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    if constexpr (is_floating_v<T>) {
      // y > x ? y : x is one vmaxps and returns x when either is NaN; the test of y is
      // hoisted out of the loop when y is a constant (pl::maximum(x, 0)).
      return float_op(a, b, [](float x, float y) { return y != y ? y : (y > x ? y : x); });
    } else {
      return a > b ? a : b;
    }
  }
};

/// jnp.minimum: NaN if either operand is NaN.
struct min_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    if constexpr (is_floating_v<T>) {
      return float_op(a, b, [](float x, float y) { return y != y ? y : (y < x ? y : x); });
    } else {
      return a < b ? a : b;
    }
  }
};

// ---------------------------------------------------------------------------------------
// comparisons

#define PALLAS_DETAIL_COMPARISON(name, op)                                     \
  struct name {                                                                \
    template <class T>                                                         \
    using input_t = T;                                                         \
    template <class T>                                                         \
    using result_t = bool;                                                     \
    template <class T>                                                         \
    static constexpr bool apply(T a, T b) noexcept {                           \
      if constexpr (is_half_v<T>)                                              \
        return static_cast<float>(a) op static_cast<float>(b);                 \
      else                                                                     \
        return a op b;                                                         \
    }                                                                          \
  };
PALLAS_DETAIL_COMPARISON(eq_op, ==)
PALLAS_DETAIL_COMPARISON(ne_op, !=)
PALLAS_DETAIL_COMPARISON(lt_op, <)
PALLAS_DETAIL_COMPARISON(le_op, <=)
PALLAS_DETAIL_COMPARISON(gt_op, >)
PALLAS_DETAIL_COMPARISON(ge_op, >=)
#undef PALLAS_DETAIL_COMPARISON

// ---------------------------------------------------------------------------------------
// bitwise and logical

/// Integer or bool operands only (bitwise ops on floats do not compile).
template <class T>
inline constexpr bool bitwise_ok_v = std::is_integral_v<T>;

struct bit_and_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else
      return wrap<T>(u32(a) & u32(b));
  }
};

struct bit_or_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else
      return wrap<T>(u32(a) | u32(b));
  }
};

struct bit_xor_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    if constexpr (std::is_same_v<T, bool>)
      return a != b;
    else
      return wrap<T>(u32(a) ^ u32(b));
  }
};

/// jnp `<<` (lax.shift_left): shifts of the bit width or more, or negative, give 0.
struct shift_left_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    constexpr std::uint32_t bits = 8 * sizeof(T);
    std::uint32_t const s = u32(b);
    if (s >= bits) return T{0};
    return wrap<T>(u32(a) << s);
  }
};

/// jnp `>>`: arithmetic on signed integers (sign fill), logical on unsigned; shifts of the
/// bit width or more, or negative, saturate (all sign bits, or 0).
struct shift_right_op {
  template <class T>
  using input_t = T;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr T apply(T a, T b) noexcept {
    constexpr std::uint32_t bits = 8 * sizeof(T);
    std::uint32_t const s = u32(b) >= bits ? bits - 1 + std::is_unsigned_v<T> : u32(b);
    if constexpr (std::is_unsigned_v<T>) {
      return s >= bits ? T{0} : static_cast<T>(a >> s);
    } else {
      std::uint32_t const x = u32(a);  // sign-extended to 32 bits
      std::uint32_t const fill = a < 0 ? ~(~0u >> s) : 0u;
      return wrap<T>((x >> s) | fill);
    }
  }
};

struct logical_and_op {
  template <class T>
  using input_t = bool;
  template <class T>
  using result_t = bool;
  static constexpr bool apply(bool a, bool b) noexcept { return a && b; }
};

struct logical_or_op {
  template <class T>
  using input_t = bool;
  template <class T>
  using result_t = bool;
  static constexpr bool apply(bool a, bool b) noexcept { return a || b; }
};

struct logical_xor_op {
  template <class T>
  using input_t = bool;
  template <class T>
  using result_t = bool;
  static constexpr bool apply(bool a, bool b) noexcept { return a != b; }
};

}  // namespace pallas::detail
