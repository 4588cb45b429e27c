#pragma once
// pallas/dtype.hpp: the element types a kernel computes on, and what is known about them.
//
//   pallas::bfloat16, pallas::float16   16-bit floats (storage only; arithmetic in float)
//   pallas::dtype_traits<T>             bits, bytes, kind, jnp name, poison value
//   pallas::Dtype<T>, is_dtype_v<T>     exactly float, bfloat16, float16, std::int8_t,
//                                       std::int16_t, std::int32_t, std::uint32_t, bool
//   pallas::promote_t<A, B>             jnp type promotion between two dtypes
//   pallas::convert<To>(x)              jnp `astype`
//   pallas::isnan / isinf / isfinite    for every dtype (and every arithmetic type)
//
// Rounding: every conversion into bfloat16/float16 (from float, double or an integer) is
// a single correctly rounded round-to-nearest-even step, also for double and 64-bit
// integer sources (they go through a round-to-odd intermediate, so there is no double
// rounding). NaN stays NaN (made quiet, sign and leading payload bits kept), +-Inf stays
// Inf, -0 stays -0. Conversions to float are exact.

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace pallas {

struct bfloat16;
struct float16;

namespace detail {

// float -> bfloat16 bits, round to nearest even. bfloat16 is the upper half of a float.
constexpr std::uint16_t f32_to_bf16_bits(float f) noexcept {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7FFF'FFFFu) > 0x7F80'0000u)  // NaN: truncate the payload, set the quiet bit
    return static_cast<std::uint16_t>((x >> 16) | 0x0040u);
  x += 0x7FFFu + ((x >> 16) & 1u);  // carries into the exponent (up to Inf) as it must
  return static_cast<std::uint16_t>(x >> 16);
}

constexpr float bf16_bits_to_f32(std::uint16_t h) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
}

// float -> IEEE binary16 bits, round to nearest even, with subnormals and overflow to Inf.
constexpr std::uint16_t f32_to_f16_bits(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t a = x & 0x7FFF'FFFFu;
  if (a > 0x7F80'0000u)  // NaN: quiet, keep the leading payload bits
    return static_cast<std::uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x03FFu));
  if (a >= 0x477F'F000u)  // >= 65520 = 65504 + half an ulp: Inf (also Inf itself)
    return static_cast<std::uint16_t>(sign | 0x7C00u);
  if (a >= 0x3880'0000u) {  // >= 2^-14: normal binary16
    std::uint32_t r = a - 0x3800'0000u;  // rebias the exponent from 127 to 15
    r += 0x0FFFu + ((r >> 13) & 1u);      // round to nearest even on the 13 dropped bits
    return static_cast<std::uint16_t>(sign | (r >> 13));
  }
  const std::uint32_t e = a >> 23;
  if (e < 102) return sign;  // < 2^-25: below half the smallest subnormal (and 2^-25 ties to 0)
  // Subnormal binary16: value / 2^-24 = m >> (126 - e), with 14 <= shift <= 24.
  const std::uint32_t m = (a & 0x007F'FFFFu) | 0x0080'0000u;
  const std::uint32_t shift = 126u - e;
  std::uint32_t r = m >> shift;
  const std::uint32_t rem = m & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (r & 1u))) ++r;  // may carry into the smallest normal
  return static_cast<std::uint16_t>(sign | r);
}

constexpr float f16_bits_to_f32(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1Fu;
  const std::uint32_t m = h & 0x03FFu;
  if (e == 0x1Fu) return std::bit_cast<float>(sign | 0x7F80'0000u | (m << 13));  // Inf, NaN
  if (e == 0) {  // zero or subnormal: m * 2^-24, exact in float
    const float v = static_cast<float>(m) * 0x1p-24f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((e + 112u) << 23) | (m << 13));
}

// double -> float rounded to odd (truncate, then set the last bit if anything was lost).
// Rounding that to a format with at least two fewer significand bits (bfloat16: 8,
// float16: 11, against float's 24) with round-to-nearest-even gives the correctly rounded
// result of the double, which double -> float -> half with two RNE steps would not.
constexpr float f64_to_f32_round_odd(double d) noexcept {
  if (d != d) {  // NaN: quiet, keep sign and leading payload bits
    const auto u = std::bit_cast<std::uint64_t>(d);
    return std::bit_cast<float>((static_cast<std::uint32_t>(u >> 32) & 0x8000'0000u) |
                                0x7FC0'0000u |
                                static_cast<std::uint32_t>((u >> 29) & 0x007F'FFFFu));
  }
  constexpr double fmax = static_cast<double>(std::numeric_limits<float>::max());
  constexpr double dinf = std::numeric_limits<double>::infinity();
  if (d > fmax || d < -fmax) {  // beyond float: Inf stays Inf, finite -> max with sticky bit
    const std::uint32_t s = d < 0 ? 0x8000'0000u : 0u;
    return std::bit_cast<float>(s | ((d == dinf || d == -dinf) ? 0x7F80'0000u : 0x7F7F'FFFFu));
  }
  const float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) return f;
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const double af = f < 0 ? -static_cast<double>(f) : static_cast<double>(f);
  const double ad = d < 0 ? -d : d;
  if (af > ad) --u;  // f was rounded away from zero: step back (af > 0, sign unaffected)
  return std::bit_cast<float>(u | 1u);
}

// Integer -> double, exact up to 2^53 in magnitude and rounded to odd beyond (64-bit
// sources), so that a later rounding to a narrower format is still a single rounding.
template <std::integral I>
constexpr double int_to_f64_round_odd(I i) noexcept {
  static_assert(sizeof(I) <= 8, "pallas::detail::int_to_f64_round_odd: at most 64-bit integers");
  if constexpr (sizeof(I) <= 4) {
    return static_cast<double>(i);
  } else {
    const bool neg = i < 0;
    const std::uint64_t mag =
        neg ? std::uint64_t{0} - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
    double d = 0;
    if (mag < (std::uint64_t{1} << 53)) {
      d = static_cast<double>(mag);
    } else {
      const int s = static_cast<int>(std::bit_width(mag)) - 53;  // 1..11
      std::uint64_t m = mag >> s;
      if (mag & ((std::uint64_t{1} << s) - 1u)) m |= 1u;
      d = static_cast<double>(m) * static_cast<double>(std::uint64_t{1} << s);
    }
    return neg ? -d : d;
  }
}

}  // namespace detail

// bfloat16: 1 sign, 8 exponent, 7 mantissa bits; the upper half of a float. A storage
// type: conversion to float is implicit and exact, arithmetic and comparisons are done in
// float and rounded back (as jnp does), so `b + 1.0f` is a float. Construction from
// float, double and integers is explicit and rounds to nearest even. `bfloat16{x}` with
// an integer x is the value x; use from_bits for a bit pattern. The default constructor
// leaves the value uninitialized like float's; `bfloat16{}` is +0.
struct bfloat16 {
  // Public only so that bfloat16 is a structural type (usable as a template argument).
  // Prefer bits() and from_bits().
  std::uint16_t raw;

  bfloat16() = default;
  explicit constexpr bfloat16(float f) noexcept : raw(detail::f32_to_bf16_bits(f)) {}
  explicit constexpr bfloat16(double d) noexcept
      : raw(detail::f32_to_bf16_bits(detail::f64_to_f32_round_odd(d))) {}
  template <std::integral I>
  explicit constexpr bfloat16(I i) noexcept : bfloat16(detail::int_to_f64_round_odd(i)) {}

  [[nodiscard]] static constexpr bfloat16 from_bits(std::uint16_t b) noexcept {
    bfloat16 r{};
    r.raw = b;
    return r;
  }
  [[nodiscard]] constexpr std::uint16_t bits() const noexcept { return raw; }
  constexpr operator float() const noexcept { return detail::bf16_bits_to_f32(raw); }

  friend constexpr bfloat16 operator+(bfloat16 a) noexcept { return a; }
  friend constexpr bfloat16 operator-(bfloat16 a) noexcept {
    return from_bits(static_cast<std::uint16_t>(a.raw ^ 0x8000u));
  }
  friend constexpr bfloat16 operator+(bfloat16 a, bfloat16 b) noexcept {
    return bfloat16(float(a) + float(b));
  }
  friend constexpr bfloat16 operator-(bfloat16 a, bfloat16 b) noexcept {
    return bfloat16(float(a) - float(b));
  }
  friend constexpr bfloat16 operator*(bfloat16 a, bfloat16 b) noexcept {
    return bfloat16(float(a) * float(b));
  }
  friend constexpr bfloat16 operator/(bfloat16 a, bfloat16 b) noexcept {
    return bfloat16(float(a) / float(b));
  }
  constexpr bfloat16& operator+=(bfloat16 b) noexcept { return *this = *this + b; }
  constexpr bfloat16& operator-=(bfloat16 b) noexcept { return *this = *this - b; }
  constexpr bfloat16& operator*=(bfloat16 b) noexcept { return *this = *this * b; }
  constexpr bfloat16& operator/=(bfloat16 b) noexcept { return *this = *this / b; }
  constexpr bfloat16& operator+=(float b) noexcept { return *this = bfloat16(float(*this) + b); }
  constexpr bfloat16& operator-=(float b) noexcept { return *this = bfloat16(float(*this) - b); }
  constexpr bfloat16& operator*=(float b) noexcept { return *this = bfloat16(float(*this) * b); }
  constexpr bfloat16& operator/=(float b) noexcept { return *this = bfloat16(float(*this) / b); }

  friend constexpr bool operator==(bfloat16 a, bfloat16 b) noexcept { return float(a) == float(b); }
  friend constexpr bool operator!=(bfloat16 a, bfloat16 b) noexcept { return float(a) != float(b); }
  friend constexpr bool operator<(bfloat16 a, bfloat16 b) noexcept { return float(a) < float(b); }
  friend constexpr bool operator<=(bfloat16 a, bfloat16 b) noexcept { return float(a) <= float(b); }
  friend constexpr bool operator>(bfloat16 a, bfloat16 b) noexcept { return float(a) > float(b); }
  friend constexpr bool operator>=(bfloat16 a, bfloat16 b) noexcept { return float(a) >= float(b); }

  friend std::ostream& operator<<(std::ostream& os, bfloat16 x) { return os << float(x); }
};

// float16: IEEE 754 binary16 (1 sign, 5 exponent, 10 mantissa bits), with subnormals.
// Same interface and rules as bfloat16.
struct float16 {
  // Public only so that float16 is a structural type (usable as a template argument).
  // Prefer bits() and from_bits().
  std::uint16_t raw;

  float16() = default;
  explicit constexpr float16(float f) noexcept : raw(detail::f32_to_f16_bits(f)) {}
  explicit constexpr float16(double d) noexcept
      : raw(detail::f32_to_f16_bits(detail::f64_to_f32_round_odd(d))) {}
  template <std::integral I>
  explicit constexpr float16(I i) noexcept : float16(detail::int_to_f64_round_odd(i)) {}

  [[nodiscard]] static constexpr float16 from_bits(std::uint16_t b) noexcept {
    float16 r{};
    r.raw = b;
    return r;
  }
  [[nodiscard]] constexpr std::uint16_t bits() const noexcept { return raw; }
  constexpr operator float() const noexcept { return detail::f16_bits_to_f32(raw); }

  friend constexpr float16 operator+(float16 a) noexcept { return a; }
  friend constexpr float16 operator-(float16 a) noexcept {
    return from_bits(static_cast<std::uint16_t>(a.raw ^ 0x8000u));
  }
  friend constexpr float16 operator+(float16 a, float16 b) noexcept {
    return float16(float(a) + float(b));
  }
  friend constexpr float16 operator-(float16 a, float16 b) noexcept {
    return float16(float(a) - float(b));
  }
  friend constexpr float16 operator*(float16 a, float16 b) noexcept {
    return float16(float(a) * float(b));
  }
  friend constexpr float16 operator/(float16 a, float16 b) noexcept {
    return float16(float(a) / float(b));
  }
  constexpr float16& operator+=(float16 b) noexcept { return *this = *this + b; }
  constexpr float16& operator-=(float16 b) noexcept { return *this = *this - b; }
  constexpr float16& operator*=(float16 b) noexcept { return *this = *this * b; }
  constexpr float16& operator/=(float16 b) noexcept { return *this = *this / b; }
  constexpr float16& operator+=(float b) noexcept { return *this = float16(float(*this) + b); }
  constexpr float16& operator-=(float b) noexcept { return *this = float16(float(*this) - b); }
  constexpr float16& operator*=(float b) noexcept { return *this = float16(float(*this) * b); }
  constexpr float16& operator/=(float b) noexcept { return *this = float16(float(*this) / b); }

  friend constexpr bool operator==(float16 a, float16 b) noexcept { return float(a) == float(b); }
  friend constexpr bool operator!=(float16 a, float16 b) noexcept { return float(a) != float(b); }
  friend constexpr bool operator<(float16 a, float16 b) noexcept { return float(a) < float(b); }
  friend constexpr bool operator<=(float16 a, float16 b) noexcept { return float(a) <= float(b); }
  friend constexpr bool operator>(float16 a, float16 b) noexcept { return float(a) > float(b); }
  friend constexpr bool operator>=(float16 a, float16 b) noexcept { return float(a) >= float(b); }

  friend std::ostream& operator<<(std::ostream& os, float16 x) { return os << float(x); }
};

}  // namespace pallas

template <>
struct std::numeric_limits<pallas::bfloat16> {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr std::float_denorm_style has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr bool is_iec559 = false;  // not an IEEE 754 interchange format
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 8;
  static constexpr int digits10 = 2;
  static constexpr int max_digits10 = 4;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -125;
  static constexpr int min_exponent10 = -37;
  static constexpr int max_exponent = 128;
  static constexpr int max_exponent10 = 38;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  static constexpr pallas::bfloat16 min() noexcept { return pallas::bfloat16::from_bits(0x0080); }
  static constexpr pallas::bfloat16 lowest() noexcept { return pallas::bfloat16::from_bits(0xFF7F); }
  static constexpr pallas::bfloat16 max() noexcept { return pallas::bfloat16::from_bits(0x7F7F); }
  static constexpr pallas::bfloat16 epsilon() noexcept { return pallas::bfloat16::from_bits(0x3C00); }
  static constexpr pallas::bfloat16 round_error() noexcept { return pallas::bfloat16::from_bits(0x3F00); }
  static constexpr pallas::bfloat16 infinity() noexcept { return pallas::bfloat16::from_bits(0x7F80); }
  static constexpr pallas::bfloat16 quiet_NaN() noexcept { return pallas::bfloat16::from_bits(0x7FC0); }
  static constexpr pallas::bfloat16 signaling_NaN() noexcept { return pallas::bfloat16::from_bits(0x7FA0); }
  static constexpr pallas::bfloat16 denorm_min() noexcept { return pallas::bfloat16::from_bits(0x0001); }
};

template <>
struct std::numeric_limits<pallas::float16> {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr std::float_denorm_style has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr bool is_iec559 = true;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 11;
  static constexpr int digits10 = 3;
  static constexpr int max_digits10 = 5;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -13;
  static constexpr int min_exponent10 = -4;
  static constexpr int max_exponent = 16;
  static constexpr int max_exponent10 = 4;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  static constexpr pallas::float16 min() noexcept { return pallas::float16::from_bits(0x0400); }
  static constexpr pallas::float16 lowest() noexcept { return pallas::float16::from_bits(0xFBFF); }
  static constexpr pallas::float16 max() noexcept { return pallas::float16::from_bits(0x7BFF); }
  static constexpr pallas::float16 epsilon() noexcept { return pallas::float16::from_bits(0x1400); }
  static constexpr pallas::float16 round_error() noexcept { return pallas::float16::from_bits(0x3800); }
  static constexpr pallas::float16 infinity() noexcept { return pallas::float16::from_bits(0x7C00); }
  static constexpr pallas::float16 quiet_NaN() noexcept { return pallas::float16::from_bits(0x7E00); }
  static constexpr pallas::float16 signaling_NaN() noexcept { return pallas::float16::from_bits(0x7D00); }
  static constexpr pallas::float16 denorm_min() noexcept { return pallas::float16::from_bits(0x0001); }
};

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

// True exactly for the eight dtypes (cv-unqualified): float, bfloat16, float16,
// std::int8_t, std::int16_t, std::int32_t, std::uint32_t, bool.
template <class T>
inline constexpr bool is_dtype_v = detail::dtype_index_v<T> >= 0;

template <class T>
concept Dtype = is_dtype_v<T>;

// dtype_traits<T>: bits, bytes (std::int64_t), is_floating, is_integral, is_signed,
// name (jnp spelling), poison() (the fill of uninitialized memory in checked mode).
template <class T>
struct dtype_traits {
  static_assert(detail::dtype_dependent_false_v<T>,
                "pallas::dtype_traits: T is not a pallas dtype (float, pallas::bfloat16, "
                "pallas::float16, std::int8_t, std::int16_t, std::int32_t, std::uint32_t, bool)");
  // Placeholders, so that the static_assert above is the only error.
  static constexpr std::int64_t bytes = 0;
  static constexpr std::int64_t bits = 0;
  static constexpr bool is_floating = false;
  static constexpr bool is_integral = false;
  static constexpr bool is_signed = false;
  static constexpr std::string_view name = "";
};

template <>
struct dtype_traits<float> : detail::dtype_traits_base<float, true, false, true> {
  static constexpr std::string_view name = "float32";
  static constexpr float poison() noexcept { return std::numeric_limits<float>::quiet_NaN(); }
};
template <>
struct dtype_traits<bfloat16> : detail::dtype_traits_base<bfloat16, true, false, true> {
  static constexpr std::string_view name = "bfloat16";
  static constexpr bfloat16 poison() noexcept { return std::numeric_limits<bfloat16>::quiet_NaN(); }
};
template <>
struct dtype_traits<float16> : detail::dtype_traits_base<float16, true, false, true> {
  static constexpr std::string_view name = "float16";
  static constexpr float16 poison() noexcept { return std::numeric_limits<float16>::quiet_NaN(); }
};
template <>
struct dtype_traits<std::int8_t> : detail::dtype_traits_base<std::int8_t, false, true, true> {
  static constexpr std::string_view name = "int8";
  static constexpr std::int8_t poison() noexcept { return std::numeric_limits<std::int8_t>::min(); }
};
template <>
struct dtype_traits<std::int16_t> : detail::dtype_traits_base<std::int16_t, false, true, true> {
  static constexpr std::string_view name = "int16";
  static constexpr std::int16_t poison() noexcept { return std::numeric_limits<std::int16_t>::min(); }
};
template <>
struct dtype_traits<std::int32_t> : detail::dtype_traits_base<std::int32_t, false, true, true> {
  static constexpr std::string_view name = "int32";
  static constexpr std::int32_t poison() noexcept { return std::numeric_limits<std::int32_t>::min(); }
};
template <>
struct dtype_traits<std::uint32_t> : detail::dtype_traits_base<std::uint32_t, false, true, false> {
  static constexpr std::string_view name = "uint32";
  static constexpr std::uint32_t poison() noexcept { return std::numeric_limits<std::uint32_t>::max(); }
};
template <>
struct dtype_traits<bool> : detail::dtype_traits_base<bool, false, false, false> {
  static constexpr std::string_view name = "bool";
  static constexpr bool poison() noexcept { return true; }
};

// promote<A, B>::type / promote_t<A, B>: the result dtype of a binary op on A and B, as
// jnp.promote_types, except that a signed integer with uint32 gives int32 (jnp: int64,
// which pallas does not have). bool with X -> X; integer with a float -> that float;
// bfloat16 with float16 -> float; the wider of two signed integers.
template <class A, class B>
struct promote {
  static_assert(is_dtype_v<A> && is_dtype_v<B>,
                "pallas::promote: both operands must be pallas dtypes (float, pallas::bfloat16, "
                "pallas::float16, std::int8_t, std::int16_t, std::int32_t, std::uint32_t, bool)");
  using type = std::conditional_t<
      is_dtype_v<A> && is_dtype_v<B>,
      std::tuple_element_t<(is_dtype_v<A> && is_dtype_v<B>)
                               ? detail::dtype_promote_table[detail::dtype_index_v<A>]
                                                            [detail::dtype_index_v<B>]
                               : 0,
                           detail::dtype_list>,
      void>;
};

template <class A, class B>
using promote_t = typename promote<A, B>::type;

// convert<To>(x): jnp `x.astype(To)`.
// - to bool: x != 0 (NaN -> true); from bool: 0 or 1.
// - between floats, and integer -> float: round to nearest even (float -> float exact).
// - integer -> integer: modular (two's complement wrap), as XLA's convert.
// - float -> integer: truncate toward zero; NaN -> 0; out of range saturates to the
//   integer's min or max (+-Inf included). XLA leaves out-of-range results
//   implementation-defined; we pick saturation so the result is defined and portable.
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

// isnan / isinf / isfinite for every dtype (and any arithmetic type); constexpr.
// std::isnan(bfloat16) also works, through the implicit conversion to float.
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

}  // namespace pallas
