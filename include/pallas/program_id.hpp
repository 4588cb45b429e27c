#pragma once
// Where a core is: pl::axis_index<"core">() (which core of the mesh), pl::program_id(a)
// and pl::num_programs(a) (the grid step a pipeline or pallas_call body is running).

#include <string_view>

#include <pallas/error.hpp>
#include <pallas/fixed_string.hpp>
#include <pallas/shape.hpp>
#include <pallas/tpu/device.hpp>

namespace pallas {

/// `jax.lax.axis_index(name)`: this core's index along the mesh axis `Name`.
template <fixed_string Name>
index_t axis_index() {
  auto& core = detail::this_core("axis_index");
  if (core.launch->axis_name != Name.view())
    detail::fail("pallas::axis_index: the mesh has no axis named '", Name.view(), "' (its axis is '",
                 core.launch->axis_name, "')");
  return core.index;
}

/// `jax.lax.axis_size(name)`: the number of cores along the mesh axis `Name`.
template <fixed_string Name>
index_t axis_size() {
  auto& core = detail::this_core("axis_size");
  if (core.launch->axis_name != Name.view())
    detail::fail("pallas::axis_size: the mesh has no axis named '", Name.view(), "' (its axis is '",
                 core.launch->axis_name, "')");
  return core.launch->num_cores;
}

namespace detail {
inline grid_frame const& current_grid(char const* who, int axis) {
  auto& core = this_core(who);
  if (!core.grid) fail("pallas::", who, ": no grid here (call it inside a pipeline or pallas_call body)");
  if (axis < 0 || axis >= core.grid->rank)
    fail("pallas::", who, ": axis ", axis, " is out of range for a grid of rank ", core.grid->rank);
  return *core.grid;
}
}  // namespace detail

/// `pl.program_id(axis)`: the global grid coordinate of the running step.
inline index_t program_id(int axis) { return detail::current_grid("program_id", axis).program_id[axis]; }

/// `pl.num_programs(axis)`: the grid's extent along `axis`.
inline index_t num_programs(int axis) {
  return detail::current_grid("num_programs", axis).num_programs[axis];
}

}  // namespace pallas
