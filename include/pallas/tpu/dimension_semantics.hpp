// SPDX-License-Identifier: Apache-2.0
#pragma once
// Grid dimension semantics: PARALLEL axes may be split across TensorCores, ARBITRARY ones
// run in order on one core. `pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>`.

#include <array>
#include <cstddef>
#include <type_traits>

namespace pallas::tpu {

/// `pltpu.GridDimensionSemantics`: whether a grid axis may be split among cores.
enum class GridDimensionSemantics { parallel, arbitrary };

inline constexpr GridDimensionSemantics PARALLEL = GridDimensionSemantics::parallel;  ///< `pltpu.PARALLEL`: iterations are independent; may split among cores
inline constexpr GridDimensionSemantics ARBITRARY = GridDimensionSemantics::arbitrary;  ///< `pltpu.ARBITRARY`: iterations run in order on one core

/// The type of `pltpu::dimension_semantics<...>`: one entry per grid axis.
template <GridDimensionSemantics... S>
struct dimension_semantics_t {
  static constexpr std::size_t size = sizeof...(S);  ///< the number of entries
  static constexpr std::array<GridDimensionSemantics, sizeof...(S)> values{S...};  ///< the entries
  static constexpr bool any_parallel = ((S == PARALLEL) || ... || false);  ///< some axis is PARALLEL
  /// Parallel axes first, then arbitrary ones.
  static constexpr bool parallel_first = [] {
    bool seen_arbitrary = false;
    for (auto s : values) {
      if (s == ARBITRARY) seen_arbitrary = true;
      else if (seen_arbitrary) return false;
    }
    return true;
  }();
};

/// `dimension_semantics=(PARALLEL, ARBITRARY)`.
template <GridDimensionSemantics... S>
inline constexpr dimension_semantics_t<S...> dimension_semantics{};

}  // namespace pallas::tpu

namespace pallas::detail {

template <class T>
struct is_dimension_semantics : std::false_type {};
template <tpu::GridDimensionSemantics... S>
struct is_dimension_semantics<tpu::dimension_semantics_t<S...>> : std::true_type {};

/// Which of a grid's R axes are PARALLEL under Semantics (void: none).
template <class Semantics, std::size_t R>
constexpr std::array<bool, R> parallel_flags_of() {
  std::array<bool, R> flags{};
  if constexpr (!std::is_void_v<Semantics>)
    for (std::size_t a = 0; a < R && a < Semantics::size; ++a) flags[a] = Semantics::values[a] == tpu::PARALLEL;
  return flags;
}

}  // namespace pallas::detail
