// SPDX-License-Identifier: Apache-2.0
#pragma once
// The compile-time checks of pl::axis_index<"x", Mesh>() and pl::program_id<Axis>(grid): a
// failed one is a class template whose arguments carry what the message is about, so that
// both compilers print them ("in instantiation of ..."), the axis names as characters (clang
// prints a fixed_string template argument as character codes).

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include <pallas/fixed_string.hpp>
#include <pallas/tpu/device_mesh.hpp>
#include <pallas/tpu/mesh.hpp>

namespace pallas {

/// A mesh axis_index and axis_size can name axes of: a pltpu::TensorCoreMesh or a pl::device_mesh.
template <class T>
concept AxisMesh = tpu::Mesh<T> || DeviceMesh<T>;

}  // namespace pallas

namespace pallas::detail {

/// An axis name spelled as its characters: `axis_name_chars<'c', 'o', 'r', 'e'>`.
template <char... C>
struct axis_name_chars {};
/// The axis names of one mesh, as axis_name_chars.
template <class... Names>
struct mesh_axes {};

/// Mesh's axis names.
template <AxisMesh Mesh>
constexpr auto axis_names_of() {
  if constexpr (tpu::Mesh<Mesh>) {
    return std::array<std::string_view, 1>{Mesh::axis_name};
  } else {
    std::array<std::string_view, Mesh::num_axes> names{};
    for (std::size_t a = 0; a < names.size(); ++a) names[a] = Mesh::axis_names[a];
    return names;
  }
}
template <AxisMesh Mesh>
inline constexpr auto axis_names_v = axis_names_of<Mesh>();

template <AxisMesh Mesh, std::size_t K, std::size_t... I>
axis_name_chars<axis_names_v<Mesh>[K][I]...> spell_axis(std::index_sequence<I...>);
template <AxisMesh Mesh, std::size_t... K>
mesh_axes<decltype(spell_axis<Mesh, K>(std::make_index_sequence<axis_names_v<Mesh>[K].size()>{}))...> spell_mesh(
    std::index_sequence<K...>);
/// Mesh's axis names as mesh_axes<axis_name_chars<...>...>.
template <AxisMesh Mesh>
using spelled_mesh_axes = decltype(spell_mesh<Mesh>(std::make_index_sequence<axis_names_v<Mesh>.size()>{}));

template <fixed_string Name, std::size_t... I>
axis_name_chars<Name.chars[I]...> spell_name(std::index_sequence<I...>);
/// The axis name Name as axis_name_chars.
template <fixed_string Name>
using spelled_name = decltype(spell_name<Name>(std::make_index_sequence<Name.view().size()>{}));

/// Whether one of Meshes has an axis called Name.
template <fixed_string Name, AxisMesh... Meshes>
inline constexpr bool has_axis_v = ((std::find(axis_names_v<Meshes>.begin(), axis_names_v<Meshes>.end(),
                                               Name.view()) != axis_names_v<Meshes>.end()) ||
                                    ...);

/// What asked for an axis: pl::axis_index or pl::axis_size.
enum class axis_query { index, size };

/// Instantiated by axis_index<Name, Meshes...>() / axis_size<...>(): fails, naming the axis
/// and each mesh's axes in its template arguments, when no mesh has that axis.
template <axis_query Who, bool Found, class Axis, class... MeshAxes>
struct mesh_has_axis {
  static_assert(Found || Who != axis_query::index,
                "pallas::axis_index: no mesh given has this axis (mesh_has_axis<query, found, the axis, "
                "each mesh's axes...>)");
  static_assert(Found || Who != axis_query::size,
                "pallas::axis_size: no mesh given has this axis (mesh_has_axis<query, found, the axis, "
                "each mesh's axes...>)");
};

template <axis_query Who, fixed_string Name, AxisMesh... Meshes>
using mesh_axis_check =
    mesh_has_axis<Who, has_axis_v<Name, Meshes...>, spelled_name<Name>, spelled_mesh_axes<Meshes>...>;

/// What asked for a grid axis: pl::program_id or pl::num_programs.
enum class grid_query { program_id, num_programs };

/// Instantiated by program_id<Axis>(grid) / num_programs<Axis>(grid): fails, with the axis
/// and the grid's rank as its template arguments, when the grid has no axis Axis.
template <grid_query Who, int Axis, std::size_t GridRank, bool InRange = (Axis >= 0 && std::size_t(Axis) < GridRank)>
struct grid_has_axis {
  static_assert(InRange || Who != grid_query::program_id,
                "pallas::program_id: the grid has no such axis (0 <= Axis < GridRank in "
                "grid_has_axis<query, Axis, GridRank>)");
  static_assert(InRange || Who != grid_query::num_programs,
                "pallas::num_programs: the grid has no such axis (0 <= Axis < GridRank in "
                "grid_has_axis<query, Axis, GridRank>)");
};

}  // namespace pallas::detail
