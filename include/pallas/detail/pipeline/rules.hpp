// SPDX-License-Identifier: Apache-2.0
#pragma once
// The whole-grid rules, each once (check_run): a block outside its array, an output block
// revisited after another one, two cores writing one output block. They look at each run
// of consecutive steps that see one block, core after core, keeping only the output blocks
// written so far: at run time over a plan (check_grid_rules), at compile time over the grid
// walked in chunks (static_rules.hpp), whose cost then grows with the grid, not with a
// materialised plan. report_*() says what they found in words; static_rules.hpp says it
// with the same phrases (rule_words.hpp) in a static_assert.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include <pallas/config.hpp>
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

/// The whole-grid rules.
enum class grid_rule : std::uint8_t { none, block_out_of_range, output_revisit, two_cores_one_block };

/// A rule broken at one run of one operand on one core.
struct rule_violation {
  grid_rule rule = grid_rule::none;
  int core = -1;
  int operand = -1;        ///< index over inputs then outputs
  int run = -1;            ///< the run that breaks the rule (numbered per core and operand, as in a plan)
  int other_core = -1;     ///< two cores one block: the core that wrote the block first
  int dim = -1;            ///< out of range: the dimension
  index_t start = 0;       ///< out of range: the element the block starts at
  index_t length = 0;      ///< out of range: the elements it holds there
  index_t grid_step = -1;  ///< the run's first step, in grid order

  constexpr bool found() const noexcept { return rule != grid_rule::none; }
};

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

/// How many places a block of `op` can take along dimension d while in range (the radix of
/// block_key).
constexpr index_t block_places(operand_desc const& op, std::size_t d) {
  switch (op.kind_of[d]) {
    case block_dim_kind::blocked: return (op.array[d] + op.block[d] - 1) / op.block[d];
    case block_dim_kind::element: return op.array[d] + op.low[d] + op.high[d];
    case block_dim_kind::bounded: return op.array[d] * (op.block[d] + 1);
    default: return op.array[d];
  }
}
/// The places of all of `op`'s blocks in range.
constexpr index_t block_places(operand_desc const& op) {
  index_t n = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(op.rank); ++d) n *= block_places(op, d);
  return n;
}

/// One number per block in range of `op`: its place in the array's blocks, row-major.
template <class Values>
constexpr std::int64_t block_key(operand_desc const& op, Values const& b) {
  std::int64_t key = 0;
  for (std::size_t d = 0; d < static_cast<std::size_t>(op.rank); ++d) {
    auto const at = static_cast<std::size_t>(op.value_at[d]);
    index_t const place = op.kind_of[d] == block_dim_kind::bounded ? b[at] * (op.block[d] + 1) + b[at + 1] : b[at];
    key = key * block_places(op, d) + place;
  }
  return key;
}

/// The output blocks written so far (a key per operand and block), with a bit per core that
/// wrote each; a fixed-capacity open-addressing table for the compiler (Capacity a power of
/// two, more than twice the keys it will hold).
template <std::size_t Capacity>
struct fixed_block_set {
  std::array<std::int64_t, Capacity> keys{};  ///< key + 1; 0: empty
  std::array<std::uint64_t, Capacity> cores{};

  constexpr std::uint64_t& cores_of(std::int64_t key) {
    std::size_t i = static_cast<std::size_t>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 32) & (Capacity - 1);
    while (keys[i] != 0 && keys[i] != key + 1) i = (i + 1) & (Capacity - 1);
    keys[i] = key + 1;
    return cores[i];
  }
};
/// The same at run time.
struct dynamic_block_set {
  std::unordered_map<std::int64_t, std::uint64_t> cores;
  std::uint64_t& cores_of(std::int64_t key) { return cores[key]; }
};

/// What the rules look at: the grid, the core whose findings count (-1: every core), and
/// whether the core-dependent rules apply (revisit: the core count is the launch's;
/// two cores one block: also every core's steps are walked).
template <std::size_t R>
struct rule_scope {
  std::array<index_t, R> grid{};
  int only_core = -1;
  bool revisit = true;
  bool shared = true;
};

/// A walk of the grid for the rules, core after core, each core's steps in order: the first
/// violation, the blocks written so far, and (for a walk done in parts) where it stands.
template <std::size_t N, class Set>
struct rule_walk {
  rule_violation found;
  Set written{};
  int core = 0;                                 ///< the core being walked
  index_t step = 0;                             ///< its next local step
  std::array<std::int32_t, N> runs{};           ///< each operand's runs so far on this core
  std::array<std::array<index_t, 2 * max_block_rank>, N> last{};  ///< each operand's block at the last step
};

/// The rules, each once, at the first step of a run (consecutive steps that see one block)
/// of operand k on core c, at grid point `point`, block index `b`: its block in range; an
/// output block not written before by this core (unless RevisitMode::ANY) nor by another.
template <std::size_t R, std::size_t N, class Set, class Values>
constexpr void check_run(rule_walk<N, Set>& w, rule_scope<R> const& scope, std::array<operand_desc, N> const& ops,
                         std::size_t k, int c, std::array<index_t, R> const& point, Values const& b) {
  operand_desc const& op = ops[k];
  int const run = w.runs[k]++;
  if (op.raw) return;
  bool const mine = scope.only_core < 0 || scope.only_core == c;
  auto const at = [&](grid_rule rule) {
    rule_violation v;
    v.rule = rule;
    v.core = c;
    v.operand = static_cast<int>(k);
    v.run = run;
    v.grid_step = linear_step(point, scope.grid);
    return v;
  };
  for (std::size_t d = 0; d < static_cast<std::size_t>(op.rank); ++d) {
    if (block_dim_in_range(op, d, b)) continue;
    if (mine) {
      w.found = at(grid_rule::block_out_of_range);
      w.found.dim = static_cast<int>(d);
      w.found.start = op.start(d, b);
      w.found.length = op.length(d, b);
    }
    return;
  }
  if (!op.output || !scope.revisit) return;
  std::uint64_t& cores = w.written.cores_of(block_key(op, b) * static_cast<std::int64_t>(N) + static_cast<std::int64_t>(k));
  std::uint64_t const self = std::uint64_t{1} << c;
  if (mine && !op.revisit_any && (cores & self) != 0) {
    w.found = at(grid_rule::output_revisit);
  } else if (mine && scope.shared && (cores & ~self) != 0) {
    w.found = at(grid_rule::two_cores_one_block);
    while ((cores & (std::uint64_t{1} << ++w.found.other_core)) == 0) {
    }
  }
  cores |= self;
}

/// The first rule a plan breaks, walking its cores' runs in step order (the same walk as the
/// compiler's, static_rules.hpp).
template <class Plan>
rule_violation check_grid_rules(Plan const& plan, int only_core) {
  constexpr std::size_t N = Plan::num_operands;
  rule_walk<N, dynamic_block_set> w;
  rule_scope<Plan::grid_rank> scope{plan.grid, only_core, true, true};
  for (int c = 0; c < plan.num_cores; ++c) scope.shared = scope.shared && plan.core(static_cast<std::size_t>(c)).built;
  for (int c = 0; c < plan.num_cores && !w.found.found(); ++c) {
    auto const cc = static_cast<std::size_t>(c);
    if (!plan.core(cc).built) continue;
    w.runs = {};
    index_t const steps = plan.steps(cc);
    for (std::int32_t s = 0; s < steps && !w.found.found(); ++s)
      for (std::size_t k = 0; k < N && !w.found.found(); ++k) {
        auto const runs = plan.runs_of(cc, k);
        auto const r = static_cast<std::size_t>(w.runs[k]);
        if (r < runs.size() && runs[r].first_step == s)
          check_run(w, scope, plan.operands, k, c, plan.point(cc, s), plan.block(runs[r], k));
      }
  }
  return w.found;
}

// ---- The words, at run time (rules.ipp: compiled once, not per plan type).

/// "(1, 2)", or "(3,)" for rank 1.
PALLAS_DECL std::string tuple_string(std::span<index_t const> v);

/// A block index in words: "(1, 2)", with "ds(start, size)" for a BoundedSlice dim.
PALLAS_DECL std::string block_string(operand_desc const& op, std::span<index_t const> b);

/// "in_specs[0]" / "out_specs[1]".
PALLAS_DECL std::string operand_name(operand_desc const& op);

/// Throws what `v` found, in words: `op` is the operand that breaks the rule, `point` the
/// grid point of the run's first step and `block` the run's block index.
[[noreturn]] PALLAS_DECL void report_grid_rule(std::string_view who, operand_desc const& op,
                                               std::span<index_t const> point, std::span<index_t const> block,
                                               rule_violation const& v);

/// report_grid_rule() for the run of `plan` that `v` names.
template <class Plan>
[[noreturn]] void report_grid_rule(std::string_view who, Plan const& plan, rule_violation const& v) {
  auto const k = static_cast<std::size_t>(v.operand);
  auto const& run = plan.runs_of(static_cast<std::size_t>(v.core), k)[static_cast<std::size_t>(v.run)];
  auto const point = plan.point(static_cast<std::size_t>(v.core), run.first_step);
  report_grid_rule(who, plan.operands[k], point, plan.block(run, k), v);
}

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/pipeline/rules.ipp>
#endif
