// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::CostEstimate: what a kernel's author expects it to cost (`pl.CostEstimate(flops=...,
// transcendentals=..., bytes_accessed=...)`), passed to pallas_call as an option:
//
//   pl::pallas_call(kernel, pl::out_shape<...>, pl::grid<...>, ...,
//                   pl::CostEstimate{.flops = 2 * m * n * k, .transcendentals = 0,
//                                    .bytes_accessed = (m * k + k * n + m * n) * 4});
//
// XLA schedules around a Pallas kernel with it; here it is compared with what the launch
// measured (pltpu::last_launch_report(), tpu/cost_report.hpp).

#include <cstdint>
#include <type_traits>

namespace pallas {

/// `pl.CostEstimate(flops, transcendentals, bytes_accessed, remote_bytes_transferred)`:
/// what the caller expects a pallas_call to cost; pltpu::last_launch_report() compares it
/// with what the launch measured.
struct CostEstimate {
  std::int64_t flops = 0;  ///< floating-point operations
  std::int64_t transcendentals = 0;  ///< exp, log, ... (not measured)
  std::int64_t bytes_accessed = 0;            ///< bytes read from and written to HBM
  std::int64_t remote_bytes_transferred = 0;  ///< bytes sent to other chips

  /// All fields equal.
  constexpr bool operator==(CostEstimate const&) const = default;
};

namespace detail {
template <class T>
struct is_cost_estimate : std::is_same<T, CostEstimate> {};
}  // namespace detail

}  // namespace pallas
