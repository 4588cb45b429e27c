// SPDX-License-Identifier: Apache-2.0
#pragma once
// pallas/dtype.hpp: the element types a kernel computes on, and what is known about them.
//
//   pallas::bfloat16, pallas::float16   16-bit floats (storage only; arithmetic in float;
//                                       half.hpp)
//   pallas::dtype_traits<T>             bits, bytes, kind, jnp name, poison value
//   pallas::Dtype<T>, is_dtype_v<T>     exactly float, bfloat16, float16, std::int8_t,
//                                       std::int16_t, std::int32_t, std::uint32_t, bool
//   pallas::promote_t<A, B>             jnp type promotion between two dtypes
//   pallas::convert<To>(x)              jnp `astype`
//   pallas::isnan / isinf / isfinite    for every dtype (and every arithmetic type)
//
// Conversions into the 16-bit floats round once, to nearest even (half.hpp).

#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string_view>
#include <tuple>
#include <type_traits>

#include <pallas/half.hpp>

namespace pallas {

namespace detail {

// The dtypes in promotion-table order.
using dtype_list = std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::uint32_t,
                              bfloat16, float16, float>;

template <class T>
inline constexpr int dtype_index_v = std::is_same_v<T, bool>           ? 0
                                     : std::is_same_v<T, std::int8_t>   ? 1
                                     : std::is_same_v<T, std::int16_t>  ? 2
                                     : std::is_same_v<T, std::int32_t>  ? 3
                                     : std::is_same_v<T, std::uint32_t> ? 4
                                     : std::is_same_v<T, bfloat16>      ? 5
                                     : std::is_same_v<T, float16>       ? 6
                                     : std::is_same_v<T, float>         ? 7
                                                                        : -1;

// jnp.promote_types restricted to our dtypes, indexed like dtype_list. jnp promotes a
// signed integer with uint32 to int64, which pallas does not have: we give int32.
inline constexpr int dtype_promote_table[8][8] = {
    //         bool i8 i16 i32 u32 bf16 f16 f32
    /* bool */ {0, 1, 2, 3, 4, 5, 6, 7},
    /* i8   */ {1, 1, 2, 3, 3, 5, 6, 7},
    /* i16  */ {2, 2, 2, 3, 3, 5, 6, 7},
    /* i32  */ {3, 3, 3, 3, 3, 5, 6, 7},
    /* u32  */ {4, 3, 3, 3, 4, 5, 6, 7},
    /* bf16 */ {5, 5, 5, 5, 5, 5, 7, 7},
    /* f16  */ {6, 6, 6, 6, 6, 7, 6, 7},
    /* f32  */ {7, 7, 7, 7, 7, 7, 7, 7},
};

template <class T>
inline constexpr bool dtype_dependent_false_v = false;

template <class T, bool Floating, bool Integral, bool Signed>
struct dtype_traits_base {
  using type = T;
  static constexpr std::int64_t bytes = sizeof(T);  // std::int64_t is pallas::index_t
  static constexpr std::int64_t bits = 8 * bytes;   // bool: 8, its storage
  static constexpr bool is_floating = Floating;
  static constexpr bool is_integral = Integral;  // as jnp.integer: bool is not integral
  static constexpr bool is_signed = Signed;
};

}  // namespace detail

/// True exactly for the eight dtypes (cv-unqualified): float, bfloat16, float16,
/// std::int8_t, std::int16_t, std::int32_t, std::uint32_t, bool.
template <class T>
inline constexpr bool is_dtype_v = detail::dtype_index_v<T> >= 0;

template <class T>
concept Dtype = is_dtype_v<T>;

/// dtype_traits<T>: bits, bytes (std::int64_t), is_floating, is_integral, is_signed,
/// name (jnp spelling), poison() (the fill of uninitialized memory in checked mode). A
/// type that is not a dtype is a compile error naming the eight.
template <class T>
struct dtype_traits {
  static_assert(detail::dtype_dependent_false_v<T>,
                "pallas::dtype_traits: T is not a pallas dtype (float, pallas::bfloat16, "
                "pallas::float16, std::int8_t, std::int16_t, std::int32_t, std::uint32_t, bool)");
  // Placeholders, so that the static_assert above is the only error.
  static constexpr std::int64_t bytes = 0;     ///< size in bytes
  static constexpr std::int64_t bits = 0;      ///< size in bits
  static constexpr bool is_floating = false;   ///< float, bfloat16, float16
  static constexpr bool is_integral = false;   ///< the integer types (not bool)
  static constexpr bool is_signed = false;     ///< signed
  static constexpr std::string_view name = "";  ///< jnp's name: "float32", "bfloat16", ...
};

/// The traits of float32 (`float`).
template <>
struct dtype_traits<float> : detail::dtype_traits_base<float, true, false, true> {
  static constexpr std::string_view name = "float32";  ///< jnp's name
  /// The fill of uninitialized memory in checked mode.
  static constexpr float poison() noexcept { return std::numeric_limits<float>::quiet_NaN(); }
};
/// The traits of bfloat16 (`bfloat16`).
template <>
struct dtype_traits<bfloat16> : detail::dtype_traits_base<bfloat16, true, false, true> {
  static constexpr std::string_view name = "bfloat16";  ///< jnp's name
  /// The fill of uninitialized memory in checked mode.
  static constexpr bfloat16 poison() noexcept { return std::numeric_limits<bfloat16>::quiet_NaN(); }
};
/// The traits of float16 (`float16`).
template <>
struct dtype_traits<float16> : detail::dtype_traits_base<float16, true, false, true> {
  static constexpr std::string_view name = "float16";  ///< jnp's name
  /// The fill of uninitialized memory in checked mode.
  static constexpr float16 poison() noexcept { return std::numeric_limits<float16>::quiet_NaN(); }
};
/// The traits of int8 (`std::int8_t`).
template <>
struct dtype_traits<std::int8_t> : detail::dtype_traits_base<std::int8_t, false, true, true> {
  static constexpr std::string_view name = "int8";  ///< jnp's name
  /// The fill of uninitialized memory in checked mode.
  static constexpr std::int8_t poison() noexcept { return std::numeric_limits<std::int8_t>::min(); }
};
/// The traits of int16 (`std::int16_t`).
template <>
struct dtype_traits<std::int16_t> : detail::dtype_traits_base<std::int16_t, false, true, true> {
  static constexpr std::string_view name = "int16";  ///< jnp's name
  /// The fill of uninitialized memory in checked mode.
  static constexpr std::int16_t poison() noexcept { return std::numeric_limits<std::int16_t>::min(); }
};
/// The traits of int32 (`std::int32_t`).
template <>
struct dtype_traits<std::int32_t> : detail::dtype_traits_base<std::int32_t, false, true, true> {
  static constexpr std::string_view name = "int32";  ///< jnp's name
  /// The fill of uninitialized memory in checked mode.
  static constexpr std::int32_t poison() noexcept { return std::numeric_limits<std::int32_t>::min(); }
};
/// The traits of uint32 (`std::uint32_t`).
template <>
struct dtype_traits<std::uint32_t> : detail::dtype_traits_base<std::uint32_t, false, true, false> {
  static constexpr std::string_view name = "uint32";  ///< jnp's name
  /// The fill of uninitialized memory in checked mode.
  static constexpr std::uint32_t poison() noexcept { return std::numeric_limits<std::uint32_t>::max(); }
};
/// The traits of bool (`bool`).
template <>
struct dtype_traits<bool> : detail::dtype_traits_base<bool, false, false, false> {
  static constexpr std::string_view name = "bool";  ///< jnp's name
  /// The fill of uninitialized memory in checked mode.
  static constexpr bool poison() noexcept { return true; }
};

/// promote<A, B>::type / promote_t<A, B>: the result dtype of a binary op on A and B, as
/// jnp.promote_types, except that a signed integer with uint32 gives int32 (jnp: int64,
/// which pallas does not have). bool with X -> X; integer with a float -> that float;
/// bfloat16 with float16 -> float; the wider of two signed integers.
template <class A, class B>
struct promote {
  static_assert(is_dtype_v<A> && is_dtype_v<B>,
                "pallas::promote: both operands must be pallas dtypes (float, pallas::bfloat16, "
                "pallas::float16, std::int8_t, std::int16_t, std::int32_t, std::uint32_t, bool)");
  /// The promoted dtype.
  using type = std::conditional_t<
      is_dtype_v<A> && is_dtype_v<B>,
      std::tuple_element_t<(is_dtype_v<A> && is_dtype_v<B>)
                               ? detail::dtype_promote_table[detail::dtype_index_v<A>]
                                                            [detail::dtype_index_v<B>]
                               : 0,
                           detail::dtype_list>,
      void>;
};

/// The result dtype of a binary op on A and B (promote<A, B>::type).
template <class A, class B>
using promote_t = typename promote<A, B>::type;

/// convert<To>(x): jnp `x.astype(To)`.
/// - to bool: x != 0 (NaN -> true); from bool: 0 or 1.
/// - between floats, and integer -> float: round to nearest even (float -> float exact).
/// - integer -> integer: modular (two's complement wrap), as XLA's convert.
/// - float -> integer: truncate toward zero; NaN -> 0; out of range saturates to the
///   integer's min or max (+-Inf included). XLA leaves out-of-range results
///   implementation-defined; we pick saturation so the result is defined and portable.
template <class To, class From>
[[nodiscard]] constexpr To convert(From x) noexcept {
  if constexpr (!(is_dtype_v<To> && is_dtype_v<From>)) {
    static_assert(is_dtype_v<To> && is_dtype_v<From>,
                  "pallas::convert: both the source and the target type must be pallas dtypes "
                  "(float, pallas::bfloat16, pallas::float16, std::int8_t, std::int16_t, "
                  "std::int32_t, std::uint32_t, bool)");
    return To{};
  } else if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (dtype_traits<From>::is_floating)
      return static_cast<float>(x) != 0.0f;
    else
      return x != 0;
  } else if constexpr (std::is_same_v<From, bool>) {
    return convert<To>(static_cast<std::int32_t>(x));
  } else if constexpr (dtype_traits<To>::is_floating) {
    if constexpr (std::is_same_v<To, float>)
      return static_cast<float>(x);
    else if constexpr (dtype_traits<From>::is_floating)
      return To(static_cast<float>(x));
    else
      return To(x);
  } else if constexpr (dtype_traits<From>::is_integral) {
    return static_cast<To>(x);
  } else {
    const double d = static_cast<double>(static_cast<float>(x));  // exact
    if (d != d) return To{0};
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    if (d >= hi + 1.0) return std::numeric_limits<To>::max();
    if (d <= lo - 1.0) return std::numeric_limits<To>::min();
    return static_cast<To>(d);
  }
}

/// @name Classification
/// @{

/// isnan / isinf / isfinite for every dtype (and any arithmetic type); constexpr.
/// std::isnan(bfloat16) also works, through the implicit conversion to float.
template <class T>
  requires(Dtype<T> || std::is_arithmetic_v<T>)
[[nodiscard]] constexpr bool isnan(T x) noexcept {
  if constexpr (std::is_same_v<T, bfloat16>)
    return (x.bits() & 0x7FFFu) > 0x7F80u;
  else if constexpr (std::is_same_v<T, float16>)
    return (x.bits() & 0x7FFFu) > 0x7C00u;
  else if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else
    return false;
}

template <class T>
  requires(Dtype<T> || std::is_arithmetic_v<T>)
[[nodiscard]] constexpr bool isinf(T x) noexcept {
  if constexpr (std::is_same_v<T, bfloat16>)
    return (x.bits() & 0x7FFFu) == 0x7F80u;
  else if constexpr (std::is_same_v<T, float16>)
    return (x.bits() & 0x7FFFu) == 0x7C00u;
  else if constexpr (std::is_floating_point_v<T>)
    return x == std::numeric_limits<T>::infinity() || x == -std::numeric_limits<T>::infinity();
  else
    return false;
}

template <class T>
  requires(Dtype<T> || std::is_arithmetic_v<T>)
[[nodiscard]] constexpr bool isfinite(T x) noexcept {
  return !pallas::isnan(x) && !pallas::isinf(x);
}
/// @}

}  // namespace pallas
