#pragma once
// How emit_pipeline divides a grid among TensorCores (Pallas' `_partition_grid`): the
// first PARALLEL axis whose static extent divides by the core count is cut into equal
// contiguous chunks; otherwise the largest PARALLEL axis is cut, the first
// `extent % cores` cores taking one step more.

#include <algorithm>
#include <array>
#include <cstddef>

#include <pallas/error.hpp>
#include <pallas/shape.hpp>
#include <pallas/tpu/dimension_semantics.hpp>

namespace pallas::tpu::detail {

/// One core's share of the grid: a box (emit_pipeline: its extents and the global index of
/// its first step) or a range of the grid's linear steps (pallas_call).
template <std::size_t R>
struct core_box {
  std::array<index_t, R> extents{};
  std::array<index_t, R> offsets{};
  int split_axis = -1;  ///< -1: the core runs the whole grid
  bool linear = false;  ///< a linear range [begin, begin + count) of `extents`' steps
  index_t begin = 0;
  index_t count = 0;

  constexpr index_t steps() const noexcept {
    if (linear) return count;
    index_t n = 1;
    for (auto e : extents) n *= e;
    return n;
  }
};

/// The global grid point of a core's step s.
template <std::size_t R>
constexpr std::array<index_t, R> box_point(core_box<R> const& box, index_t s) {
  std::array<index_t, R> p{};
  index_t linear = box.linear ? box.begin + s : s;
  for (std::size_t a = R; a-- > 0;) {
    p[a] = linear % box.extents[a];
    linear /= box.extents[a];
  }
  if (!box.linear)
    for (std::size_t a = 0; a < R; ++a) p[a] += box.offsets[a];
  return p;
}

/// pallas_call's split: with P points over the leading PARALLEL axes and I over the rest,
/// core c runs parallel points [c * ceil(P / n), (c + 1) * ceil(P / n)), each with all of
/// its I steps: one contiguous range of the grid's linear order.
template <std::size_t R>
constexpr core_box<R> split_linear(std::array<index_t, R> const& extents,
                                   std::array<GridDimensionSemantics, R> const& semantics, int num_cores, int core) {
  core_box<R> box;
  box.extents = extents;
  box.linear = true;
  index_t parallel = 1, inner = 1;
  std::size_t a = 0;
  for (; a < R && semantics[a] == PARALLEL; ++a) parallel *= extents[a];
  for (; a < R; ++a) inner *= extents[a];
  index_t const per = (parallel + num_cores - 1) / num_cores;
  index_t const first = std::min<index_t>(core * per, parallel);
  index_t const last = std::min<index_t>((core + 1) * per, parallel);
  box.begin = first * inner;
  box.count = (last - first) * inner;
  return box;
}

/// The axis a grid is split along for `num_cores` cores, or -1 when there is no PARALLEL
/// axis. `is_static[a]` says whether axis a's extent is known at compile time.
template <std::size_t R>
constexpr int split_axis(std::array<index_t, R> const& extents, std::array<bool, R> const& is_static,
                         std::array<GridDimensionSemantics, R> const& semantics, int num_cores) {
  for (std::size_t a = 0; a < R; ++a)
    if (semantics[a] == PARALLEL && is_static[a] && extents[a] % num_cores == 0) return static_cast<int>(a);
  int largest = -1;
  int dynamic_parallel = -1;
  int static_parallel = 0;
  for (std::size_t a = 0; a < R; ++a) {
    if (semantics[a] != PARALLEL) continue;
    if (!is_static[a]) {
      if (dynamic_parallel < 0) dynamic_parallel = static_cast<int>(a);
      continue;
    }
    ++static_parallel;
    if (largest < 0 || extents[a] > extents[static_cast<std::size_t>(largest)]) largest = static_cast<int>(a);
  }
  if (static_parallel == 0) return dynamic_parallel;
  return largest;
}

/// Core `core`'s box of the grid.
template <std::size_t R>
constexpr core_box<R> split_grid(std::array<index_t, R> const& extents, std::array<bool, R> const& is_static,
                                 std::array<GridDimensionSemantics, R> const& semantics, int num_cores, int core) {
  core_box<R> box;
  box.extents = extents;
  if (num_cores <= 1) return box;
  int const axis = split_axis(extents, is_static, semantics, num_cores);
  if (axis < 0)
    pallas::detail::fail("pallas::emit_pipeline: ", num_cores,
                         " cores share this pipeline but no grid axis is PARALLEL");
  auto const a = static_cast<std::size_t>(axis);
  index_t const base = extents[a] / num_cores;
  index_t const rem = extents[a] % num_cores;
  box.split_axis = axis;
  box.extents[a] = base + (core < rem ? 1 : 0);
  box.offsets[a] = core < rem ? core * (base + 1) : core * base + rem;
  return box;
}

}  // namespace pallas::tpu::detail
