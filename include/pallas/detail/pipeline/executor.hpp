// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runs one core's part of a plan: a loop over its events that issues the copies through the
// DMA engine and calls the body. Every decision (what to fetch when, which slot, when to
// write back) was taken by the plan builder. Nothing here knows a kernel's types: the
// operands are operand_io, the body a body_call, so pipelines of one grid rank and operand
// count share one executor.

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>

#include <pallas/detail/pipeline/hbm_overlap.hpp>
#include <pallas/detail/pipeline/operand_io.hpp>
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

/// What the body sees of one operand at a step: a slot, and the block it holds.
struct bound_block {
  int slot = 0;
  std::span<index_t const> block{};
};

/// A pipeline's body with its types erased: `call(context, bound)` runs one step with what
/// each operand's ref points at (the typed part, per kernel, is engine.hpp's body thunk).
struct body_call {
  void (*call)(void const* context, std::span<bound_block const> bound);
  void const* context;
};

/// Executes part `part`'s events of `plan` on `core` over `operands` (inputs then outputs,
/// in the plan's order). A template on the grid's rank and the operand count only: every
/// pipeline of that shape shares it.
template <std::size_t R, std::size_t N>
void execute_plan(core_state& core, int part, plan_view<R, N> const& plan, std::span<operand_io> operands,
                  bool global_num_programs, body_call body) {
  auto const c = static_cast<std::size_t>(part);
  auto const& box = plan.core(c).box;
  grid_scope<R> scope(core, global_num_programs || box.linear ? plan.grid : box.extents);
  std::array<bound_block, N> bound{};
  for (std::size_t k = 0; k < N; ++k)
    if (auto const runs = plan.runs_of(c, k); !runs.empty()) bound[k].block = plan.block(runs[0], k);
  // Checked mode: a fetch and a write-back of one buffer's bytes in flight together race.
  hbm_overlap_check overlaps(checked_mode ? std::span<operand_io const>(operands) : std::span<operand_io const>{});
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
          body.call(body.context, bound);
        }
        core.launch->check_aborted();
        break;
      }
      case event_kind::bind:
        bound[e.operand] = {e.slot, plan.block(plan.runs_of(c, e.operand)[static_cast<std::size_t>(e.index)], e.operand)};
        break;
      default: {
        operand_io& op = operands[e.operand];
        if (!op.buffered()) break;
        auto const block = plan.block(plan.runs_of(c, e.operand)[static_cast<std::size_t>(e.index)], e.operand);
        bool const to_hbm = e.kind == event_kind::writeback_start || e.kind == event_kind::writeback_wait;
        switch (e.kind) {
          case event_kind::fetch_start:
          case event_kind::writeback_start:
            if (overlaps.active()) overlaps.starting(e.operand, block, e.slot, to_hbm);
            op.start(core, block, e.slot, to_hbm);
            break;
          case event_kind::fetch_wait:
          case event_kind::writeback_wait:
            op.wait(core, block, e.slot, to_hbm);
            if (overlaps.active()) overlaps.waited(e.operand, e.slot, to_hbm);
            break;
          default: break;
        }
      }
    }
  }
}

/// Runs part `part` of `plan` on `core`: allocates the operands' slots, then executes.
template <std::size_t R, std::size_t N>
void run_plan(core_state& core, int part, plan_view<R, N> const& plan, std::span<operand_io> operands,
              bool global_num_programs, body_call body) {
  struct release_guard {  // on the way out (an error too), no copy may touch the slots any more
    core_state& core;
    std::int64_t mark;
    ~release_guard() {
      core.dma.quiesce();
      core.vmem.release(mark);
    }
  } guard{core, core.vmem.mark()};
  auto const& cp = plan.core(static_cast<std::size_t>(part));
  for (std::size_t k = 0; k < N; ++k) operands[k].allocate(core, cp.buffer_count[k]);
  execute_plan(core, part, plan, operands, global_num_programs, body);
}

}  // namespace pallas::detail
