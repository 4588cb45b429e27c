// SPDX-License-Identifier: Apache-2.0
#pragma once
// A mesh of chips with named axes, as `jax.sharding.Mesh(devices, ('x',))`:
//
//   using ring = pl::device_mesh<"x", 4>;           // 4 chips on axis 'x'
//   using grid = pl::device_mesh<"x", 2, "y", 2>;   // 2 x 2 chips, 'y' varies fastest
//
// Chip c's coordinates are c in row-major order over the axes (the last axis varies
// fastest), as jax numbers a mesh's devices. pl::shard_map (tpu/shard_map.hpp) runs a
// kernel on every chip; inside, `pl::axis_index<"x">()` is the chip's coordinate.

#include <array>
#include <type_traits>
#include <string_view>

#include <pallas/fixed_string.hpp>

namespace pallas {

/// `jax.sharding.Mesh(devices, axis_names)` of chips: `pl::device_mesh<"x", 4>`,
/// `pl::device_mesh<"x", 2, "y", 2>` (up to 3 axes; chips numbered row-major, last axis
/// fastest). Each chip has its own HBM and TensorCores; pl::shard_map launches on all.
template <fixed_string A0, int N0, fixed_string A1 = "", int N1 = 1, fixed_string A2 = "", int N2 = 1>
struct device_mesh {
  static_assert(N0 >= 1 && N1 >= 1 && N2 >= 1, "pallas::device_mesh: every axis needs at least one chip");
  static constexpr int num_axes = A1.view().empty() ? 1 : A2.view().empty() ? 2 : 3;  ///< 1, 2 or 3
  static_assert(!A0.view().empty() && A0.view() != A1.view() && A0.view() != A2.view() &&
                    (num_axes < 3 || A1.view() != A2.view()),
                "pallas::device_mesh: axis names must be non-empty and distinct");
  static constexpr std::array<std::string_view, 3> axis_names{A0.view(), A1.view(), A2.view()};  ///< the axes' names (unused ones empty)
  static constexpr std::array<int, 3> axis_sizes{N0, N1, N2};  ///< chips along each axis (unused ones 1)
  static constexpr int num_chips = N0 * N1 * N2;  ///< chips in the mesh
};

namespace detail {
template <class T>
struct is_device_mesh : std::false_type {};
template <fixed_string A0, int N0, fixed_string A1, int N1, fixed_string A2, int N2>
struct is_device_mesh<device_mesh<A0, N0, A1, N1, A2, N2>> : std::true_type {};
}  // namespace detail

/// A pl::device_mesh type.
template <class T>
concept DeviceMesh = detail::is_device_mesh<T>::value;

}  // namespace pallas
