// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the copy and semaphore primitives record in the trace (pallas/trace/recorder.hpp):
// a copy started by hand spans from its start() to the end of the wait that consumes it (the
// oldest started copy on the same semaphore with the same byte count), a sync_copy spans
// its move, a semaphore wait spans the wait. Each holds its launch, core, bytes, what it
// moved and the grid point. Copies in flight at once take separate lanes, so their spans
// never overlap on one track. Callers test trace::enabled() first: nothing here runs, and
// no clock is read, while tracing is off.

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>
#include <mutex>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/dtype.hpp>
#include <pallas/error.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/trace/recorder.hpp>

namespace pallas::detail {

/// The grid point the core is at, "(i, j)", or "" outside a grid.
std::string trace_point(core_state const& core);

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
  static traced_copy_starts& instance();
  static std::mutex& mutex_of() { return instance().mutex_; }

  /// Notes a start; its lane is the lowest one no copy of its launch and core in flight holds.
  void add(traced_copy_start s);

  /// The lowest lane no copy of `launch` in flight on `core` holds.
  int free_lane(std::uint64_t launch, int core);

  /// Takes the oldest start of `launch` on `core` that signals `cell` with `bytes`.
  bool take(std::uint64_t launch, int core, std::atomic<std::int32_t> const* cell, std::int32_t bytes,
            traced_copy_start& out);

 private:
  static constexpr std::size_t max_pending = 4096;
  int free_lane_locked(std::uint64_t launch, int core) const;
  std::mutex mutex_;
  std::vector<traced_copy_start> starts_;
};

trace::event trace_event_on(core_state const& core, char const* category, int lane);

/// async_copy's start(): notes the copy (call with tracing on, before the copy is issued).
void trace_copy_start(core_state const& core, std::atomic<std::int32_t> const* cell, std::int32_t bytes,
                      std::string operand);

/// A remote copy's start (call with tracing on): a span on the sender's side, from here to
/// its wait_send, and, when the receiving core is in this process, one on the receiver's,
/// from here to its wait_recv.
void trace_remote_copy_start(core_state const& sender, std::atomic<std::int32_t> const* send_cell,
                             core_state const* receiver, std::atomic<std::int32_t> const* recv_cell,
                             std::int32_t bytes, std::string const& to, std::string const& from);

/// Records a wait from construction to destruction when tracing is on: the copy it consumes
/// when this core started one on `cell` with `value` bytes (`dma`), else the wait itself.
class traced_wait {
 public:
  traced_wait(core_state const& core, std::atomic<std::int32_t> const* cell, std::int32_t value, char const* who,
              bool dma);
  ~traced_wait();
  traced_wait(traced_wait const&) = delete;
  traced_wait& operator=(traced_wait const&) = delete;

 private:
  void record();

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

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/trace_hooks.ipp>
#endif
