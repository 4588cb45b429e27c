// SPDX-License-Identifier: Apache-2.0
#pragma once
// The whole-grid rules, each once, as a query over a plan: a block outside its array, an
// output block revisited after another one, two cores writing one output block. Each query
// returns what it found (or nothing) and is a constant expression for a plan the compiler
// computed; report_*() says it in words at run time, static_rules.hpp at compile time.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/rule_words.hpp>
#include <pallas/error.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

/// The position of a grid point in grid order (last axis fastest).
template <std::size_t R>
constexpr index_t linear_step(std::array<index_t, R> const& p, std::array<index_t, R> const& extents) {
  index_t s = 0;
  for (std::size_t a = 0; a < R; ++a) s = s * extents[a] + p[a];
  return s;
}

/// A rule broken at one run of one operand on one core.
struct rule_violation {
  int core = -1;
  int operand = -1;     ///< index over inputs then outputs
  int run = -1;         ///< the run that breaks the rule
  int other_core = -1;  ///< two cores one block: the other core
  int other_run = -1;   ///< revisit: the earlier run; two cores one block: the other core's run
  int dim = -1;         ///< out of range: the dimension
  index_t start = 0;    ///< out of range: the element the block starts at
  index_t length = 0;   ///< out of range: the elements it holds there
  index_t grid_step = -1;  ///< the run's first step, in grid order

  constexpr bool found() const noexcept { return core >= 0; }
};

template <class Plan>
constexpr bool core_checked(Plan const& plan, int c, int only_core) {
  return plan.core(static_cast<std::size_t>(c)).built && (only_core < 0 || only_core == c);
}

template <class Plan>
constexpr index_t run_grid_step(Plan const& plan, int c, plan_run const& r) {
  return linear_step(plan.point(static_cast<std::size_t>(c), r.first_step), plan.grid);
}

/// Whether a block (its index `b`) is placed as the rules say along dimension d: it starts
/// inside its array (inside the padded array for a padded Element dim), a BoundedSlice's
/// size is within its bound and the slice inside the array, and a block viewed in place (no
/// copy can cut it) lies wholly inside the array.
template <class Values>
constexpr bool block_dim_in_range(operand_desc const& op, std::size_t d, Values const& b) {
  index_t const start = op.start(d, b), length = op.length(d, b), extent = op.array[d];
  if (op.kind == operand_kind::view && (start < 0 || start + length > extent)) return false;
  switch (op.kind_of[d]) {
    case block_dim_kind::element: return start + op.low[d] >= 0 && start + op.low[d] < extent + op.low[d] + op.high[d];
    case block_dim_kind::bounded: return length >= 0 && length <= op.block[d] && start >= 0 && start + length <= extent;
    default: return start >= 0 && start < extent;
  }
}

/// Every block placed as block_dim_in_range says; the first offence in grid order.
template <class Plan>
constexpr rule_violation first_block_out_of_range(Plan const& plan, int only_core = -1) {
  rule_violation found;
  for (int c = 0; c < plan.num_cores; ++c) {
    if (!core_checked(plan, c, only_core)) continue;
    for (std::size_t k = 0; k < Plan::num_operands; ++k) {
      operand_desc const& op = plan.operands[k];
      if (op.raw) continue;
      auto const runs = plan.runs_of(static_cast<std::size_t>(c), k);
      for (std::size_t r = 0; r < runs.size(); ++r) {
        auto const b = plan.block(runs[r], k);
        for (std::size_t d = 0; d < static_cast<std::size_t>(op.rank); ++d) {
          if (block_dim_in_range(op, d, b)) continue;
          index_t const step = run_grid_step(plan, c, runs[r]);
          if (!found.found() || step < found.grid_step)
            found = {c, static_cast<int>(k), static_cast<int>(r), -1, -1, static_cast<int>(d), op.start(d, b),
                     op.length(d, b), step};
          break;
        }
      }
    }
  }
  return found;
}

/// Lexicographic order of two blocks of operand k.
template <class Plan>
constexpr bool block_less(Plan const& plan, std::size_t k, plan_run const& a, plan_run const& b) {
  auto const x = plan.block(a, k), y = plan.block(b, k);
  for (std::size_t d = 0; d < x.size(); ++d)
    if (x[d] != y[d]) return x[d] < y[d];
  return false;
}
template <class Plan>
constexpr bool same_block(Plan const& plan, std::size_t k, plan_run const& a, plan_run const& b) {
  auto const x = plan.block(a, k), y = plan.block(b, k);
  for (std::size_t d = 0; d < x.size(); ++d)
    if (x[d] != y[d]) return false;
  return true;
}

/// Runs `first` .. `last` (offsets into the plan's runs), sorted by block, then by offset.
template <class Plan>
constexpr typename Plan::run_list runs_by_block(Plan const& plan, std::size_t k, std::int32_t first,
                                                std::int32_t last) {
  typename Plan::run_list order{};
  for (std::int32_t r = first; r < last; ++r) order.push_back(r);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    auto const& ra = plan.runs[static_cast<std::size_t>(a)];
    auto const& rb = plan.runs[static_cast<std::size_t>(b)];
    if (block_less(plan, k, ra, rb)) return true;
    if (block_less(plan, k, rb, ra)) return false;
    return a < b;
  });
  return order;
}

/// An output block may be visited again only on consecutive steps (one run), unless its
/// spec says RevisitMode::ANY; the first revisit in grid order.
template <class Plan>
constexpr rule_violation first_revisit(Plan const& plan, int only_core = -1) {
  rule_violation found;
  for (int c = 0; c < plan.num_cores; ++c) {
    if (!core_checked(plan, c, only_core)) continue;
    auto const& cp = plan.core(static_cast<std::size_t>(c));
    for (std::size_t k = 0; k < Plan::num_operands; ++k) {
      operand_desc const& op = plan.operands[k];
      if (op.raw || !op.output || op.revisit_any) continue;
      auto const order = runs_by_block(plan, k, cp.runs_begin[k], cp.runs_end[k]);
      for (std::size_t i = 1; i < order.size(); ++i) {
        auto const& earlier = plan.runs[static_cast<std::size_t>(order[i - 1])];
        auto const& later = plan.runs[static_cast<std::size_t>(order[i])];
        if (!same_block(plan, k, earlier, later)) continue;
        if (i >= 2 && same_block(plan, k, plan.runs[static_cast<std::size_t>(order[i - 2])], later)) continue;
        index_t const step = run_grid_step(plan, c, later);
        if (!found.found() || step < found.grid_step)
          found = {c, static_cast<int>(k), order[i] - cp.runs_begin[k], -1, order[i - 1] - cp.runs_begin[k], -1, 0, 0,
                   step};
      }
    }
  }
  return found;
}

/// Two cores must not write the same output block; the first such block's later writer in
/// grid order. Needs the plan of every core.
template <class Plan>
constexpr rule_violation first_shared_block(Plan const& plan) {
  rule_violation found;
  if (plan.num_cores < 2) return found;
  for (int c = 0; c < plan.num_cores; ++c)
    if (!plan.core(static_cast<std::size_t>(c)).built) return found;
  auto core_of = [&](std::size_t k, std::int32_t r) {  // the core that run r of operand k belongs to
    for (int c = 0; c < plan.num_cores; ++c) {
      auto const& cp = plan.core(static_cast<std::size_t>(c));
      if (r >= cp.runs_begin[k] && r < cp.runs_end[k]) return c;
    }
    return -1;
  };
  for (std::size_t k = 0; k < Plan::num_operands; ++k) {
    operand_desc const& op = plan.operands[k];
    if (op.raw || !op.output) continue;
    // Runs of every core, by block (each core's runs of operand k are contiguous).
    typename Plan::run_list all{};
    for (int c = 0; c < plan.num_cores; ++c) {
      auto const& cp = plan.core(static_cast<std::size_t>(c));
      for (std::int32_t r = cp.runs_begin[k]; r < cp.runs_end[k]; ++r) all.push_back(r);
    }
    std::sort(all.begin(), all.end(), [&](std::int32_t a, std::int32_t b) {
      auto const& ra = plan.runs[static_cast<std::size_t>(a)];
      auto const& rb = plan.runs[static_cast<std::size_t>(b)];
      if (block_less(plan, k, ra, rb)) return true;
      if (block_less(plan, k, rb, ra)) return false;
      return a < b;
    });
    for (std::size_t i = 1; i < all.size(); ++i) {
      auto const& a = plan.runs[static_cast<std::size_t>(all[i - 1])];
      auto const& b = plan.runs[static_cast<std::size_t>(all[i])];
      int const ca = core_of(k, all[i - 1]), cb = core_of(k, all[i]);
      if (ca == cb || !same_block(plan, k, a, b)) continue;
      index_t const step = run_grid_step(plan, cb, b);
      if (!found.found() || step < found.grid_step) {
        auto const& cpa = plan.core(static_cast<std::size_t>(ca));
        auto const& cpb = plan.core(static_cast<std::size_t>(cb));
        found = {cb, static_cast<int>(k), all[i] - cpb.runs_begin[k], ca, all[i - 1] - cpa.runs_begin[k], -1, 0, 0, step};
      }
    }
  }
  return found;
}

// ---- The words, at run time.

/// "(1, 2)", or "(3,)" for rank 1.
template <class Seq>
std::string tuple_string(Seq const& v) {
  std::string s = "(";
  for (std::size_t a = 0; a < v.size(); ++a) s += (a ? ", " : "") + std::to_string(v[a]);
  return s + (v.size() == 1 ? ",)" : ")");
}

/// A block index in words: "(1, 2)", with "ds(start, size)" for a BoundedSlice dim.
template <class Values>
std::string block_string(operand_desc const& op, Values const& b) {
  if (op.values == op.rank) return tuple_string(b);
  std::string s = "(";
  for (int d = 0; d < op.rank; ++d) {
    auto const at = static_cast<std::size_t>(op.value_at[static_cast<std::size_t>(d)]);
    s += d ? ", " : "";
    if (op.kind_of[static_cast<std::size_t>(d)] == block_dim_kind::bounded)
      s += "ds(" + std::to_string(b[at]) + ", " + std::to_string(b[at + 1]) + ")";
    else
      s += std::to_string(b[at]);
  }
  return s + (op.rank == 1 ? ",)" : ")");
}

/// "in_specs[0]" / "out_specs[1]".
inline std::string operand_name(operand_desc const& op) {
  return std::string(op.output ? "out_specs[" : "in_specs[") + std::to_string(op.position) + "]";
}

template <class Plan>
[[noreturn]] void report_block_out_of_range(std::string_view who, Plan const& plan, rule_violation const& v) {
  auto const k = static_cast<std::size_t>(v.operand);
  auto const& run = plan.runs_of(static_cast<std::size_t>(v.core), k)[static_cast<std::size_t>(v.run)];
  operand_desc const& op = plan.operands[k];
  auto const d = static_cast<std::size_t>(v.dim);
  constexpr std::string_view rule = " (" PALLAS_RULE_BLOCK_OUT_OF_RANGE ")";
  std::string const where = std::string("pallas::") + std::string(who) + ": " + operand_name(op) + " maps grid point " +
                            tuple_string(plan.point(static_cast<std::size_t>(v.core), run.first_step)) +
                            " to block index " + block_string(op, plan.block(run, k));
  if (op.kind_of[d] == block_dim_kind::bounded && (v.length < 0 || v.length > op.block[d]))
    fail<index_error>(where, ", whose dimension ", v.dim, " is a pl::ds of size ", v.length, ", beyond its BoundedSlice(",
                      op.block[d], ")", rule);
  if (op.kind_of[d] == block_dim_kind::bounded || op.kind == operand_kind::view)
    fail<index_error>(where, ", whose dimension ", v.dim, " covers elements [", v.start, ", ", v.start + v.length,
                      "), outside the array's extent ", op.array[d],
                      op.kind == operand_kind::view ? " (a block viewed in place must lie inside its array)" : "", rule);
  if (op.kind_of[d] == block_dim_kind::element && (op.low[d] != 0 || op.high[d] != 0))
    fail<index_error>(where, ", whose dimension ", v.dim, " starts at element ", v.start,
                      ", outside the array's extent ", op.array[d], " padded by (", op.low[d], ", ", op.high[d], ")", rule);
  fail<index_error>(where, ", whose dimension ", v.dim, " starts at element ", v.start, ", outside the array's extent ",
                    op.array[d], rule);
}

template <class Plan>
[[noreturn]] void report_revisit(std::string_view who, Plan const& plan, rule_violation const& v) {
  auto const k = static_cast<std::size_t>(v.operand);
  auto const& run = plan.runs_of(static_cast<std::size_t>(v.core), k)[static_cast<std::size_t>(v.run)];
  fail("pallas::", who, ": ", operand_name(plan.operands[k]), " revisits block ", block_string(plan.operands[k], plan.block(run, k)),
       " at grid point ", tuple_string(plan.point(static_cast<std::size_t>(v.core), run.first_step)),
       " after writing other blocks (" PALLAS_RULE_OUTPUT_REVISIT "); " PALLAS_RULE_OUTPUT_REVISIT_FIX);
}

template <class Plan>
[[noreturn]] void report_shared_block(std::string_view who, Plan const& plan, rule_violation const& v) {
  auto const k = static_cast<std::size_t>(v.operand);
  auto const& run = plan.runs_of(static_cast<std::size_t>(v.core), k)[static_cast<std::size_t>(v.run)];
  int const first = v.other_core < v.core ? v.other_core : v.core;
  int const second = v.other_core < v.core ? v.core : v.other_core;
  fail("pallas::", who, ": ", operand_name(plan.operands[k]), " block ", block_string(plan.operands[k], plan.block(run, k)),
       " is written by core ", first, " and core ", second, " (" PALLAS_RULE_TWO_CORES_ONE_BLOCK ")");
}

}  // namespace pallas::detail
