// SPDX-License-Identifier: Apache-2.0
#pragma once
// The whole-grid rules at compile time: the findings of rules.hpp's queries over the plan
// the compiler computed, as static_asserts whose template arguments carry the numbers (the
// compilers print them in the "required from" / "in instantiation of" line).

#include <cstdint>

#include <pallas/detail/pipeline/engine.hpp>
#include <pallas/detail/pipeline/rule_words.hpp>
#include <pallas/detail/pipeline/rules.hpp>
#include <pallas/detail/pipeline/spec_rules.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

/// Arguments: whether an operand is an output, its position in in_specs / out_specs, the
/// first such grid step in grid order, the dimension and the element the block starts at.
template <caller Who, bool Found, bool IsOutput, int Position, index_t GridStep, int Dim, index_t Start>
constexpr bool block_in_range_rule() {
  static_assert(!Found || Who != caller::emit_pipeline,
                "pallas::emit_pipeline: " PALLAS_RULE_BLOCK_OUT_OF_RANGE " (the numbers: output?, "
                "spec position, first such grid step in grid order, dimension, element the block starts at)");
  static_assert(!Found || Who != caller::pallas_call,
                "pallas::pallas_call: " PALLAS_RULE_BLOCK_OUT_OF_RANGE " (the numbers: output?, "
                "spec position, first such grid step in grid order, dimension, element the block starts at)");
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

/// The whole-grid rules for engine E, when the compiler planned it. The core-dependent ones
/// (revisit, shared blocks) only when the core count is the launch's for certain.
template <class E, bool CoresKnown>
constexpr bool check_static_plan() {
  if constexpr (plan_is_static_v<E>) {
    using H = static_plan_of<E>;
    constexpr rule_violation oor = H::out_of_range;
    constexpr operand_desc oor_op = oor.found() ? H::plan.operands[static_cast<std::size_t>(oor.operand)] : operand_desc{};
    if constexpr (!block_in_range_rule<E::who, oor.found(), oor_op.output, oor_op.position, oor.grid_step, oor.dim,
                                       oor.start>()) {
      return false;
    } else if constexpr (CoresKnown) {
      constexpr rule_violation rv = H::revisit;
      constexpr int rv_pos = rv.found() ? H::plan.operands[static_cast<std::size_t>(rv.operand)].position : 0;
      if constexpr (!revisit_rule<E::who, rv.found(), rv_pos, rv.grid_step, rv.core>()) {
        return false;
      } else {
        constexpr rule_violation sb = H::shared_block;
        constexpr int sb_pos = sb.found() ? H::plan.operands[static_cast<std::size_t>(sb.operand)].position : 0;
        return disjoint_cores_rule<E::who, sb.found(), sb_pos, sb.grid_step, sb.core, sb.other_core>();
      }
    } else {
      return true;
    }
  } else {
    return true;
  }
}

}  // namespace pallas::detail
