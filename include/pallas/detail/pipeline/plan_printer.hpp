// SPDX-License-Identifier: Apache-2.0
#pragma once
// A plan in words, core by core and step by step:
//
//   core 0: 2 steps, grid points (0, 0) .. (0, 1)
//     prologue: in_specs[0] fetch (0, 0) -> slot 0; in_specs[1] fetch (0, 0) -> slot 0
//     step 0 (0, 0): in_specs[0] fetch (0, 1) -> slot 1; ...; wait in_specs[0] slot 0; body;
//                    out_specs[0] write-back slot 0 -> (0, 0)
//     ...
//     epilogue: wait out_specs[0] slot 1

#include <cstddef>
#include <ostream>
#include <string>

#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/rules.hpp>

namespace pallas::detail {

template <class Plan>
std::string describe_event(Plan const& plan, std::size_t c, plan_event const& e) {
  if (e.kind == event_kind::body) return "body";
  std::string const name = operand_name(plan.operands[e.operand]);
  std::string const slot = "slot " + std::to_string(e.slot);
  auto const& run = plan.runs_of(c, e.operand)[static_cast<std::size_t>(e.index)];
  std::string const block = block_string(plan.operands[e.operand], plan.block(run, e.operand));
  switch (e.kind) {
    case event_kind::fetch_start: return name + " fetch " + block + " -> " + slot;
    case event_kind::fetch_wait: return "wait " + name + " fetch " + slot;
    case event_kind::bind:
      return name + " sees " + (plan.operands[e.operand].kind == operand_kind::view ? "block " + block : slot);
    case event_kind::writeback_start: return name + " write-back " + slot + " -> " + block;
    case event_kind::writeback_wait: return "wait " + name + " write-back " + slot;
    default: return "?";
  }
}

/// Prints `plan` (see the top of this file); bind events are left out unless `binds` (an
/// operand viewed in place is shown by them only).
template <class Plan>
void print_plan(std::ostream& out, Plan const& plan, bool binds = false) {
  for (std::size_t c = 0; c < static_cast<std::size_t>(plan.num_cores); ++c) {
    auto const& cp = plan.core(c);
    index_t const steps = cp.box.steps();
    out << "core " << c << ": " << steps << (steps == 1 ? " step" : " steps");
    if (steps > 0)
      out << ", grid points " << tuple_string(plan.point(c, 0)) << " .. " << tuple_string(plan.point(c, steps - 1));
    out << '\n';
    if (!cp.built) {
      out << "  (not planned here)\n";
      continue;
    }
    std::int32_t current = -2;
    bool first = true;
    for (plan_event const& e : plan.events_of(c)) {
      if (e.kind == event_kind::bind && !binds && plan.operands[e.operand].kind != operand_kind::view) continue;
      if (e.step != current) {
        if (current != -2) out << '\n';
        current = e.step;
        if (e.step < 0)
          out << "  prologue: ";
        else if (e.step >= steps)
          out << "  epilogue: ";
        else
          out << "  step " << e.step << ' ' << tuple_string(plan.point(c, e.step)) << ": ";
        first = true;
      }
      out << (first ? "" : "; ") << describe_event(plan, c, e);
      first = false;
    }
    if (current != -2) out << '\n';
  }
}

}  // namespace pallas::detail
