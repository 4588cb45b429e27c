// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers shared by the element-level ops (ops.hpp): modular integer arithmetic, the dtype
// an op computes in, and computing in float for the 16-bit floats.

#include <cstdint>
#include <type_traits>

#include <pallas/dtype.hpp>
#include <pallas/expr/expression.hpp>

namespace pallas::detail {

template <class T>
constexpr std::uint32_t u32(T x) noexcept {
  return static_cast<std::uint32_t>(x);  // modular; sign-extends negative values
}

template <class T>
constexpr T wrap(std::uint32_t x) noexcept {
  return static_cast<T>(x);  // C++20: modular
}

template <class T>
using same_t = T;

/// Floating ops on an integer or bool operand compute in float32 (jnp promotes to inexact).
template <class T>
using floating_t = std::conditional_t<is_floating_v<T>, T, float>;

/// Integer arithmetic on bool operands computes in int32 (+ and * stay logical).
template <class T>
using arith_t = std::conditional_t<std::is_same_v<T, bool>, std::int32_t, T>;

/// f(a, b) computed in float and rounded back to T (T a floating dtype).
template <class T, class F>
constexpr T float_op(T a, T b, F f) noexcept {
  if constexpr (std::is_same_v<T, float>)
    return f(a, b);
  else
    return T(f(static_cast<float>(a), static_cast<float>(b)));
}

template <class T, class F>
constexpr T float_op(T a, F f) noexcept {
  if constexpr (std::is_same_v<T, float>)
    return f(a);
  else
    return T(f(static_cast<float>(a)));
}

}  // namespace pallas::detail
