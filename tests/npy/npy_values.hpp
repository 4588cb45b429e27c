// SPDX-License-Identifier: Apache-2.0
// The element values of the .npy tests: value<T>(k, seed) is element k (C order) of a
// test array. tests/npy/numpy_roundtrip.py computes the same values in numpy; keep the
// two in step. Floats include -0, +-inf and a NaN, and every value is exact in bfloat16.
#pragma once

#include <pallas/dtype.hpp>
#include <pallas/shape.hpp>

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace npy_test {

inline float float_value(pallas::index_t k, int seed) {
  switch (k) {
    case 1:
      return -0.0f;
    case 2:
      return std::numeric_limits<float>::infinity();
    case 3:
      return -std::numeric_limits<float>::infinity();
    case 4:
      return std::numeric_limits<float>::quiet_NaN();
    default:
      return static_cast<float>(k % 16) * 0.5f - 3.25f + 4.0f * static_cast<float>(seed);
  }
}

template <class T>
T value(pallas::index_t k, int seed) {
  if constexpr (std::is_same_v<T, float>) {
    return float_value(k, seed);
  } else if constexpr (std::is_same_v<T, pallas::bfloat16> || std::is_same_v<T, pallas::float16>) {
    return T(float_value(k, seed));
  } else if constexpr (std::is_same_v<T, bool>) {
    return (k + seed) % 3 == 0;
  } else if constexpr (std::is_same_v<T, std::int8_t>) {
    return static_cast<std::int8_t>((k * 37 + seed * 11) % 256 - 128);
  } else if constexpr (std::is_same_v<T, std::int16_t>) {
    return static_cast<std::int16_t>((k * 1237 + seed * 7) % 65536 - 32768);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return static_cast<std::int32_t>(k * 100003 - 1073741824 + seed * 5);
  } else {
    static_assert(std::is_same_v<T, std::uint32_t>);
    return static_cast<std::uint32_t>(4000000000u - static_cast<std::uint32_t>(k) * 3u -
                                      static_cast<std::uint32_t>(seed));
  }
}

/// The bits of a value, so that NaN and -0 compare exactly.
template <class T>
std::uint32_t bits_of(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<std::uint32_t>(v);
  } else if constexpr (std::is_same_v<T, pallas::bfloat16> || std::is_same_v<T, pallas::float16>) {
    return v.bits();
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? 1u : 0u;
  } else {
    return static_cast<std::uint32_t>(v);
  }
}

}  // namespace npy_test
