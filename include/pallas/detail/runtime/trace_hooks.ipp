// SPDX-License-Identifier: Apache-2.0
#pragma once
// The trace hooks' bookkeeping of copies and waits, compiled once per program under
// separate compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/trace_hooks.hpp>

#include <algorithm>
#include <utility>

#include <pallas/detail/runtime/fork_guard.hpp>

namespace pallas::detail {

PALLAS_DECL std::string trace_point(core_state const& core) {
  grid_frame const* g = core.grid;
  if (!g || g->rank == 0) return {};
  std::string s = "(";
  for (int d = 0; d < g->rank; ++d) s += (d ? ", " : "") + std::to_string(g->program_id[d]);
  return s + ")";
}

PALLAS_DECL traced_copy_starts& traced_copy_starts::instance() {
  static traced_copy_starts* const t = [] {
    auto* made = new traced_copy_starts;
    hold_across_fork<&traced_copy_starts::mutex_of>();
    return made;
  }();
  return *t;
}

PALLAS_DECL void traced_copy_starts::add(traced_copy_start s) {
  std::lock_guard lock(mutex_);
  // A copy never waited by its core (another core waited, or the launch failed) is
  // forgotten once many more have started.
  if (starts_.size() >= max_pending)
    starts_.erase(starts_.begin(), starts_.begin() + static_cast<std::ptrdiff_t>(max_pending / 2));
  s.lane = free_lane_locked(s.launch, s.core);
  starts_.push_back(std::move(s));
}

PALLAS_DECL int traced_copy_starts::free_lane(std::uint64_t launch, int core) {
  std::lock_guard lock(mutex_);
  return free_lane_locked(launch, core);
}

PALLAS_DECL bool traced_copy_starts::take(std::uint64_t launch, int core, std::atomic<std::int32_t> const* cell, std::int32_t bytes,
                                        traced_copy_start& out) {
  std::lock_guard lock(mutex_);
  auto const hit = std::find_if(starts_.begin(), starts_.end(), [&](traced_copy_start const& s) {
    return s.launch == launch && s.core == core && s.cell == cell && s.bytes == bytes;
  });
  if (hit == starts_.end()) return false;
  out = std::move(*hit);
  starts_.erase(hit);
  return true;
}

PALLAS_DECL int traced_copy_starts::free_lane_locked(std::uint64_t launch, int core) const {
  int lane = trace_copy_lane;
  while (std::any_of(starts_.begin(), starts_.end(), [&](traced_copy_start const& s) {
    return s.launch == launch && s.core == core && s.lane == lane;
  }))
    ++lane;
  return lane;
}

PALLAS_DECL trace::event trace_event_on(core_state const& core, char const* category, int lane) {
  trace::event e;
  e.launch = core.launch ? core.launch->id : 0;
  e.core = core.index;
  e.dma = true;
  e.category = category;
  e.lane = lane;
  e.lane_name = lane >= trace_semaphore_lane ? "semaphore waits" : "copies " + std::to_string(lane - trace_copy_lane);
  e.point = trace_point(core);
  return e;
}

PALLAS_DECL void trace_copy_start(core_state const& core, std::atomic<std::int32_t> const* cell, std::int32_t bytes,
                                  std::string operand) {
  traced_copy_start s;
  s.launch = core.launch ? core.launch->id : 0;
  s.core = core.index;
  s.cell = cell;
  s.bytes = bytes;
  s.operand = std::move(operand);
  s.point = trace_point(core);
  s.begin_ns = detail::now_ns();  // wall clock first: the CPU interval lies inside the wall one
  s.cpu_ns = detail::thread_cpu_ns();
  traced_copy_starts::instance().add(std::move(s));
}

PALLAS_DECL void trace_remote_copy_start(core_state const& sender, std::atomic<std::int32_t> const* send_cell,
                                         core_state const* receiver, std::atomic<std::int32_t> const* recv_cell,
                                         std::int32_t bytes, std::string const& to, std::string const& from) {
  traced_copy_start s;
  s.launch = sender.launch ? sender.launch->id : 0;
  s.bytes = bytes;
  s.point = trace_point(sender);
  s.category = "remote_copy";
  s.what = "remote copy";
  s.begin_ns = detail::now_ns();
  s.cpu_ns = detail::thread_cpu_ns();
  if (receiver) {
    traced_copy_start r = s;
    r.core = receiver->index;
    r.cell = recv_cell;
    r.operand = from;
    r.cpu_ns = -1;  // another thread's clock
    traced_copy_starts::instance().add(std::move(r));
  }
  s.core = sender.index;
  s.cell = send_cell;
  s.operand = to;
  traced_copy_starts::instance().add(std::move(s));
}

PALLAS_DECL traced_wait::traced_wait(core_state const& core, std::atomic<std::int32_t> const* cell, std::int32_t value,
                                   char const* who, bool dma)
    : core_(core), cell_(cell), value_(value), who_(who), dma_(dma) {
  if (trace::enabled()) {
    active_ = true;
    begin_ns_ = detail::now_ns();
    cpu_ns_ = detail::thread_cpu_ns();
  }
}

PALLAS_DECL traced_wait::~traced_wait() {
  if (!active_) return;
  try {
    record();
  } catch (...) {  // out of memory: a span less, never a terminate from a destructor
  }
}

PALLAS_DECL void traced_wait::record() {
  std::int64_t const cpu = detail::thread_cpu_ns();
  std::int64_t const end = detail::now_ns();
  std::uint64_t const launch = core_.launch ? core_.launch->id : 0;
  traced_copy_start hit;
  if (dma_ && traced_copy_starts::instance().take(launch, core_.index, cell_, value_, hit)) {
    trace::event e = trace_event_on(core_, hit.category, hit.lane);
    e.name = std::string(hit.what) + " " + hit.operand + " (" + std::to_string(hit.bytes) + " bytes)";
    e.bytes = hit.bytes;
    e.operand = std::move(hit.operand);
    e.point = std::move(hit.point);  // where it started
    e.begin_ns = hit.begin_ns;
    e.cpu_ns = cpu < 0 || hit.cpu_ns < 0 ? -1 : cpu - hit.cpu_ns;
    e.end_ns = end;
    detail::recorder::instance().record(std::move(e));
    return;
  }
  trace::event e = trace_event_on(core_, "semaphore_wait", trace_semaphore_lane);
  e.name = std::string(who_) + " for " + std::to_string(value_) + (dma_ ? " bytes" : "");
  if (dma_) e.bytes = value_;
  e.begin_ns = begin_ns_;
  e.cpu_ns = cpu < 0 || cpu_ns_ < 0 ? -1 : cpu - cpu_ns_;
  e.end_ns = end;
  detail::recorder::instance().record(std::move(e));
}

}  // namespace pallas::detail
