// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runs one core's part of a plan: a loop over its events that issues the copies through the
// DMA engine and calls the body. Every decision (what to fetch when, which slot, when to
// write back) was taken by the plan builder.

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>

#include <boost/mp11/algorithm.hpp>

#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/rules.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/error.hpp>
#include <pallas/trace/recorder.hpp>

namespace pallas::detail {

/// Names the grid point in errors raised inside the body.
template <std::size_t R>
class grid_point_context final : public error_context {
 public:
  explicit grid_point_context(std::array<index_t, R> const& point) : point_(point) {}
  void describe(std::ostream& out) const override { out << "grid point " << tuple_string(point_); }

 private:
  std::array<index_t, R> const& point_;
};

/// Makes the grid's program ids visible to pl::program_id / pl::num_programs for its
/// lifetime, and the grid point to error messages.
template <std::size_t R>
class grid_scope {
 public:
  grid_scope(core_state& core, std::array<index_t, R> const& extents)
      : core_(core), outer_(core.grid), where_(point_), push_(where_) {
    frame_.rank = static_cast<int>(R);
    for (std::size_t a = 0; a < R; ++a) frame_.num_programs[a] = extents[a];
    frame_.outer = outer_;
  }
  ~grid_scope() { core_.grid = outer_; }
  grid_scope(grid_scope const&) = delete;
  grid_scope& operator=(grid_scope const&) = delete;

  void enter(std::array<index_t, R> const& point) {
    point_ = point;
    for (std::size_t a = 0; a < R; ++a) frame_.program_id[a] = point[a];
    core_.grid = &frame_;
  }
  std::array<index_t, R> const& point() const noexcept { return point_; }

 private:
  core_state& core_;
  grid_frame const* outer_;
  grid_frame frame_;
  std::array<index_t, R> point_{};
  grid_point_context<R> where_;
  scoped_error_context push_;
};

/// What the body sees of one operand at a step: a slot, and the run whose block it holds.
struct binding {
  int slot = 0;
  std::int32_t run = 0;
};

/// Executes part `part`'s events of `plan` on `core` over `operands` (a tuple, inputs then
/// outputs, in the plan's order); `call_body(bindings)` runs one step's body with what each
/// operand's ref points at.
template <class Plan, class Operands, class CallBody>
void execute_plan(core_state& core, int part, Plan const& plan, Operands& operands, bool global_num_programs,
                  CallBody&& call_body) {
  constexpr std::size_t N = Plan::num_operands;
  auto const c = static_cast<std::size_t>(part);
  auto const& box = plan.core(c).box;
  grid_scope<Plan::grid_rank> scope(core, global_num_programs || box.linear ? plan.grid : box.extents);
  std::array<binding, N> bound{};
  for (plan_event const& e : plan.events_of(c)) {
    switch (e.kind) {
      case event_kind::body: {
        scope.enter(plan.point(c, e.index));
        {
          detail::span step_span([&](trace::event& t) {
            t.launch = core.launch->id;
            t.core = core.index;
            t.category = "step";
            t.point = tuple_string(scope.point());
            t.name = "step " + t.point;
          });
          call_body(bound);
        }
        core.launch->check_aborted();
        break;
      }
      case event_kind::bind:
        bound[e.operand] = {e.slot, e.index};
        break;
      default:
        boost::mp11::mp_with_index<N>(e.operand, [&](auto k) {
          auto& op = std::get<k>(operands);
          if constexpr (!std::remove_cvref_t<decltype(op)>::raw) {
            auto const block = plan.block(plan.runs_of(c, k)[static_cast<std::size_t>(e.index)], k);
            switch (e.kind) {
              case event_kind::fetch_start: op.start(core, block, e.slot, false); break;
              case event_kind::fetch_wait: op.wait(core, block, e.slot, false); break;
              case event_kind::writeback_start: op.start(core, block, e.slot, true); break;
              case event_kind::writeback_wait: op.wait(core, block, e.slot, true); break;
              default: break;
            }
          }
        });
    }
  }
}

}  // namespace pallas::detail
