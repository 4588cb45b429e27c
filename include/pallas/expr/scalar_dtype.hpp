// SPDX-License-Identifier: Apache-2.0
#pragma once
// The dtype rules of scalars in block expressions: which dtypes are floating or integer,
// the dtype a weak C++ scalar takes next to an array (jnp's weak typing: `x_bf16 * 2` stays
// bf16), the dtype of a weak scalar on its own, and the conversion of a C++ value to a
// dtype.

#include <cstdint>
#include <type_traits>

#include <pallas/dtype.hpp>

namespace pallas::detail {

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, bfloat16> || std::is_same_v<T, float16>;

template <class T>
inline constexpr bool is_floating_v = is_half_v<T> || std::is_same_v<T, float>;

template <class T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// The dtype a weak (C++ arithmetic) scalar S takes next to an array of dtype T, as jnp's
/// weak types: a bool keeps T; an integer keeps T unless T is bool (int32); a floating
/// scalar keeps a floating T and makes anything else float32.
template <class T, class S>
using weak_result_t = std::conditional_t<
    std::is_same_v<S, bool>, T,
    std::conditional_t<std::is_integral_v<S>,
                       std::conditional_t<std::is_same_v<T, bool>, std::int32_t, T>,
                       std::conditional_t<is_floating_v<T>, T, float>>>;

/// The dtype of a weak scalar on its own (jnp.asarray(s)): bool, int32 or float32.
template <class S>
using default_dtype_t =
    std::conditional_t<std::is_same_v<S, bool>, bool,
                       std::conditional_t<std::is_integral_v<S>, std::int32_t, float>>;

/// A C++ arithmetic value as dtype T: integers wrap, floats round to nearest even.
template <class T, class S>
constexpr T from_scalar(S s) noexcept {
  if constexpr (std::is_same_v<T, S>) {
    return s;
  } else if constexpr (std::is_same_v<T, bool>) {
    return s != S{};
  } else if constexpr (is_half_v<T>) {
    if constexpr (std::is_same_v<S, bool>)
      return T(static_cast<float>(s));
    else if constexpr (std::is_floating_point_v<S>)
      return T(static_cast<double>(s));
    else
      return T(s);
  } else if constexpr (std::is_floating_point_v<S> && is_integer_v<T>) {
    return convert<T>(static_cast<float>(s));  // truncate, saturate, NaN -> 0
  } else {
    return static_cast<T>(s);  // C++20: integer conversions are modular
  }
}

}  // namespace pallas::detail
