// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the copy and semaphore primitives record in the trace (pallas/trace/recorder.hpp):
// a copy started by hand spans from its start() to the end of the wait that consumes it (the
// oldest started copy on the same semaphore with the same byte count), a sync_copy spans
// its move, a semaphore wait spans the wait. Each holds its launch, core, bytes, what it
// moved and the grid point. Copies in flight at once take separate lanes, so their spans
// never overlap on one track. Callers test trace::enabled() first: nothing here runs, and
// no clock is read, while tracing is off.

#include <algorithm>
#include <cstddef>
#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <mutex>
#include <vector>

#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/fork_guard.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/dtype.hpp>
#include <pallas/error.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/trace/recorder.hpp>

namespace pallas::detail {

/// The grid point the core is at, "(i, j)", or "" outside a grid.
inline std::string trace_point(core_state const& core) {
  grid_frame const* g = core.grid;
  if (!g || g->rank == 0) return {};
  std::string s = "(";
  for (int d = 0; d < g->rank; ++d) s += (d ? ", " : "") + std::to_string(g->program_id[d]);
  return s + ")";
}

/// The first lane of hand-started copies: after the pipeline's (operands, outputs, DMA thread).
inline constexpr int trace_copy_lane = 3000;
inline constexpr int trace_semaphore_lane = 4000;

/// A copy a core started by hand and has not waited for yet.
struct traced_copy_start {
  std::uint64_t launch = 0;
  int core = 0;
  std::atomic<std::int32_t> const* cell = nullptr;
  std::int32_t bytes = 0;
  int lane = 0;
  std::int64_t begin_ns = 0, cpu_ns = 0;
  std::string operand, point;
  char const* category = "async_copy";  ///< the span's category ("remote_copy": either side of one)
  char const* what = "async copy";      ///< how its name starts
};

/// The copies started and not yet waited, of every core. Never destroyed (a kernel may run
/// from an atexit handler) and not thread_local (its destructor would run before those).
class traced_copy_starts {
 public:
  static traced_copy_starts& instance() {
    static traced_copy_starts* const t = [] {
      auto* made = new traced_copy_starts;
      hold_across_fork<&traced_copy_starts::mutex_of>();
      return made;
    }();
    return *t;
  }
  static std::mutex& mutex_of() { return instance().mutex_; }

  /// Notes a start; its lane is the lowest one no copy of its launch and core in flight holds.
  void add(traced_copy_start s) {
    std::lock_guard lock(mutex_);
    // A copy never waited by its core (another core waited, or the launch failed) is
    // forgotten once many more have started.
    if (starts_.size() >= max_pending)
      starts_.erase(starts_.begin(), starts_.begin() + static_cast<std::ptrdiff_t>(max_pending / 2));
    s.lane = free_lane_locked(s.launch, s.core);
    starts_.push_back(std::move(s));
  }

  /// The lowest lane no copy of `launch` in flight on `core` holds.
  int free_lane(std::uint64_t launch, int core) {
    std::lock_guard lock(mutex_);
    return free_lane_locked(launch, core);
  }

  /// Takes the oldest start of `launch` on `core` that signals `cell` with `bytes`.
  bool take(std::uint64_t launch, int core, std::atomic<std::int32_t> const* cell, std::int32_t bytes,
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

 private:
  static constexpr std::size_t max_pending = 4096;
  int free_lane_locked(std::uint64_t launch, int core) const {
    int lane = trace_copy_lane;
    while (std::any_of(starts_.begin(), starts_.end(), [&](traced_copy_start const& s) {
      return s.launch == launch && s.core == core && s.lane == lane;
    }))
      ++lane;
    return lane;
  }
  std::mutex mutex_;
  std::vector<traced_copy_start> starts_;
};

inline trace::event trace_event_on(core_state const& core, char const* category, int lane) {
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

/// async_copy's start(): notes the copy (call with tracing on, before the copy is issued).
inline void trace_copy_start(core_state const& core, std::atomic<std::int32_t> const* cell, std::int32_t bytes,
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

/// A remote copy's start (call with tracing on): a span on the sender's side, from here to
/// its wait_send, and, when the receiving core is in this process, one on the receiver's,
/// from here to its wait_recv.
inline void trace_remote_copy_start(core_state const& sender, std::atomic<std::int32_t> const* send_cell,
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

/// Records a wait from construction to destruction when tracing is on: the copy it consumes
/// when this core started one on `cell` with `value` bytes (`dma`), else the wait itself.
class traced_wait {
 public:
  traced_wait(core_state const& core, std::atomic<std::int32_t> const* cell, std::int32_t value, char const* who,
              bool dma)
      : core_(core), cell_(cell), value_(value), who_(who), dma_(dma) {
    if (trace::enabled()) {
      active_ = true;
      begin_ns_ = detail::now_ns();
      cpu_ns_ = detail::thread_cpu_ns();
    }
  }
  ~traced_wait() {
    if (!active_) return;
    try {
      record();
    } catch (...) {  // out of memory: a span less, never a terminate from a destructor
    }
  }
  traced_wait(traced_wait const&) = delete;
  traced_wait& operator=(traced_wait const&) = delete;

 private:
  void record() {
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

  core_state const& core_;
  std::atomic<std::int32_t> const* cell_;
  std::int32_t value_;
  char const* who_;
  bool dma_;
  bool active_ = false;
  std::int64_t begin_ns_ = 0, cpu_ns_ = 0;
};

/// sync_copy: a span over the copy; `describe()` names what it moves (called only when
/// tracing is on).
template <class Describe>
detail::span traced_sync_copy(core_state const& core, std::int64_t bytes, Describe&& describe) {
  return detail::span([&](trace::event& e) {
    e = trace_event_on(core, "sync_copy",
                       traced_copy_starts::instance().free_lane(core.launch ? core.launch->id : 0, core.index));
    e.operand = describe();
    e.name = "sync_copy " + e.operand + " (" + std::to_string(bytes) + " bytes)";
    e.bytes = bytes;
  });
}

/// What a copy from `src` to `dst` moves, for the trace: "HBM float32(8, 128) -> VMEM at f.cpp:12".
template <class Src, class Dst, class Where>
std::string trace_copy_operand(Src const& src, Where const& where) {
  std::string s = str(pallas::name(Src::space), ' ', dtype_traits<std::remove_cv_t<typename Src::value_type>>::name,
                      src.shape(), " -> ", pallas::name(Dst::space));
  if (where.known()) s += str(" at ", where.file_name(), ':', where.line);
  return s;
}

}  // namespace pallas::detail
