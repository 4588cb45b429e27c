// SPDX-License-Identifier: Apache-2.0
#pragma once
// What uninitialized memory holds (outputs, scratch, pipeline slots, the padding of ragged
// blocks), under the launch's policy (tpu/interpret_params.hpp).

#include <limits>
#include <type_traits>

#include <pallas/config.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/dtype.hpp>

namespace pallas::detail {

/// The interpreter's 'nan' fill: NaN for floats, the largest value for integers, true.
template <class T>
constexpr T interpret_nan() noexcept {
  if constexpr (std::is_same_v<T, bool>)
    return true;
  else if constexpr (std::numeric_limits<T>::has_quiet_NaN)
    return std::numeric_limits<T>::quiet_NaN();
  else
    return std::numeric_limits<T>::max();
}

/// The fill of uninitialized memory under `policy`, or false when nothing is filled (the
/// default, unchecked).
template <class T>
constexpr bool uninitialized_fill(uninitialized_policy policy, T& value) noexcept {
  switch (policy) {
    case uninitialized_policy::nan: value = interpret_nan<T>(); return true;
    case uninitialized_policy::zero: value = T{}; return true;
    default: value = dtype_traits<T>::poison(); return checked_mode;
  }
}

}  // namespace pallas::detail
