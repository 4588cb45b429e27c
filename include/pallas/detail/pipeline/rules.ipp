// SPDX-License-Identifier: Apache-2.0
#pragma once
// The whole-grid rules' words: compiled once per program under separate compilation
// (config.hpp), inline in every translation unit otherwise.

#include <pallas/detail/pipeline/rules.hpp>

namespace pallas::detail {

PALLAS_DECL std::string tuple_string(std::span<index_t const> v) {
  std::string s = "(";
  for (std::size_t a = 0; a < v.size(); ++a) s += (a ? ", " : "") + std::to_string(v[a]);
  return s + (v.size() == 1 ? ",)" : ")");
}

PALLAS_DECL std::string block_string(operand_desc const& op, std::span<index_t const> b) {
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

PALLAS_DECL std::string operand_name(operand_desc const& op) {
  return std::string(op.output ? "out_specs[" : "in_specs[") + std::to_string(op.position) + "]";
}

PALLAS_DECL void report_grid_rule(std::string_view who, operand_desc const& op, std::span<index_t const> point,
                                  std::span<index_t const> block, rule_violation const& v) {
  if (v.rule == grid_rule::output_revisit)
    fail("pallas::", who, ": ", operand_name(op), " revisits block ", block_string(op, block), " at grid point ",
         tuple_string(point), " after writing other blocks (" PALLAS_RULE_OUTPUT_REVISIT "); " PALLAS_RULE_OUTPUT_REVISIT_FIX);
  if (v.rule == grid_rule::two_cores_one_block) {
    int const first = v.other_core < v.core ? v.other_core : v.core;
    int const second = v.other_core < v.core ? v.core : v.other_core;
    fail("pallas::", who, ": ", operand_name(op), " block ", block_string(op, block), " is written by core ", first,
         " and core ", second, " (" PALLAS_RULE_TWO_CORES_ONE_BLOCK ")");
  }
  // block_out_of_range
  auto const d = static_cast<std::size_t>(v.dim);
  constexpr std::string_view rule = " (" PALLAS_RULE_BLOCK_OUT_OF_RANGE ")";
  std::string const where = std::string("pallas::") + std::string(who) + ": " + operand_name(op) + " maps grid point " +
                            tuple_string(point) + " to block index " + block_string(op, block);
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

}  // namespace pallas::detail
