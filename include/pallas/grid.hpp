// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::grid: the iteration space of a pipeline or pallas_call. Static extents are template
// arguments (`pl::grid<4, 8>`); run-time ones are pl::dyn and given as values
// (`pl::grid<pl::dyn, 8>(n)`). Steps run in lexicographic order, last axis fastest.

#include <array>
#include <cstddef>
#include <type_traits>

#include <pallas/shape.hpp>

namespace pallas {

/// The type of `pl::grid<...>`: the extents of a grid, last axis fastest.
template <index_t... Es>
struct grid_t {
  static_assert(sizeof...(Es) <= 8, "pallas::grid: at most 8 grid axes");
  static_assert(((Es > 0 || Es == dyn) && ...), "pallas::grid: every grid extent must be > 0");
  using extents_type = extents<Es...>;  ///< the extents as a type
  /// The number of grid axes.
  static constexpr std::size_t rank() noexcept { return sizeof...(Es); }
  static constexpr bool is_static = extents_type::is_static;  ///< no pl::dyn extent

  /// Every extent; the pl::dyn ones are 0 until given with operator().
  std::array<index_t, sizeof...(Es)> extents_{(Es == dyn ? 0 : Es)...};

  /// The run-time extents: `pl::grid<pl::dyn, 8>(n)`.
  template <DynamicInt... I>
    requires(sizeof...(I) == extents_type::rank_dynamic() && sizeof...(I) > 0)
  constexpr grid_t operator()(I... dynamic_extents) const {
    grid_t g;
    g.extents_ = extents_type(dynamic_extents...).all();
    return g;
  }

  /// The extent of `axis`.
  constexpr index_t extent(std::size_t axis) const noexcept { return extents_[axis]; }
  /// The number of grid points.
  constexpr index_t size() const noexcept {
    index_t n = 1;
    for (auto e : extents_) n *= e;
    return n;
  }
  /// Every extent.
  constexpr std::array<index_t, sizeof...(Es)> all() const noexcept { return extents_; }
};

/// `grid=(a, b, ...)`.
template <index_t... Es>
inline constexpr grid_t<Es...> grid{};

namespace detail {
template <class T>
struct is_grid : std::false_type {};
template <index_t... Es>
struct is_grid<grid_t<Es...>> : std::true_type {};

/// The multi-index of linear step `s` of a box with the given extents (last axis fastest).
template <std::size_t R>
constexpr std::array<index_t, R> unravel(index_t s, std::array<index_t, R> const& extents) {
  std::array<index_t, R> ix{};
  for (std::size_t a = R; a-- > 0;) {
    ix[a] = s % extents[a];
    s /= extents[a];
  }
  return ix;
}
}  // namespace detail

template <class T>
concept Grid = detail::is_grid<std::remove_cvref_t<T>>::value;

}  // namespace pallas
