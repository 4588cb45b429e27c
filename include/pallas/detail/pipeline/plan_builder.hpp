// SPDX-License-Identifier: Apache-2.0
#pragma once
// Builds a pipeline's plan (plan.hpp): Pallas' schedule (pipeline.py's Scheduler), once,
// for the compiler (a constexpr plan) and for run time alike.
//
// Per core, N local steps; per operand the runs of consecutive steps with one block index
// (run r lives in slot r % buffer_count). Then, with bc an operand's buffer count:
//   prologue      inputs, bc >= 2: start the fetch of every run that begins at a step
//                 < bc - 1 (in step order, then operand order)
//   step s        copy-in:  inputs, bc >= 2: start the fetch of the run that begins at
//                           step s + bc - 1; bc == 1: of the run that begins at s
//                 wait-in:  inputs: wait for the run that begins at s; bind its slot
//                 outputs whose run begins at s: RevisitMode::ANY reloads the block
//                           from HBM (fetch start and wait); bind its slot
//                 body
//                 copy-out: outputs whose run ends at s: start its write-back (bc == 1:
//                           and wait for it)
//                 wait-out: outputs, bc >= 2, whose run begins at s > 0: wait for the
//                           previous run's write-back
//   epilogue      outputs, bc >= 2: wait for the last write-back
// Output slots are never loaded from HBM (except RevisitMode::ANY). An operand whose spec
// has no Buffered<n> gets two buffers, or one when its block is the whole array and does
// not change on the core (Pallas' trivial windowing). With Buffered(n, use_lookahead) an
// input's copy-in starts the fetch of every later run while fewer than n runs are held or in
// flight. An operand viewed in place (its memory is the spec's) only binds each run's block.

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/split.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

/// What a plan is built from besides the operands: the grid and how it is split.
template <std::size_t GridRank>
struct plan_grid {
  std::array<index_t, GridRank> extents{};
  std::array<bool, GridRank> is_static{};
  std::array<bool, GridRank> parallel{};
  split_policy policy = split_policy::box;
  int num_cores = 1;
  bool fetch_at_step = false;  ///< the interpreter's order: one buffer each, every copy at its step
};

/// The grid points of a core's steps in order, one increment at a time (an odometer over
/// the core's box, or over the whole grid from a linear range's first step). A core with no
/// steps (more cores than parallel blocks) has an empty box and never advances.
template <std::size_t R>
struct grid_cursor {
  std::array<index_t, R> point{}, low{}, high{};
  constexpr explicit grid_cursor(core_box<R> const& box)
      : point(box.steps() > 0 ? box_point(box, 0) : std::array<index_t, R>{}) {
    for (std::size_t a = 0; a < R; ++a) {
      low[a] = box.linear ? 0 : box.offsets[a];
      high[a] = low[a] + box.extents[a];
    }
  }
  constexpr void advance() noexcept {
    for (std::size_t a = R; a-- > 0;) {
      if (++point[a] < high[a]) return;
      point[a] = low[a];
    }
  }
};

/// Phase 1: every core's box, and for every core planned (all when only_core < 0) its runs
/// and buffer counts. `block_of(k, point, out)` writes operand k's block index at a grid
/// point (k a std::integral_constant).
template <class Plan, class BlockOf>
constexpr void build_runs(Plan& plan, plan_grid<Plan::grid_rank> const& grid,
                          std::array<operand_desc, Plan::num_operands> const& operands, BlockOf const& block_of,
                          int only_core = -1) {
  constexpr std::size_t R = Plan::grid_rank;
  constexpr std::size_t N = Plan::num_operands;
  plan.operands = operands;
  plan.grid = grid.extents;
  plan.policy = grid.policy;
  plan.num_cores = grid.num_cores;
  plan.fetch_at_step = grid.fetch_at_step;
  for (int c = 0; c < grid.num_cores; ++c) {
    typename Plan::core_type cp;
    cp.box = split_grid(grid.policy, grid.extents, grid.is_static, grid.parallel, grid.num_cores, c);
    cp.built = only_core < 0 || only_core == c;
    for (std::size_t k = 0; k < N; ++k)
      cp.runs_begin[k] = cp.runs_end[k] = static_cast<std::int32_t>(plan.runs.size());
    if (!cp.built) {
      plan.cores.push_back(cp);
      continue;
    }
    auto const steps = static_cast<std::int32_t>(cp.box.steps());

    // Runs, operand by operand.
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (
          [&] {
            constexpr std::size_t k = K;
            operand_desc const& op = operands[k];
            cp.runs_begin[k] = static_cast<std::int32_t>(plan.runs.size());
            if (op.kind != operand_kind::raw) {
              std::array<index_t, 2 * max_block_rank> now{};
              auto const values = static_cast<std::size_t>(op.values);
              grid_cursor<R> at(cp.box);
              for (std::int32_t s = 0; s < steps; ++s, at.advance()) {
                block_of(std::integral_constant<std::size_t, K>{}, at.point, now.data());
                bool same = s > 0;
                if (same) {
                  std::size_t const last = static_cast<std::size_t>(plan.runs.back().block);
                  for (std::size_t d = 0; d < values && same; ++d) same = now[d] == plan.indices[last + d];
                }
                if (same) {
                  plan.runs.back().last_step = s;
                } else {
                  plan.runs.push_back(plan_run{s, s, static_cast<std::int32_t>(plan.indices.size())});
                  for (std::size_t d = 0; d < values; ++d) plan.indices.push_back(now[d]);
                }
              }
            }
            cp.runs_end[k] = static_cast<std::int32_t>(plan.runs.size());
            std::int32_t const count = cp.runs_end[k] - cp.runs_begin[k];
            cp.buffer_count[k] = grid.fetch_at_step     ? 1
                                 : op.buffer_count > 0 ? op.buffer_count
                                                       : (op.whole_array() && count == 1 ? 1 : 2);
          }(),
          ...);
    }(std::make_index_sequence<N>{});
    plan.cores.push_back(cp);
  }
}

/// Phase 2: core c's events, from the runs of `plan` (after build_runs), appended to
/// `events`; returns where they begin and end there.
template <class Plan, class Events>
constexpr std::array<std::int32_t, 2> build_events(Plan const& plan, std::size_t c, Events& events) {
  constexpr std::size_t N = Plan::num_operands;
  auto const& operands = plan.operands;
  auto const& cp = plan.core(c);
  auto const steps = static_cast<std::int32_t>(cp.box.steps());
  auto const begin = static_cast<std::int32_t>(events.size());
    // Events, step by step. The checks read small per-operand arrays (the first and last
    // step of the run that holds the step, the first step of the next run to fetch): the
    // compiler evaluates this loop for every static plan, so it is kept lean.
    enum role_t : std::uint8_t { none, input, output, view };
    std::array<role_t, N> role{};
    std::array<std::int32_t, N> bc{}, count{}, current{}, next_fetch{}, cur_first{}, cur_last{}, fetch_first{};
    constexpr std::int32_t never = INT32_MAX;
    auto first_of = [&](std::size_t k, std::int32_t r) {
      return r < count[k] ? plan.runs[static_cast<std::size_t>(cp.runs_begin[k] + r)].first_step : never;
    };
    for (std::size_t k = 0; k < N; ++k) {
      operand_desc const& op = operands[k];
      role[k] = op.kind == operand_kind::raw ? none
                : op.kind == operand_kind::view ? view
                : op.output                      ? output
                                                 : input;
      bc[k] = cp.buffer_count[k];
      count[k] = cp.runs_end[k] - cp.runs_begin[k];
      if (count[k] > 0) {
        cur_first[k] = first_of(k, 0);
        cur_last[k] = plan.runs[static_cast<std::size_t>(cp.runs_begin[k])].last_step;
      }
      fetch_first[k] = first_of(k, 0);
    }
    auto emit = [&](event_kind what, std::size_t k, std::int32_t r, std::int32_t step) {
      events.push_back(plan_event{what, static_cast<std::uint8_t>(k), static_cast<std::uint8_t>(r % bc[k]), r, step});
    };
    auto fetch = [&](std::size_t k, std::int32_t step) {
      emit(event_kind::fetch_start, k, next_fetch[k]++, step);
      fetch_first[k] = first_of(k, next_fetch[k]);
    };

    if (steps > 0) {
      std::int32_t deepest = 2;
      for (std::size_t k = 0; k < N; ++k)
        if (role[k] == input && bc[k] > deepest) deepest = bc[k];
      for (std::int32_t t = 0; t + 1 < deepest && t < steps; ++t)
        for (std::size_t k = 0; k < N; ++k)
          if (role[k] == input && bc[k] >= 2 && t + 1 < bc[k] && fetch_first[k] == t) fetch(k, -1);
    }
    for (std::int32_t s = 0; s < steps; ++s) {
      for (std::size_t k = 0; k < N; ++k) {
        if (role[k] != input) continue;
        if (operands[k].lookahead && !plan.fetch_at_step) {  // every later block that differs, while a slot is free
          while (next_fetch[k] < count[k] && next_fetch[k] < current[k] + bc[k]) fetch(k, s);
        } else if (fetch_first[k] == s + bc[k] - 1) {
          fetch(k, s);
        }
      }
      for (std::size_t k = 0; k < N; ++k)
        if (role[k] == input && cur_first[k] == s) {
          emit(event_kind::fetch_wait, k, current[k], s);
          emit(event_kind::bind, k, current[k], s);
        }
      for (std::size_t k = 0; k < N; ++k)
        if ((role[k] == output || role[k] == view) && cur_first[k] == s) {
          if (role[k] == output && operands[k].revisit_any) {
            emit(event_kind::fetch_start, k, current[k], s);
            emit(event_kind::fetch_wait, k, current[k], s);
          }
          emit(event_kind::bind, k, current[k], s);
        }
      events.push_back(plan_event{event_kind::body, 0, 0, s, s});
      for (std::size_t k = 0; k < N; ++k)
        if (role[k] == output && cur_last[k] == s) {
          emit(event_kind::writeback_start, k, current[k], s);
          if (bc[k] == 1) emit(event_kind::writeback_wait, k, current[k], s);
        }
      for (std::size_t k = 0; k < N; ++k)
        if (role[k] == output && bc[k] >= 2 && s > 0 && cur_first[k] == s) emit(event_kind::writeback_wait, k, current[k] - 1, s);
      for (std::size_t k = 0; k < N; ++k)
        if (role[k] != none && cur_last[k] == s && current[k] + 1 < count[k]) {
          auto const& next = plan.runs[static_cast<std::size_t>(cp.runs_begin[k] + ++current[k])];
          cur_first[k] = next.first_step;
          cur_last[k] = next.last_step;
        }
    }
    for (std::size_t k = 0; k < N; ++k)
      if (role[k] == output && bc[k] >= 2 && steps > 0) emit(event_kind::writeback_wait, k, count[k] - 1, steps);
  return {begin, static_cast<std::int32_t>(events.size())};
}

/// Builds the whole plan (both phases) into one plan object.
template <class Plan, class BlockOf>
constexpr void build_plan(Plan& plan, plan_grid<Plan::grid_rank> const& grid,
                          std::array<operand_desc, Plan::num_operands> const& operands, BlockOf const& block_of,
                          int only_core = -1) {
  build_runs(plan, grid, operands, block_of, only_core);
  for (std::size_t c = 0; c < static_cast<std::size_t>(plan.num_cores); ++c) {
    if (!plan.cores[c].built) continue;
    auto const range = build_events(plan, c, plan.events);
    plan.cores[c].events_begin = range[0];
    plan.cores[c].events_end = range[1];
  }
}

/// An index-map callback for the plan builder with the kernel's types erased, so that the
/// builder is compiled once per grid rank and operand count, not once per pipeline.
template <std::size_t R>
struct erased_block_of {
  void (*call)(void const* context, std::size_t operand, std::array<index_t, R> const& point, index_t* out);
  void const* context;
  template <class K>
  void operator()(K, std::array<index_t, R> const& point, index_t* out) const {
    call(context, K::value, point, out);
  }
};

/// Builds `plan` at run time for every part (only_part < 0) or one.
template <std::size_t R, std::size_t N>
void build_plan_at_run_time(dynamic_plan<R, N>& plan, plan_grid<R> const& grid, std::array<operand_desc, N> const& descs,
                            erased_block_of<R> const& block_of, int only_part) {
  build_plan(plan, grid, descs, block_of, only_part);
}

}  // namespace pallas::detail
