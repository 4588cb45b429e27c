// SPDX-License-Identifier: Apache-2.0
#pragma once
// The whole-grid rules at compile time: rules.hpp's check_run over the grid the compiler
// walks in chunks (each a constant expression of its own, so the cost grows with the grid
// and stays within each budget), as static_asserts whose template arguments carry the
// numbers (the compilers print them in the "required from" / "in instantiation of" line).

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include <pallas/detail/pipeline/operand.hpp>
#include <pallas/detail/pipeline/plan_builder.hpp>
#include <pallas/detail/pipeline/rule_words.hpp>
#include <pallas/detail/pipeline/rules.hpp>
#include <pallas/detail/pipeline/spec_rules.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

/// Arguments: whether an operand is an output, its position in in_specs / out_specs, the
/// grid step (the first found, core after core), the dimension and the element the block
/// starts at.
template <caller Who, bool Found, bool IsOutput, int Position, index_t GridStep, int Dim, index_t Start>
constexpr bool block_in_range_rule() {
  static_assert(!Found || Who != caller::emit_pipeline,
                "pallas::emit_pipeline: " PALLAS_RULE_BLOCK_OUT_OF_RANGE " (the numbers: output?, "
                "spec position, grid step, dimension, element the block starts at)");
  static_assert(!Found || Who != caller::pallas_call,
                "pallas::pallas_call: " PALLAS_RULE_BLOCK_OUT_OF_RANGE " (the numbers: output?, "
                "spec position, grid step, dimension, element the block starts at)");
  return !Found;
}

/// Arguments: the out_specs position, the grid step that revisits and the core.
template <caller Who, bool Found, int Position, index_t GridStep, int Core>
constexpr bool revisit_rule() {
  static_assert(!Found || Who != caller::emit_pipeline,
                "pallas::emit_pipeline: " PALLAS_RULE_OUTPUT_REVISIT " (the numbers: out_specs "
                "position, the first grid step that revisits, the core); " PALLAS_RULE_OUTPUT_REVISIT_FIX);
  static_assert(!Found || Who != caller::pallas_call,
                "pallas::pallas_call: " PALLAS_RULE_OUTPUT_REVISIT " (the numbers: out_specs "
                "position, the first grid step that revisits, the core); " PALLAS_RULE_OUTPUT_REVISIT_FIX);
  return !Found;
}

/// Arguments: the out_specs position, the first grid step whose block another core also
/// writes, and the two cores.
template <caller Who, bool Found, int Position, index_t GridStep, int Core, int OtherCore>
constexpr bool disjoint_cores_rule() {
  static_assert(!Found || Who != caller::emit_pipeline,
                "pallas::emit_pipeline: " PALLAS_RULE_TWO_CORES_ONE_BLOCK " (the numbers: out_specs position, "
                "the first grid step whose block another core also writes, the two cores)");
  static_assert(!Found || Who != caller::pallas_call,
                "pallas::pallas_call: " PALLAS_RULE_TWO_CORES_ONE_BLOCK " (the numbers: out_specs position, "
                "the first grid step whose block another core also writes, the two cores)");
  return !Found;
}

/// The steps x operands the compiler walks for the rules in one constant expression (each
/// has its own evaluation budget; clang's, 2^20 steps, is the tighter: about 300 of them per
/// step and operand).
inline constexpr index_t static_rule_chunk_work = 2048;

constexpr std::size_t power_of_two_above(std::size_t n) {
  std::size_t p = 1;
  while (p <= n) p *= 2;
  return p;
}

/// The compiler's walk of engine E's grid for the rules (rules.hpp), in chunks of
/// static_rule_chunk_work steps x operands: what the walk holds, and one chunk.
template <class E, bool CoresKnown>
struct static_rule_walk {
  static constexpr auto descs = E::static_descs();
  /// The output blocks the walk may meet: no more than the outputs' runs, nor their blocks.
  static constexpr std::size_t most_written = [] {
    index_t runs = 0, places = 0;
    for (auto const& op : descs)
      if (op.output && !op.raw) {
        runs += E::static_steps();
        places += block_places(op);
      }
    return static_cast<std::size_t>(runs < places ? runs : places);
  }();
  using walk_type = rule_walk<E::num_operands, fixed_block_set<power_of_two_above(2 * most_written)>>;
  /// The steps of one chunk.
  static constexpr index_t chunk_steps = [] {
    index_t operands = 0;
    for (auto const& op : descs) operands += op.raw ? 0 : 1;
    return operands > 1 ? static_rule_chunk_work / operands : static_rule_chunk_work;
  }();
  static constexpr index_t chunks = (E::static_steps() + chunk_steps - 1) / chunk_steps;

  static constexpr plan_grid<E::grid_rank> grid = E::static_grid();
  /// Each core's share of the grid.
  static constexpr auto boxes = [] {
    std::array<core_box<E::grid_rank>, static_cast<std::size_t>(E::static_cores)> b{};
    for (int c = 0; c < grid.num_cores; ++c)
      b[static_cast<std::size_t>(c)] = split_grid(grid.policy, grid.extents, grid.is_static, grid.parallel, grid.num_cores, c);
    return b;
  }();

  /// Walks the next chunk_steps steps, core after core, from where `w` stands.
  static constexpr void walk_chunk(walk_type& w) {
    rule_scope<E::grid_rank> const scope{grid.extents, -1, CoresKnown, CoresKnown};
    for (index_t left = chunk_steps; left > 0 && w.core < grid.num_cores && !w.found.found();) {
      auto const& box = boxes[static_cast<std::size_t>(w.core)];
      if (w.step >= box.steps()) {
        ++w.core;
        w.step = 0;
        w.runs = {};
        continue;
      }
      auto const point = box_point(box, w.step);
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (
            [&] {
              using spec = typename E::template spec_t<K>;
              if constexpr (!spec::raw) {
                std::array<index_t, spec::values> now{};
                block_index_at<spec>(typename spec::index_map_type{}, point, std::tuple<>{}, now.data());
                bool same = w.step > 0;
                for (std::size_t d = 0; d < spec::values && same; ++d) same = now[d] == w.last[K][d];
                if (!same && !w.found.found()) {
                  check_run(w, scope, descs, K, w.core, point, now);
                  for (std::size_t d = 0; d < spec::values; ++d) w.last[K][d] = now[d];
                }
              }
            }(),
            ...);
      }(std::make_index_sequence<E::num_operands>{});
      ++w.step;
      --left;
    }
  }
};

/// Where the walk stands after chunk K (each chunk its own constant expression).
template <class E, bool CoresKnown, index_t K>
struct static_rule_chunk {
  static constexpr typename static_rule_walk<E, CoresKnown>::walk_type value = [] {
    if constexpr (K == 0) {
      typename static_rule_walk<E, CoresKnown>::walk_type w{};
      static_rule_walk<E, CoresKnown>::walk_chunk(w);
      return w;
    } else {
      auto w = static_rule_chunk<E, CoresKnown, K - 1>::value;
      static_rule_walk<E, CoresKnown>::walk_chunk(w);
      return w;
    }
  }();
};

/// The first rule engine E's grid breaks, found by the compiler chunk after chunk, stopping
/// at the first violation. CoresKnown: the core count is the launch's for certain, so the
/// core-dependent rules (revisit, shared blocks) apply.
template <class E, bool CoresKnown, index_t K = 0>
constexpr rule_violation static_rule_violation() {
  constexpr rule_violation found = static_rule_chunk<E, CoresKnown, K>::value.found;
  if constexpr (found.found() || K + 1 >= static_rule_walk<E, CoresKnown>::chunks)
    return found;
  else
    return static_rule_violation<E, CoresKnown, K + 1>();
}

/// The whole-grid rules for engine E, when the compiler can walk its grid
/// (rules_are_static): static_asserts with the same phrases as the run-time errors.
template <class E, bool CoresKnown>
constexpr bool check_static_rules() {
  if constexpr (E::rules_are_static) {
    constexpr rule_violation v = static_rule_violation<E, CoresKnown>();
    constexpr operand_desc op = v.found() ? E::static_descs()[static_cast<std::size_t>(v.operand)] : operand_desc{};
    constexpr bool oor = v.rule == grid_rule::block_out_of_range;
    constexpr bool revisit = v.rule == grid_rule::output_revisit;
    constexpr bool shared = v.rule == grid_rule::two_cores_one_block;
    return block_in_range_rule<E::who, oor, op.output, op.position, v.grid_step, v.dim, v.start>() &&
           revisit_rule<E::who, revisit, op.position, v.grid_step, v.core>() &&
           disjoint_cores_rule<E::who, shared, op.position, v.grid_step, v.core, v.other_core>();
  } else {
    return true;
  }
}

}  // namespace pallas::detail
