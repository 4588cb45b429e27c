// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a grid is divided among TensorCores. Two policies, as in Pallas:
// - emit_pipeline (`_partition_grid`): the first PARALLEL axis whose static extent divides
//   by the core count is cut into equal contiguous chunks; otherwise the largest PARALLEL
//   axis is cut, the first `extent % cores` cores taking one step more (a box per core);
// - pallas_call (the interpreter's division): with P points over the leading PARALLEL axes
//   and I over the rest, core c runs parallel points [c * ceil(P / n), (c + 1) * ceil(P / n)),
//   each with all of its I steps (a range of the grid's linear order per core).

#include <algorithm>
#include <array>
#include <cstddef>

#include <pallas/shape.hpp>

namespace pallas::detail {

enum class split_policy : unsigned char { box, linear };

/// One core's share of the grid: a box (its extents and the global index of its first
/// step) or a range of the grid's linear steps.
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

/// pallas_call's split (see the top of this file).
template <std::size_t R>
constexpr core_box<R> split_linear(std::array<index_t, R> const& extents, std::array<bool, R> const& parallel,
                                   int num_cores, int core) {
  core_box<R> box;
  box.extents = extents;
  box.linear = true;
  index_t parallel_points = 1, inner = 1;
  std::size_t a = 0;
  for (; a < R && parallel[a]; ++a) parallel_points *= extents[a];
  for (; a < R; ++a) inner *= extents[a];
  index_t const per = (parallel_points + num_cores - 1) / num_cores;
  index_t const first = std::min<index_t>(core * per, parallel_points);
  index_t const last = std::min<index_t>((core + 1) * per, parallel_points);
  box.begin = first * inner;
  box.count = (last - first) * inner;
  return box;
}

/// The axis emit_pipeline splits for `num_cores` cores, or -1 when no axis is PARALLEL.
/// `is_static[a]` says whether axis a's extent is known at compile time.
template <std::size_t R>
constexpr int split_axis(std::array<index_t, R> const& extents, std::array<bool, R> const& is_static,
                         std::array<bool, R> const& parallel, int num_cores) {
  for (std::size_t a = 0; a < R; ++a)
    if (parallel[a] && is_static[a] && extents[a] % num_cores == 0) return static_cast<int>(a);
  int largest = -1;
  int dynamic_parallel = -1;
  int static_parallel = 0;
  for (std::size_t a = 0; a < R; ++a) {
    if (!parallel[a]) continue;
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

/// Core `core`'s box of the grid under emit_pipeline's split. With several cores and no
/// PARALLEL axis (a rule checked before) every core gets the whole grid.
template <std::size_t R>
constexpr core_box<R> split_box(std::array<index_t, R> const& extents, std::array<bool, R> const& is_static,
                                std::array<bool, R> const& parallel, int num_cores, int core) {
  core_box<R> box;
  box.extents = extents;
  if (num_cores <= 1) return box;
  int const axis = split_axis(extents, is_static, parallel, num_cores);
  if (axis < 0) return box;
  auto const a = static_cast<std::size_t>(axis);
  index_t const base = extents[a] / num_cores;
  index_t const rem = extents[a] % num_cores;
  box.split_axis = axis;
  box.extents[a] = base + (core < rem ? 1 : 0);
  box.offsets[a] = core < rem ? core * (base + 1) : core * base + rem;
  return box;
}

/// The core split's rule, at compile time (a known core count) and at run time alike:
/// several cores divide the grid along its PARALLEL axes, so they need one.
template <std::size_t R>
constexpr bool split_rule_holds(int num_cores, std::array<bool, R> const& parallel) noexcept {
  if (num_cores <= 1) return true;
  for (bool p : parallel)
    if (p) return true;
  return false;
}

/// Core `core`'s share under `policy`.
template <std::size_t R>
constexpr core_box<R> split_grid(split_policy policy, std::array<index_t, R> const& extents,
                                 std::array<bool, R> const& is_static, std::array<bool, R> const& parallel,
                                 int num_cores, int core) {
  return policy == split_policy::linear ? split_linear(extents, parallel, num_cores, core)
                                        : split_box(extents, is_static, parallel, num_cores, core);
}

}  // namespace pallas::detail
