#pragma once
// Grid dimension semantics: PARALLEL axes may be split across TensorCores, ARBITRARY ones
// run in order on one core. `pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>`.

#include <array>
#include <cstddef>
#include <type_traits>

namespace pallas::tpu {

enum class GridDimensionSemantics { parallel, arbitrary };

inline constexpr GridDimensionSemantics PARALLEL = GridDimensionSemantics::parallel;
inline constexpr GridDimensionSemantics ARBITRARY = GridDimensionSemantics::arbitrary;

template <GridDimensionSemantics... S>
struct dimension_semantics_t {
  static constexpr std::size_t size = sizeof...(S);
  static constexpr std::array<GridDimensionSemantics, sizeof...(S)> values{S...};
  static constexpr bool any_parallel = ((S == PARALLEL) || ... || false);
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

namespace detail {
template <class T>
struct is_dimension_semantics : std::false_type {};
template <GridDimensionSemantics... S>
struct is_dimension_semantics<dimension_semantics_t<S...>> : std::true_type {};
}  // namespace detail

}  // namespace pallas::tpu
