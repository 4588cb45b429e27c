// SPDX-License-Identifier: Apache-2.0
#pragma once
// A pipeline's plan: the schedule emit_pipeline and pallas_call run, as a value.
//
//   auto p = pltpu::emit_pipeline(body, pl::grid<2, 2>, pl::in_specs(...), pl::out_specs(...));
//   std::cout << pltpu::plan_of(p, x.ref(), y.ref(), o.ref());     // every core, every step
//   constexpr auto const& plan = pltpu::static_plan_of<decltype(p), decltype(x.ref()), ...>;
//   static_assert(plan.steps(0) == 4);
//
// For each core: its steps (`steps(c)`, `point(c, s)` the global grid point of local step
// s), per operand k (inputs, then outputs) the runs of consecutive steps that see one block
// (`runs_of(c, k)`, `block(run, k)`), and the ordered events (`events_of(c)`): fetch start
// and wait, write-back start and wait, `bind` (the body sees a slot from now on) and `body`.
// Each event names its operand, slot, run (or step, for `body`) and the local step it
// belongs to (-1: the prologue; steps(c): the epilogue).

#include <ostream>

#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/plan_printer.hpp>

namespace pallas {

using plan_event = detail::plan_event;  ///< one copy or step of a plan (plan_of, static_plan)
using plan_run = detail::plan_run;  ///< a core's run of a plan: its steps and copies, in order
using event_kind = detail::event_kind;  ///< what a plan_event is: fetch, step, write-back, ...

}  // namespace pallas

namespace pallas::detail {

template <std::size_t R, std::size_t N, class C, class E, class Ru, class I, class L>
std::ostream& operator<<(std::ostream& out, basic_plan<R, N, C, E, Ru, I, L> const& plan) {
  print_plan(out, plan);
  return out;
}

}  // namespace pallas::detail
