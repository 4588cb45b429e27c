// SPDX-License-Identifier: Apache-2.0
#pragma once
// The schedule of a pipeline as a value. For every core: its share of the grid (a box or a
// linear range), per operand the runs of consecutive steps that see one block (the block
// index, the steps, and so the slot it lives in), and the ordered events the executor
// performs: fetch start and wait, write-back start and wait, "the body sees slot s of
// operand k from now on", and the body of each step. plan_builder.hpp fills it; the
// executor, the rules and the printer read it.
//
// One class template over its containers: fixed-capacity arrays for plans the compiler
// computes (a constexpr value, no allocation at run time), std::vector for plans filled at
// run time (dynamic grids, index maps that read scalar prefetch, large grids).

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <pallas/block_spec.hpp>
#include <pallas/detail/pipeline/split.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

inline constexpr std::size_t max_block_rank = 8;

/// How an operand's blocks reach the body: copied into slots, handed over whole (an ANY
/// or HBM spec: the body copies what it needs), or viewed in place (the operand already
/// lives in the spec's memory, e.g. a VMEM ref with a VMEM spec).
enum class operand_kind : std::uint8_t { buffered, raw, view };

/// What the plan needs to know of one operand: its role, buffering and block geometry.
struct operand_desc {
  operand_kind kind = operand_kind::buffered;
  bool output = false;
  bool raw = false;              ///< kind == raw (kept for brevity in the rules)
  int position = 0;              ///< index within its in_specs / out_specs
  int buffer_count = 0;          ///< pl::Buffered<n>; 0: the default
  bool revisit_any = false;      ///< RevisitMode::ANY: a revisited block is reloaded
  bool lookahead = false;        ///< Buffered(n, use_lookahead): fetch ahead into free slots
  int rank = 0;
  int values = 0;                ///< integers per block index (two per bounded dim)
  std::array<block_dim_kind, max_block_rank> kind_of{};
  std::array<index_t, max_block_rank> block{};  ///< block size per dimension (bounded: its maximum)
  std::array<index_t, max_block_rank> array{};  ///< the array's extent per dimension
  std::array<index_t, max_block_rank> low{};    ///< an element dim's virtual padding
  std::array<index_t, max_block_rank> high{};
  std::array<int, max_block_rank> value_at{};   ///< where dimension d's integers start in a block index

  /// The element at which a block (its index `b`) starts along dimension d (may be < 0
  /// with low padding).
  template <class Values>
  constexpr index_t start(std::size_t d, Values const& b) const noexcept {
    index_t const v = b[static_cast<std::size_t>(value_at[d])];
    switch (kind_of[d]) {
      case block_dim_kind::blocked: return v * block[d];
      case block_dim_kind::element: return v - low[d];
      default: return v;  // squeezed: an element index; bounded: the slice's start
    }
  }
  /// The elements the block holds along dimension d (a bounded dim: the slice's size).
  template <class Values>
  constexpr index_t length(std::size_t d, Values const& b) const noexcept {
    return kind_of[d] == block_dim_kind::bounded ? b[static_cast<std::size_t>(value_at[d]) + 1] : block[d];
  }
  /// The block is the whole array.
  constexpr bool whole_array() const noexcept {
    for (int d = 0; d < rank; ++d)
      if (block[static_cast<std::size_t>(d)] != array[static_cast<std::size_t>(d)] ||
          kind_of[static_cast<std::size_t>(d)] == block_dim_kind::bounded)
        return false;
    return true;
  }
};

enum class event_kind : std::uint8_t {
  fetch_start,      ///< start copying run `index`'s block from HBM into `slot`
  fetch_wait,       ///< wait for that copy
  bind,             ///< the body sees `slot` of the operand from now on
  body,             ///< run the body of local step `index`
  writeback_start,  ///< start copying `slot` back to run `index`'s block in HBM
  writeback_wait,   ///< wait for that copy
};

struct plan_event {
  event_kind kind = event_kind::body;
  std::uint8_t operand = 0;
  std::uint8_t slot = 0;
  std::int32_t index = 0;  ///< a run of the operand (copies, bind) or a local step (body)
  std::int32_t step = 0;   ///< the local step the event belongs to; -1: prologue, steps: epilogue

  friend constexpr bool operator==(plan_event const&, plan_event const&) = default;
};

/// Consecutive local steps of one core that see one block of one operand.
struct plan_run {
  std::int32_t first_step = 0;
  std::int32_t last_step = 0;
  std::int32_t block = 0;  ///< offset of its block index in the plan's index pool
};

/// One core's part of the plan.
template <std::size_t GridRank, std::size_t NumOperands>
struct core_plan {
  core_box<GridRank> box{};
  std::int32_t events_begin = 0, events_end = 0;
  std::array<std::int32_t, NumOperands> runs_begin{}, runs_end{};
  std::array<std::int32_t, NumOperands> buffer_count{};  ///< resolved: 1 or more
  bool built = false;  ///< false: only the box is known (a plan built for another core)
};

/// A vector of at most N elements that lives in a constant expression.
template <class T, std::size_t N>
struct fixed_vector {
  std::array<T, N> items{};
  std::size_t count = 0;

  constexpr void push_back(T const& v) { items[count++] = v; }
  constexpr T& back() { return items[count - 1]; }
  constexpr std::size_t size() const noexcept { return count; }
  constexpr T* begin() noexcept { return items.data(); }
  constexpr T* end() noexcept { return items.data() + count; }
  constexpr T const* data() const noexcept { return items.data(); }
  constexpr T& operator[](std::size_t k) { return items[k]; }
  constexpr T const& operator[](std::size_t k) const { return items[k]; }
};

template <std::size_t GridRank, std::size_t NumOperands, class Cores, class Events, class Runs, class Indices,
          class RunList>
struct basic_plan {
  static constexpr std::size_t grid_rank = GridRank;
  static constexpr std::size_t num_operands = NumOperands;
  using core_type = core_plan<GridRank, NumOperands>;
  /// A list of run numbers as long as the plan's runs (scratch space for the rules).
  using run_list = RunList;

  std::array<operand_desc, NumOperands> operands{};
  std::array<index_t, GridRank> grid{};
  split_policy policy = split_policy::box;
  int num_cores = 1;
  bool fetch_at_step = false;  ///< the interpreter's order (one buffer each, copies at their step)
  Cores cores{};  ///< indexed by core; a plan built for one core has the others' boxes only
  Events events{};
  Runs runs{};
  Indices indices{};

  constexpr core_type const& core(std::size_t c) const { return cores[c]; }
  constexpr index_t steps(std::size_t c) const { return cores[c].box.steps(); }

  constexpr std::span<plan_event const> events_of(std::size_t c) const {
    auto const& cp = cores[c];
    return {events.data() + cp.events_begin, static_cast<std::size_t>(cp.events_end - cp.events_begin)};
  }
  constexpr std::span<plan_run const> runs_of(std::size_t c, std::size_t k) const {
    auto const& cp = cores[c];
    return {runs.data() + cp.runs_begin[k], static_cast<std::size_t>(cp.runs_end[k] - cp.runs_begin[k])};
  }
  /// The block index of one of operand k's runs.
  constexpr std::span<index_t const> block(plan_run const& r, std::size_t k) const {
    return {indices.data() + r.block, static_cast<std::size_t>(operands[k].rank)};
  }
  /// The global grid point of core c's local step s.
  constexpr std::array<index_t, GridRank> point(std::size_t c, index_t s) const { return box_point(cores[c].box, s); }
};

/// Upper bounds of a plan's sizes, for fixed capacities: per step one body event and per
/// run of an operand at most `events_per_run` events (an input: fetch start and wait, bind;
/// an output: also write-back start and wait); `index_values_per_step`: the integers of one
/// block index of every operand.
struct plan_capacity {
  std::size_t cores, events, runs, indices;
};
constexpr plan_capacity capacity_for(std::size_t cores, index_t grid_steps, std::size_t operands,
                                     std::size_t events_per_run, std::size_t index_values_per_step) {
  auto const steps = static_cast<std::size_t>(grid_steps);
  return {cores, steps * (1 + events_per_run) + 1, steps * operands + 1, steps * index_values_per_step + 1};
}

template <std::size_t GridRank, std::size_t NumOperands, plan_capacity Capacity>
using static_plan = basic_plan<GridRank, NumOperands, fixed_vector<core_plan<GridRank, NumOperands>, Capacity.cores>,
                               fixed_vector<plan_event, Capacity.events>, fixed_vector<plan_run, Capacity.runs>,
                               fixed_vector<index_t, Capacity.indices>, fixed_vector<std::int32_t, Capacity.runs>>;

/// The compiler's plan as it is used: views of the runs and events computed in their own
/// constant expressions (each has its own evaluation budget), and the cores' parts.
template <std::size_t GridRank, std::size_t NumOperands, plan_capacity Capacity>
using static_plan_view =
    basic_plan<GridRank, NumOperands, std::array<core_plan<GridRank, NumOperands>, Capacity.cores>,
               std::span<plan_event const>, std::span<plan_run const>, std::span<index_t const>,
               fixed_vector<std::int32_t, Capacity.runs>>;

template <std::size_t GridRank, std::size_t NumOperands>
using dynamic_plan = basic_plan<GridRank, NumOperands, std::vector<core_plan<GridRank, NumOperands>>,
                                std::vector<plan_event>, std::vector<plan_run>, std::vector<index_t>,
                                std::vector<std::int32_t>>;

/// Any plan as the executor and the run-time rules see it: views of its parts. The compiler's
/// plan and one built at run time then share one executor, one body call and one rule walk
/// per pipeline, where they were compiled twice (about a third of a kernel's object code).
template <std::size_t GridRank, std::size_t NumOperands>
using plan_view = basic_plan<GridRank, NumOperands, std::span<core_plan<GridRank, NumOperands> const>,
                             std::span<plan_event const>, std::span<plan_run const>, std::span<index_t const>,
                             std::vector<std::int32_t>>;

template <class Plan>
plan_view<Plan::grid_rank, Plan::num_operands> view_of_plan(Plan const& plan) {
  plan_view<Plan::grid_rank, Plan::num_operands> v;
  v.operands = plan.operands;
  v.grid = plan.grid;
  v.policy = plan.policy;
  v.num_cores = plan.num_cores;
  v.fetch_at_step = plan.fetch_at_step;
  v.cores = {plan.cores.data(), plan.cores.size()};
  v.events = {plan.events.data(), plan.events.size()};
  v.runs = {plan.runs.data(), plan.runs.size()};
  v.indices = {plan.indices.data(), plan.indices.size()};
  return v;
}

}  // namespace pallas::detail
