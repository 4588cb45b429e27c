// SPDX-License-Identifier: Apache-2.0
#pragma once
// `jax.sharding.PartitionSpec` for pl::shard_map: which mesh axis splits each dimension of
// a global array.
//
//   pl::P<"x">            // dim 0 split over mesh axis 'x', the others whole on every chip
//   pl::P<nullptr, "x">   // dim 0 whole (replicated), dim 1 split over 'x'
//   pl::P<"x", "y">       // on a 2-D mesh: dim 0 over 'x', dim 1 over 'y'
//   pl::P<>               // replicated: every chip sees the whole array
//
// A spec shorter than the array's rank leaves the remaining dimensions whole, as in jax.
// Chip c's shard of a dimension split over axis a is the block numbered by c's coordinate
// on a (device_mesh.hpp numbers chips row-major).

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include <pallas/array.hpp>
#include <pallas/fixed_string.hpp>
#include <pallas/tpu/device_mesh.hpp>

namespace pallas {

/// `jax.sharding.PartitionSpec(...)`: one entry per leading dimension, a mesh axis name or
/// `nullptr` (that dimension replicated).
template <fixed_string... Axes>
struct P {
  static constexpr std::size_t size = sizeof...(Axes);  ///< the dimensions it names
  static constexpr std::array<std::string_view, sizeof...(Axes)> axes{Axes.view()...};  ///< "" = replicated
};

/// `in_specs=(P(...), ...)` of pl::shard_map: one pl::P per input.
template <class... Specs>
struct shard_in_specs_t {};
/// `in_specs=(P(...), ...)` of pl::shard_map: one pl::P per input.
template <class... Specs>
inline constexpr shard_in_specs_t<Specs...> shard_in_specs{};

/// `out_specs=(P(...), ...)` of pl::shard_map: one pl::P per output of the kernel.
template <class... Specs>
struct shard_out_specs_t {};
/// `out_specs=(P(...), ...)` of pl::shard_map: one pl::P per output of the kernel.
template <class... Specs>
inline constexpr shard_out_specs_t<Specs...> shard_out_specs{};

namespace detail {

template <class T>
struct is_partition_spec : std::false_type {};
template <fixed_string... A>
struct is_partition_spec<P<A...>> : std::true_type {};

/// The mesh axis (its position in Mesh) that splits dimension d under Spec, or -1.
template <DeviceMesh Mesh, class Spec>
constexpr int spec_axis(std::size_t d) {
  if (d >= Spec::size || Spec::axes[d].empty()) return -1;
  for (int a = 0; a < Mesh::num_axes; ++a)
    if (Mesh::axis_names[static_cast<std::size_t>(a)] == Spec::axes[d]) return a;
  return -2;
}

/// Spec is well formed for a rank-Rank array on Mesh (static_asserts say what is wrong).
template <DeviceMesh Mesh, class Spec, std::size_t Rank>
constexpr bool check_spec() {
  static_assert(is_partition_spec<Spec>::value, "pallas::shard_map: every in/out spec must be a pl::P<...>");
  static_assert(Spec::size <= Rank, "pallas::shard_map: a PartitionSpec has more entries than its array has dimensions");
  constexpr bool known = [] {
    for (std::size_t d = 0; d < Spec::size; ++d)
      if (spec_axis<Mesh, Spec>(d) == -2) return false;
    return true;
  }();
  static_assert(known, "pallas::shard_map: a PartitionSpec names an axis the device mesh does not have");
  constexpr bool distinct = [] {
    for (std::size_t d = 0; d < Spec::size; ++d)
      for (std::size_t e = d + 1; e < Spec::size; ++e)
        if (!Spec::axes[d].empty() && Spec::axes[d] == Spec::axes[e]) return false;
    return true;
  }();
  static_assert(distinct, "pallas::shard_map: a PartitionSpec names one mesh axis for two dimensions");
  return true;
}

/// How many chips split dimension d under Spec (1: replicated).
template <DeviceMesh Mesh, class Spec>
constexpr int spec_split(std::size_t d) {
  int const a = spec_axis<Mesh, Spec>(d);
  return a < 0 ? 1 : Mesh::axis_sizes[static_cast<std::size_t>(a)];
}

/// A dimension of Size elements split over MeshAxisSize chips: a compile-time error naming
/// the dimension, its size and the axis size when they do not divide (a function, so that
/// the failure is the only error: the shard's type below does not depend on it).
template <std::size_t Dimension, index_t Size, int MeshAxisSize>
constexpr void check_shard_extent() {
  static_assert(Size % MeshAxisSize == 0,
                "pallas::shard_map: a sharded dimension's size is not a multiple of its mesh axis' size "
                "(check_shard_extent<Dimension, Size, MeshAxisSize>)");
}

template <DeviceMesh Mesh, class Spec, class Global, class = std::make_index_sequence<Global::rank()>>
struct shard_array;
/// The Array each chip sees of a global Array<T, D...> split by Spec.
template <DeviceMesh Mesh, class Spec, class T, index_t... D, std::size_t... I>
struct shard_array<Mesh, Spec, Array<T, D...>, std::index_sequence<I...>> {
  static_assert(check_spec<Mesh, Spec, sizeof...(D)>());
  using type = Array<T, (D / spec_split<Mesh, Spec>(I))...>;  ///< one chip's shard
  /// Every split dimension divides (compile-time errors otherwise).
  static constexpr void check() { (check_shard_extent<I, D, spec_split<Mesh, Spec>(I)>(), ...); }
};

template <DeviceMesh Mesh, class Spec, class Shard, class = std::make_index_sequence<Shard::rank()>>
struct global_array;
/// The global Array assembled from per-chip Array<T, D...> shards laid out by Spec.
template <DeviceMesh Mesh, class Spec, class T, index_t... D, std::size_t... I>
struct global_array<Mesh, Spec, Array<T, D...>, std::index_sequence<I...>> {
  static_assert(check_spec<Mesh, Spec, sizeof...(D)>());
  using type = Array<T, (D * spec_split<Mesh, Spec>(I))...>;  ///< the whole array
};

/// Chip `chip`'s coordinate on every axis of Mesh (row-major, last axis fastest).
template <DeviceMesh Mesh>
std::array<int, 3> chip_coordinates(int chip) {
  std::array<int, 3> coords{};
  for (int a = Mesh::num_axes; a-- > 0;) {
    coords[static_cast<std::size_t>(a)] = chip % Mesh::axis_sizes[static_cast<std::size_t>(a)];
    chip /= Mesh::axis_sizes[static_cast<std::size_t>(a)];
  }
  return coords;
}

/// Calls f(k, g) for every element of chip `chip`'s shard under Spec: k its index in the
/// shard, g in the global array (both row-major).
template <DeviceMesh Mesh, class Spec, class Global, class Shard, class F>
void for_each_shard_element(Global const& global, Shard const& shard, int chip, F f) {
  constexpr std::size_t rank = Shard::rank();
  auto const coords = chip_coordinates<Mesh>(chip);
  std::array<index_t, rank> offset{};
  for (std::size_t d = 0; d < rank; ++d)
    if (int const a = spec_axis<Mesh, Spec>(d); a >= 0) offset[d] = coords[static_cast<std::size_t>(a)] * shard.extent(d);
  std::array<index_t, rank> ix{};
  for (index_t k = 0; k < shard.size(); ++k) {
    index_t g = 0;
    for (std::size_t d = 0; d < rank; ++d) g = g * global.extent(d) + offset[d] + ix[d];
    f(k, g);
    for (std::size_t r = rank; r-- > 0;) {  // advance the multi-index, last fastest
      if (++ix[r] < shard.extent(r)) break;
      ix[r] = 0;
    }
  }
}

/// Whether chip `chip` is the one that writes its block of an output laid out by Spec: its
/// coordinate is 0 on every mesh axis Spec does not name (a replicated output is chip 0's).
template <DeviceMesh Mesh, class Spec>
bool writes_global_block(int chip) {
  auto const coords = chip_coordinates<Mesh>(chip);
  for (int a = 0; a < Mesh::num_axes; ++a) {
    bool named = false;
    for (std::size_t d = 0; d < Spec::size; ++d) named = named || Spec::axes[d] == Mesh::axis_names[static_cast<std::size_t>(a)];
    if (!named && coords[static_cast<std::size_t>(a)] != 0) return false;
  }
  return true;
}

}  // namespace detail
}  // namespace pallas
