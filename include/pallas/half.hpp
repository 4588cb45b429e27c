// SPDX-License-Identifier: Apache-2.0
#pragma once
// pallas/half.hpp: the 16-bit floats, pallas::bfloat16 and pallas::float16 (storage types:
// arithmetic in float), and their std::numeric_limits.
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

/// bfloat16: 1 sign, 8 exponent, 7 mantissa bits; the upper half of a float. A storage
/// type: conversion to float is implicit and exact, arithmetic and comparisons are done in
/// float and rounded back (as jnp does), so `b + 1.0f` is a float. Construction from
/// float, double and integers is explicit and rounds to nearest even. `bfloat16{x}` with
/// an integer x is the value x; use from_bits for a bit pattern. The default constructor
/// leaves the value uninitialized like float's; `bfloat16{}` is +0.
struct bfloat16 {
  /// The bit pattern. Public only so that bfloat16 is a structural type (usable as a
  /// template argument); prefer bits() and from_bits().
  std::uint16_t raw;

  /// Uninitialized, like float; `bfloat16{}` is +0.
  bfloat16() = default;
  /// @name Conversions
  /// @{

  /// The nearest bfloat16 (round to nearest even; from double without double rounding; an
  /// integer converts to its value).
  explicit constexpr bfloat16(float f) noexcept : raw(detail::f32_to_bf16_bits(f)) {}
  explicit constexpr bfloat16(double d) noexcept
      : raw(detail::f32_to_bf16_bits(detail::f64_to_f32_round_odd(d))) {}
  template <std::integral I>
  explicit constexpr bfloat16(I i) noexcept : bfloat16(detail::int_to_f64_round_odd(i)) {}

  /// @}
  /// The bfloat16 with bit pattern `b`.
  [[nodiscard]] static constexpr bfloat16 from_bits(std::uint16_t b) noexcept {
    bfloat16 r{};
    r.raw = b;
    return r;
  }
  /// The bit pattern.
  [[nodiscard]] constexpr std::uint16_t bits() const noexcept { return raw; }
  /// The value as a float (exact).
  constexpr operator float() const noexcept { return detail::bf16_bits_to_f32(raw); }

  /// @name Arithmetic
  /// @{

  /// Computed in float and rounded back to bfloat16, as jnp does.
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
  /// @}

  /// @name Comparisons
  /// @{

  /// As floats (NaN compares unequal to everything, +0 equals -0).
  friend constexpr bool operator==(bfloat16 a, bfloat16 b) noexcept { return float(a) == float(b); }
  friend constexpr bool operator!=(bfloat16 a, bfloat16 b) noexcept { return float(a) != float(b); }
  friend constexpr bool operator<(bfloat16 a, bfloat16 b) noexcept { return float(a) < float(b); }
  friend constexpr bool operator<=(bfloat16 a, bfloat16 b) noexcept { return float(a) <= float(b); }
  friend constexpr bool operator>(bfloat16 a, bfloat16 b) noexcept { return float(a) > float(b); }
  friend constexpr bool operator>=(bfloat16 a, bfloat16 b) noexcept { return float(a) >= float(b); }
  /// @}

  /// Prints the value as a float.
  friend std::ostream& operator<<(std::ostream& os, bfloat16 x) { return os << float(x); }
};

/// float16: IEEE 754 binary16 (1 sign, 5 exponent, 10 mantissa bits), with subnormals.
/// Same interface and rules as bfloat16.
struct float16 {
  /// The bit pattern. Public only so that float16 is a structural type (usable as a
  /// template argument); prefer bits() and from_bits().
  std::uint16_t raw;

  /// Uninitialized, like float; `float16{}` is +0.
  float16() = default;
  /// @name Conversions
  /// @{

  /// The nearest float16 (round to nearest even; from double without double rounding; an
  /// integer converts to its value).
  explicit constexpr float16(float f) noexcept : raw(detail::f32_to_f16_bits(f)) {}
  explicit constexpr float16(double d) noexcept
      : raw(detail::f32_to_f16_bits(detail::f64_to_f32_round_odd(d))) {}
  template <std::integral I>
  explicit constexpr float16(I i) noexcept : float16(detail::int_to_f64_round_odd(i)) {}

  /// @}
  /// The float16 with bit pattern `b`.
  [[nodiscard]] static constexpr float16 from_bits(std::uint16_t b) noexcept {
    float16 r{};
    r.raw = b;
    return r;
  }
  /// The bit pattern.
  [[nodiscard]] constexpr std::uint16_t bits() const noexcept { return raw; }
  /// The value as a float (exact).
  constexpr operator float() const noexcept { return detail::f16_bits_to_f32(raw); }

  /// @name Arithmetic
  /// @{

  /// Computed in float and rounded back to float16, as jnp does.
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
  /// @}

  /// @name Comparisons
  /// @{

  /// As floats (NaN compares unequal to everything, +0 equals -0).
  friend constexpr bool operator==(float16 a, float16 b) noexcept { return float(a) == float(b); }
  friend constexpr bool operator!=(float16 a, float16 b) noexcept { return float(a) != float(b); }
  friend constexpr bool operator<(float16 a, float16 b) noexcept { return float(a) < float(b); }
  friend constexpr bool operator<=(float16 a, float16 b) noexcept { return float(a) <= float(b); }
  friend constexpr bool operator>(float16 a, float16 b) noexcept { return float(a) > float(b); }
  friend constexpr bool operator>=(float16 a, float16 b) noexcept { return float(a) >= float(b); }
  /// @}

  /// Prints the value as a float.
  friend std::ostream& operator<<(std::ostream& os, float16 x) { return os << float(x); }
};

}  // namespace pallas

// std::numeric_limits for both (min, max, epsilon, infinity, NaNs, denorm_min, ...).
/// @cond PALLAS_STD_SPECIALIZATIONS
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
/// @endcond
