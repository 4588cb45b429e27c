// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where a core is: pl::axis_index<"core">() (which core of the mesh), pl::program_id(a)
// and pl::num_programs(a) (the grid step a pipeline or pallas_call body is running). The
// checked forms pl::axis_index<"x", Mesh>() and pl::program_id<a>(grid) reject, at compile
// time, an axis the mesh or grid does not have.

#include <string>
#include <string_view>

#include <pallas/detail/runtime/chip_set.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/detail/static_axis_checks.hpp>
#include <pallas/error.hpp>
#include <pallas/fixed_string.hpp>
#include <pallas/grid.hpp>
#include <pallas/shape.hpp>

namespace pallas {

/// `jax.lax.axis_index(name)`: this core's index along the core mesh axis `Name`, or, in a
/// launch on a device mesh (tpu/device_mesh.hpp), its chip's coordinate along `Name`. With
/// the meshes of the launch, `axis_index<"x", Mesh>()` (or `<"x", ChipMesh, CoreMesh>`), a
/// name none of them has is a compile-time error instead of a run-time one.
template <fixed_string Name, AxisMesh... Meshes>
index_t axis_index() {
  if constexpr (sizeof...(Meshes) > 0) (void)detail::mesh_axis_check<detail::axis_query::index, Name, Meshes...>{};
  auto& core = detail::this_core("axis_index");
  if (core.launch->axis_name == Name.view()) return detail::local_core_index(core);
  if (detail::chip_context const* chips = core.launch->chips)
    if (int const a = chips->axis_of(Name.view()); a >= 0) return chips->coordinate(detail::chip_index(core), a);
  detail::fail("pallas::axis_index: the mesh has no axis named '", Name.view(), "' (its axes are '",
               core.launch->axis_name, "'", core.launch->chips ? ", " + core.launch->chips->axes_list() : "", ")");
}

/// `jax.lax.axis_size(name)`: the number of cores (or chips) along the mesh axis `Name`;
/// `axis_size<"x", Mesh>()` checks at compile time that a mesh given has the axis.
template <fixed_string Name, AxisMesh... Meshes>
index_t axis_size() {
  if constexpr (sizeof...(Meshes) > 0) (void)detail::mesh_axis_check<detail::axis_query::size, Name, Meshes...>{};
  auto& core = detail::this_core("axis_size");
  if (core.launch->axis_name == Name.view()) return core.launch->cores_per_chip;
  if (detail::chip_context const* chips = core.launch->chips)
    if (int const a = chips->axis_of(Name.view()); a >= 0) return chips->axis_sizes[a];
  detail::fail("pallas::axis_size: the mesh has no axis named '", Name.view(), "' (its axes are '",
               core.launch->axis_name, "'", core.launch->chips ? ", " + core.launch->chips->axes_list() : "", ")");
}

namespace detail {
/// The grid step of the calling code: an index map being evaluated, else the core's step.
inline grid_frame const& current_grid(char const* who, int axis) {
  grid_frame const* grid = index_map_frame;
  if (!grid) grid = this_core(who).grid;
  if (!grid) fail("pallas::", who, ": no grid here (call it inside a pipeline or pallas_call body or index map)");
  if (axis < 0 || axis >= grid->rank)
    fail("pallas::", who, ": axis ", axis, " is out of range for a grid of rank ", grid->rank);
  return *grid;
}
}  // namespace detail

/// `pl.program_id(axis)`: the global grid coordinate of the running step.
inline index_t program_id(int axis) { return detail::current_grid("program_id", axis).program_id[axis]; }

/// `pl.num_programs(axis)`: the grid's extent along `axis` (in an emit_pipeline split among
/// cores, the core's share of the split axis, as in Pallas; pltpu::global_num_programs
/// gives the whole grid's).
inline index_t num_programs(int axis) {
  return detail::current_grid("num_programs", axis).num_programs[axis];
}

namespace detail {
/// program_id(axis) (or, with `extent`, num_programs(axis)) of the running grid, which must
/// have the rank of the grid the caller named.
inline index_t grid_coordinate(char const* who, int axis, std::size_t rank, bool extent) {
  grid_frame const& grid = current_grid(who, axis);
  if (static_cast<std::size_t>(grid.rank) != rank)
    fail("pallas::", who, ": the grid given has rank ", rank, " but the running grid has rank ", grid.rank);
  return extent ? grid.num_programs[axis] : grid.program_id[axis];
}
}  // namespace detail

/// `pl.program_id(Axis)` checked against the kernel's grid: `pl::program_id<1>(grid)`, where
/// `grid` is the pl::grid of the pallas_call or pipeline; an axis the grid does not have is
/// a compile-time error.
template <int Axis, index_t... Es>
index_t program_id(grid_t<Es...> const&) {
  (void)detail::grid_has_axis<detail::grid_query::program_id, Axis, sizeof...(Es)>{};
  return detail::grid_coordinate("program_id", Axis, sizeof...(Es), false);
}

/// `pl.num_programs(Axis)` checked against the kernel's grid: `pl::num_programs<1>(grid)`.
template <int Axis, index_t... Es>
index_t num_programs(grid_t<Es...> const&) {
  (void)detail::grid_has_axis<detail::grid_query::num_programs, Axis, sizeof...(Es)>{};
  return detail::grid_coordinate("num_programs", Axis, sizeof...(Es), true);
}

}  // namespace pallas
